/**
 * Throughput of MultiPL-E's languages through explora's process runner (ProcessExecutor, every
 * step in its sandbox) with the warm toolchains (infra/sandbox/warm/warmToolchains.ts), against
 * MultiPL-E's own evaluator, on the same machine, in one run, with the same concurrency.
 *
 *   npx tsx scripts/bench/bench-multiple.ts [--programs 40] [--workers 2] [--languages js,ts,go_test.go,rs,java,cpp,lua,rb,php,pl,sh,r,rkt,d,scala,cs]
 *                                          [--rounds 1] [--levers] [--skip-peer] [--skip-whole-command] [--floor] [--batch-size 16] [--in-flight N]
 *
 * Workload: the correct MultiPL-E-style rows each language carries in its folder (its fixtures'
 * `bench.rows`, domain/languages/<folder>/fixtures.ts): three HumanEval problems per language
 * (PHP: add for strlen, which redeclares a PHP builtin in MultiPL-E's own row), in MultiPL-E's
 * format (the program is prompt + completion + "\n" + tests), repeated to --programs per language;
 * every program is made distinct (its fixtures' `bench.distinct`: a comment, and in Go a distinct
 * `var _ = i`, since Go's compile output ignores comments) so that neither
 * MultiPL-E's cache of program texts nor any build cache returns an earlier result.
 * Peer: MultiPL-E's evaluation/src as published (main.py's ThreadPoolExecutor of --workers over
 * containerized_eval's eval_string_script: a NamedTemporaryFile per program and the language's
 * eval_script), re-created here in Python with each eval_*.py's commands, timeouts and status
 * rules: eval_javascript `node F` (subprocess.run); eval_ts `tsc --target esnext F` then
 * `node F.js` (safe_subprocess.run, which polls every 0.1 s); eval_go `go test F`
 * (subprocess.run); eval_rust `rustc F -o B` then `B` (subprocess.run); eval_java
 * `javac -encoding UTF8 -d D F` then `java -ea -cp D:javatuples Problem` (safe_subprocess.run);
 * eval_cpp `g++ F -o B -std=c++17` then `B` (safe_subprocess.run); eval_php `php F`, eval_pl
 * `perl F`, eval_sh `bash F`, eval_r `Rscript F`, eval_racket `racket F` (any stderr an Exception)
 * (safe_subprocess.run); eval_lua `lua F` (safe_subprocess.run) and
 * eval_ruby `ruby F` (subprocess.run, 5 s), these two reconstructed after the other
 * evaluators' pattern (their files were not in the reference index); eval_dlang's
 * `rdmd -unittest -main F` as `ldc2 -unittest F` then `B` (no dmd here); eval_scala `scalac -d D F` then
 * `scala -cp D Problem` (safe_subprocess.run; any stderr an Exception); eval_cs `csc /d:DEBUG
 * -r:System.Numerics.dll F /out:B.exe` (as Debian's `mcs`: no Roslyn here) then `mono B.exe` (subprocess.run,
 * 5 s; a failed Debug.Assert or unhandled exception in stderr an Exception). Same toolchains as ours (tsc
 * is the project's typescript package; javatuples is .tools/multiple's).
 * Ours: 8 untimed programs first (distinct texts: the warm compilers' start and JIT warm-up, paid
 * once per worker), then the timed ones. --levers also runs the same programs through the same
 * runner with the plain toolchain modules (MultiPL-E's own commands, sandboxed), to show what the
 * warm toolchains buy beside what the runner itself costs.
 * --floor (js): the same programs as bare `node F` processes started straight from this process,
 * same concurrency, no Python and no sandbox: the physical floor of any evaluator that starts one
 * Node per program. MultiPL-E's time over it bounds what such an evaluator can gain.
 * --peer-timeout-scale multiplies MultiPL-E's timeouts: on a loaded machine its 15 s for tsc would
 * trip and count as SyntaxError.
 * --share-process: js programs several to a sandboxed Node process, each in its own V8 context
 * (ProcessExecutor's shareProcess, infra/sandbox/warm/jsSharedProcess.ts); outcomes must still all
 * be passes, and the shared runs are counted.
 * --fork-server (the default; --no-fork-server: every program alone): rb, pl, php, r and lua programs forked by a warm interpreter per slot (rb, pl, lua:
 * with its test library loaded); sh and js programs exec'd (their lone command) by a warm sandbox per
 * slot (ProcessExecutor's forkServer, infra/sandbox/process/forkServer.ts); rkt programs in a warm
 * racket's sandboxed evaluators (infra/sandbox/process/rktServer.ts); outcomes must still all
 * be passes, and the forked runs are counted.
 * --batch-size: most programs per compile batch where the toolchain batches (Go, Rust, D; 1: none),
 * the runner's default otherwise (ProcessExecutor's DEFAULT_BATCH_SIZE).
 * --in-flight N|shard: ours calls `run` per program with N in flight instead of one `runMany` over
 * all of them; `shard`: as many as a sweep's shard keeps (the runner's inFlightCapacity: a batch
 * per slot where the toolchain batches, else two per slot).
 *
 * Two figures per side. STEADY STATE (the columns above): the runner already started and warm
 * (8 untimed programs), the clock around the timed programs only; MultiPL-E's clock starts inside
 * its Python process, after the interpreter's start. WHOLE COMMAND (unless --skip-whole-command):
 * the same programs as a user runs each evaluator, a fresh process timed from spawn to exit with
 * nothing warmed: ours is `node bin/evaluate.mjs --problems P --samples S --k 1 --verbose`
 * (scripts/evaluate.ts with its own defaults: --workers cpu+2, 4 here, and --timeout 3; module load,
 * sandbox and toolchain start, reading the rows, writing the results), MultiPL-E's is its Python
 * process from the interpreter's start, with the same worker count. The programs are the same
 * texts: one MultiPL-E row per program (name HumanEval_<i>_<function>, the distinct suffix in its
 * tests) and one sample each, the row's completion.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { z } from 'zod';
import type { Toolchain } from '../../infra/sandbox/process/contract.js';
import { mapLimit } from '../../infra/mapLimit.js';
import { ProcessExecutor } from '../../infra/sandbox/process/processExecutor.js';
import type { ProcessLanguageId } from '../../domain/languages/registry.js';
import { plainToolchainFor, TOOLCHAINS, toolchainFor } from '../../infra/sandbox/toolchainRegistry.js';
import { defaultSandboxConcurrency } from '../../infra/sandbox/pythonExecutor.js';
import { fixturesOf, processFixturesOf } from '../../test/support/language-fixtures.js';

/** MultiPL-E's process-run languages, in the order of TOOLCHAINS. */
const LANGUAGES = Object.keys(TOOLCHAINS) as ProcessLanguageId[];
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TOOLS = join(ROOT, '.tools/multiple');

// Every language's check, side by side: the default list and the refusals below read them.
const checks = Object.fromEntries(await Promise.all(LANGUAGES.map(async (l) => [l, await toolchainFor(l).check()] as const)));
const program = new Command()
  .option('--programs <n>', 'programs per language on each side', '40')
  .option('--workers <n>', "concurrency of both sides (MultiPL-E's default --max-workers is cpu_count - 1)", '2')
  .option(
    '--languages <list>',
    'comma-separated MultiPL-E language ids (default: every one whose toolchain is here)',
    LANGUAGES.filter((l) => checks[l]!.ok).join(','),
  )
  .option('--rounds <n>', 'alternate the two sides this many times', '1')
  .option('--levers', 'also run each language with its lever off (the plain toolchain module)')
  .option('--skip-peer', 'measure ours only')
  .option('--skip-whole-command', 'steady state only: no whole-command runs of either evaluator')
  .option('--floor', 'js: also time bare `node F` per program (no Python, no sandbox), the floor of a process per program')
  .option(
    '--in-flight <n|shard>',
    "ours: `run` per program with this many in flight instead of one runMany; 'shard': as many as a sweep's shard keeps",
  )
  .option('--share-process', "js: several programs per sandboxed Node process, each in its own V8 context (the runner's shareProcess)")
  .option(
    '--fork-server',
    "the default: rb, pl, php, r, lua: each program forked by a warm interpreter per slot; sh, js: exec'd by a warm sandbox per slot; rkt: run in a warm racket's sandboxed evaluators (the runner's forkServer)",
    true,
  )
  .option('--no-fork-server', 'ours: a sandbox and an interpreter of its own for every program (the lone path)')
  .option('--batch-size <n>', "most programs per compile batch where the toolchain batches (1: none); default the runner's")
  .option(
    '--peer-timeout-scale <x>',
    "multiply MultiPL-E's timeouts (15 s for tsc, javac, g++) on a loaded machine, where they would trip",
    '1',
  )
  .parse();
const opts = z
  .object({
    programs: z.coerce.number().int().positive(),
    workers: z.coerce.number().int().positive(),
    languages: z.string().transform((s, ctx) => {
      const list = s.split(',').map((l) => l.trim());
      for (const l of list)
        if (!(LANGUAGES as readonly string[]).includes(l))
          ctx.addIssue({ code: 'custom', message: `--languages: unknown language ${l} (known: ${LANGUAGES.join(', ')})` });
      for (const l of list.filter((x) => (LANGUAGES as readonly string[]).includes(x))) {
        const check = checks[l]!;
        if (!check.ok)
          ctx.addIssue({ code: 'custom', message: `--languages: ${l} cannot run here: ${check.missing} is missing; ${check.install}` });
      }
      return list as ProcessLanguageId[];
    }),
    rounds: z.coerce.number().int().positive(),
    levers: z.boolean().optional(),
    skipPeer: z.boolean().optional(),
    skipWholeCommand: z.boolean().optional(),
    floor: z.boolean().optional(),
    shareProcess: z.boolean().optional(),
    forkServer: z.boolean().optional(),
    batchSize: z.coerce.number().int().positive().optional(),
    inFlight: z.union([z.literal('shard'), z.coerce.number().int().positive()]).optional(),
    peerTimeoutScale: z.coerce.number().positive(),
  })
  .parse(program.opts());

interface BenchProgramRow {
  name: string;
  language: ProcessLanguageId;
  prompt: string;
  completion: string;
  tests: string;
  stop_tokens: string[];
}

/** The rows behind programsFor's programs (the language's fixtures' bench rows): each row's tests carry the program's distinct suffix. */
function rowsFor(language: ProcessLanguageId, n: number): BenchProgramRow[] {
  const { bench } = processFixturesOf(language);
  const stop = fixturesOf(language).multiple.row.stop;
  if (bench.rows.length === 0) throw new Error(`${language}: its fixtures have no bench rows`);
  return Array.from({ length: n }, (_, i) => {
    const r = bench.rows[i % bench.rows.length]!;
    return { name: r.name, language, prompt: r.prompt, completion: r.completion, tests: r.tests + bench.distinct(i), stop_tokens: stop };
  });
}

function programsFor(language: ProcessLanguageId, n: number): string[] {
  return rowsFor(language, n).map((r) => r.prompt + r.completion + '\n' + r.tests);
}

/** MultiPL-E's evaluator, re-created from evaluation/src (see the header). */
const PEER_DRIVER = String.raw`
import json, os, signal, subprocess, sys, tempfile, time, fcntl
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
spec = json.load(open(sys.argv[1]))
language, programs, workers, tsc, javatuples, scale = spec["language"], spec["programs"], spec["workers"], spec["tsc"], spec["javatuples"], spec["timeoutScale"]

class Result:
    def __init__(self, timeout, exit_code, stdout, stderr):
        self.timeout, self.exit_code, self.stdout, self.stderr = timeout, exit_code, stdout, stderr

def set_nonblocking(reader):
    fd = reader.fileno()
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)

def safe_run(args, timeout_seconds=15, max_output_size=2048, env=None, cwd=None):
    timeout_seconds = int(timeout_seconds * scale)
    # safe_subprocess.run: new session, non-blocking pipes read every 0.1 s, process group killed.
    p = subprocess.Popen(args, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, bufsize=1024, cwd=cwd)
    set_nonblocking(p.stdout); set_nonblocking(p.stderr)
    pgid = os.getpgid(p.pid)
    out, err, out_n, err_n, exit_code = [], [], 0, 0, None
    for _ in range(timeout_seconds * 10):
        o = p.stdout.read(1024); e = p.stderr.read(1024)
        if o is not None and out_n < max_output_size: out.append(o); out_n += len(o)
        if e is not None and err_n < max_output_size: err.append(e); err_n += len(e)
        exit_code = p.poll()
        if exit_code is not None: break
        time.sleep(0.1)
    try: os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError: pass
    return Result(exit_code is None, exit_code if exit_code is not None else -1, b"".join(out).decode("utf-8", errors="ignore"), b"".join(err).decode("utf-8", errors="ignore"))

def eval_js(path):
    try:
        r = subprocess.run(["node", str(path)], capture_output=True, timeout=15 * scale)
        if r.returncode == 0: return "OK"
        m = str(r)
        return "AssertionError" if "ERR_ASSERTION" in m else "SyntaxError" if "SyntaxError" in m else "ReferenceError" if "ReferenceError" in m else "Exception"
    except subprocess.TimeoutExpired:
        return "Timeout"

def eval_ts(path):
    r = safe_run([tsc, "--target", "esnext", str(path)], timeout_seconds=15)
    if r.exit_code != 0: return "SyntaxError"
    r = safe_run(["node", str(path).replace(".ts", ".js")], timeout_seconds=15)
    return "Timeout" if r.timeout else "OK" if r.exit_code == 0 else "AssertionError" if "ERR_ASSERTION" in r.stderr else "Exception"

def eval_go(path):
    try:
        b = subprocess.run(["go", "test", path], timeout=30 * scale, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out = b.stdout.decode("utf-8", errors="ignore")
        return "SyntaxError" if ("[setup failed]" in out or "[build failed]" in out) else "Exception" if "FAIL" in out else "OK"
    except subprocess.TimeoutExpired:
        return "Timeout"

def eval_rust(path):
    basename = ".".join(str(path).split(".")[:-1])
    try:
        b = subprocess.run(["rustc", path, "-o", basename], capture_output=True, timeout=15 * scale)
    except subprocess.TimeoutExpired:
        return "Timeout"
    if b.returncode != 0: return "SyntaxError"
    try:
        o = subprocess.run([basename], capture_output=True, timeout=5 * scale)
        status = "OK" if o.returncode == 0 else "Exception"
    except subprocess.TimeoutExpired:
        status = "Timeout"
    os.remove(basename)
    return status

def eval_java(path):
    env = os.environ.copy(); env["CLASSPATH"] = javatuples
    with tempfile.TemporaryDirectory() as outdir:
        r = safe_run(["javac", "-encoding", "UTF8", "-d", outdir, str(path)], env=env)
        if r.exit_code != 0: return "SyntaxError"
        r = safe_run(["java", "-ea", "-cp", f"{outdir}:{javatuples}", "Problem"], env=env)
        return "Timeout" if r.timeout else "OK" if r.exit_code == 0 else "Exception"

def eval_cpp(path):
    basename = ".".join(str(path).split(".")[:-1])
    b = safe_run(["g++", str(path), "-o", basename, "-std=c++17"])
    if b.exit_code != 0: return "SyntaxError"
    r = safe_run([basename])
    return "Timeout" if r.timeout else "Exception" if r.exit_code != 0 else "OK"

def eval_lua(path):
    r = safe_run(["lua", str(path)])
    return "Timeout" if r.timeout else "OK" if r.exit_code == 0 else "Exception"

def eval_ruby(path):
    try:
        r = subprocess.run(["ruby", str(path)], capture_output=True, timeout=5 * scale)
    except subprocess.TimeoutExpired:
        return "Timeout"
    return "OK" if r.returncode == 0 else "SyntaxError" if b"syntax error" in r.stderr else "Exception"

def eval_php(path):
    r = safe_run(["php", str(path)])
    return "SyntaxError" if "PHP Parse error" in r.stdout else "Exception" if r.exit_code != 0 else "OK"

def eval_pl(path):
    r = safe_run(["perl", str(path)])
    return "Timeout" if r.timeout else "Exception" if r.exit_code != 0 or "ERROR" in r.stdout or "ERROR" in r.stderr else "OK"

def eval_sh(path):
    r = safe_run(["bash", str(path)])
    return "Timeout" if r.timeout else "OK" if r.exit_code == 0 else "SyntaxError" if "syntax error" in r.stderr else "Exception"
def eval_r(path):
    r = safe_run(["Rscript", str(path)])
    return "Timeout" if r.timeout else "OK" if r.exit_code == 0 else "Exception"
def eval_racket(path):
    r = safe_run(["racket", str(path)])
    return ("SyntaxError" if "read-syntax" in r.stderr else "Exception") if len(r.stderr) > 0 or r.exit_code != 0 else "OK"
def eval_d(path):
    # rdmd is dmd's; LDC's ldc2 compiles (Debian has no dmd), then the binary runs, as the toolchain does.
    binary = str(path)[:-2]
    b = safe_run(["ldc2", "-unittest", str(path), "-of=" + binary], timeout_seconds=15)
    if b.exit_code != 0: return "SyntaxError" if "Error:" in b.stderr else "Exception"
    r = safe_run([binary], timeout_seconds=15)
    os.remove(binary)
    return "Timeout" if r.timeout else "OK" if r.exit_code == 0 else "Exception"

def eval_scala(path):
    # eval_scala: scalac -d D F (45 s), then scala -cp D Problem; OK only on exit 0 with an empty stderr.
    with tempfile.TemporaryDirectory() as outdir:
        b = safe_run(["scalac", "-d", outdir, str(path)], timeout_seconds=45)
        if b.exit_code != 0: return "SyntaxError"
        r = safe_run(["scala", "-cp", outdir, "Problem"])
        return "Timeout" if r.timeout else "OK" if r.exit_code == 0 and r.stderr == "" else "Exception"
def eval_cs(path):
    # eval_cs: csc /d:DEBUG -r:System.Numerics.dll F /out:B.exe (Debian's Mono has mcs, same options), then mono B.exe
    # with MONO_TRACE_LISTENER=Console.Error (5 s); a failed Debug.Assert or an unhandled exception in stderr is an Exception.
    binary = ".".join(str(path).split(".")[:-1]) + ".exe"
    b = subprocess.run(["mcs", "/d:DEBUG", "-r:System.Numerics.dll", str(path), f"/out:{binary}"], capture_output=True)
    if b.returncode != 0: return "SyntaxError"
    try:
        o = subprocess.run(["mono", binary], env={"PATH": os.getenv("PATH"), "MONO_TRACE_LISTENER": "Console.Error"}, capture_output=True, timeout=5 * scale)
        err = str(o.stderr, "utf-8")
        status = "Exception" if "System.Diagnostics.DefaultTraceListener.Fail" in err or "Unhandled Exception" in err else "OK"
    except subprocess.TimeoutExpired:
        status = "Timeout"
    os.remove(binary)
    return status

EVALUATORS = {"js": (eval_js, ".js"), "ts": (eval_ts, ".ts"), "go_test.go": (eval_go, "_test.go"), "rs": (eval_rust, ".rs"), "java": (eval_java, ".java"), "cpp": (eval_cpp, ".cpp"),
              "lua": (eval_lua, ".lua"), "rb": (eval_ruby, ".rb"), "php": (eval_php, ".php"), "pl": (eval_pl, ".pl"), "sh": (eval_sh, ".sh"), "r": (eval_r, ".r"), "rkt": (eval_racket, ".rkt"), "d": (eval_d, ".d"),
              "scala": (eval_scala, ".scala"), "cs": (eval_cs, ".cs")}
evaluate, ext = EVALUATORS[language]

def eval_string_script(program):
    with tempfile.NamedTemporaryFile(suffix=ext, delete=True) as f:
        f.write(program.encode("utf-8")); f.flush()
        return evaluate(Path(f.name))

def cpu():
    t = os.times(); return t.user + t.system + t.children_user + t.children_system
start, cpu_start = time.perf_counter(), cpu()
with ThreadPoolExecutor(max_workers=workers) as executor:
    statuses = list(executor.map(eval_string_script, programs))
print(json.dumps({"seconds": time.perf_counter() - start, "cpuSeconds": cpu() - cpu_start, "statuses": statuses}))
`;

interface SideResult {
  seconds: number;
  statuses: string[];
}

function realPython(): string {
  return execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
}

/** MultiPL-E's way; `wallSeconds`: its Python process from spawn to exit (the whole command). */
function runPeer(language: ProcessLanguageId, programs: string[], workers = opts.workers): SideResult & { wallSeconds: number } {
  const spec = {
    language,
    programs,
    workers,
    timeoutScale: opts.peerTimeoutScale,
    tsc: join(ROOT, 'node_modules/.bin/tsc'),
    javatuples: join(TOOLS, 'javatuples-1.2.jar'),
  };
  // Its working directory is an empty one, as in MultiPL-E's container: run from the repository,
  // tsc would pick up the repository's node_modules/@types and fail every program.
  const cwd = execFileSync('mktemp', ['-d'], { encoding: 'utf8' }).trim();
  const specFile = join(cwd, 'spec.json');
  execFileSync('sh', ['-c', `cat > ${specFile}`], { input: JSON.stringify(spec) });
  // A plain environment, as in MultiPL-E's container: the machine's own may carry variables that
  // slow every start (NODE_EXTRA_CA_CERTS makes each node parse a CA bundle: ~110 ms here) and
  // that our sandboxes never pass on; HOME keeps the go command's build cache where it is warm.
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/root',
    LANG: 'C.UTF-8',
    PYTHONDONTWRITEBYTECODE: '1',
  };
  const python = realPython();
  const spawned = performance.now();
  const out = execFileSync(python, ['-c', PEER_DRIVER, specFile], { encoding: 'utf8', maxBuffer: 64 << 20, env, cwd });
  const wallSeconds = (performance.now() - spawned) / 1000;
  rmSync(cwd, { recursive: true, force: true });
  const parsed = z.object({ seconds: z.number(), statuses: z.array(z.string()) }).parse(JSON.parse(out.trim().split('\n').pop()!));
  return { ...parsed, wallSeconds };
}

/**
 * scripts/evaluate.ts as a user runs it: a fresh `node bin/evaluate.mjs` on a MultiPL-E rows file and
 * its samples, with evaluate's own defaults (workers, --timeout), timed from spawn to exit.
 * `firstProgramSeconds`: when it sent its first program, by its own --verbose clock (since its
 * process started).
 */
function runWholeCommand(language: ProcessLanguageId, n: number): SideResult & { firstProgramSeconds: number } {
  const dir = mkdtempSync(join(tmpdir(), 'bench-whole-'));
  try {
    const own = rowsFor(language, n).map((r, i) => ({ ...r, name: r.name.replace(/^HumanEval_\d+_/, `HumanEval_${i}_`) }));
    const problems = join(dir, 'problems.jsonl');
    const samples = join(dir, 'samples.jsonl');
    writeFileSync(problems, own.map(({ completion: _, ...row }) => JSON.stringify(row) + '\n').join(''));
    writeFileSync(samples, own.map((r) => JSON.stringify({ task_id: r.name, completion: r.completion }) + '\n').join(''));
    // The peer's plain environment, plus where the project's tools are (a worktree's .tools is a link).
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', LANG: 'C.UTF-8' };
    for (const [key, value] of Object.entries(process.env)) if (key.startsWith('EXPLORA_') && value !== undefined) env[key] = value;
    const spawned = performance.now();
    const run = spawnSync(
      process.execPath,
      [
        join(ROOT, 'bin/evaluate.mjs'),
        ...['--problems', problems, '--samples', samples, '--k', '1', '--verbose'],
        ...(opts.forkServer === false ? ['--no-fork-server'] : []),
        // The steady state's mode: without it the whole command of a --share-process run timed a process a program.
        ...(opts.shareProcess ? ['--share-process'] : []),
      ],
      { encoding: 'utf8', env, cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 << 20 },
    );
    const seconds = (performance.now() - spawned) / 1000;
    const stderr = run.stderr;
    if (run.status !== 0) throw new Error(`${language}: evaluate.ts exited ${run.status ?? run.signal}:\n${stderr}`);
    const first = /first program sent at (\d+) ms/.exec(stderr);
    if (!first) throw new Error(`${language}: evaluate.ts printed no start-up line:\n${stderr}`);
    const results = readFileSync(`${samples}_results.jsonl`, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => z.object({ passed: z.boolean(), result: z.string() }).parse(JSON.parse(l)));
    return { seconds, statuses: results.map((r) => (r.passed ? 'OK' : r.result)), firstProgramSeconds: Number(first[1]) / 1000 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The floor of one Node process per program: `node F` started straight from here, `workers` at a
 * time, with the peer's plain environment, nothing around it.
 */
async function runBareNode(programs: string[]): Promise<SideResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-floor-'));
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', LANG: 'C.UTF-8' };
  const files = programs.map((p, i) => {
    const f = join(dir, `p${i}.js`);
    writeFileSync(f, p);
    return f;
  });
  const statuses: string[] = new Array(files.length);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: opts.workers }, async () => {
      for (let i = next++; i < files.length; i = next++) {
        statuses[i] = await new Promise<string>((done) =>
          execFile('node', [files[i]!], { env, cwd: dir }, (err) => done(err ? 'Exception' : 'OK')),
        );
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  rmSync(dir, { recursive: true, force: true });
  return { seconds, statuses };
}

/** Programs through explora's process runner (ProcessExecutor) with one toolchain module. */
async function runOurs(
  toolchain: Toolchain,
  programs: string[],
  warmups: string[],
): Promise<SideResult & { compileMs: number; runMs: number; shared: number; forked: number }> {
  const executor = new ProcessExecutor(toolchain, {
    concurrency: opts.workers,
    limits: { timeoutMs: 15_000 },
    ...(opts.batchSize ? { batchSize: opts.batchSize } : {}),
    ...(opts.shareProcess ? { shareProcess: true } : {}),
    forkServer: opts.forkServer !== false,
  });
  try {
    await executor.start();
    // Warm-up outside the clock, as a worker is warm before most of its samples (distinct texts).
    await executor.runMany(warmups.map((program, i) => ({ id: `warmup-${i}`, program })));
    const started = performance.now();
    const requests = programs.map((program, i) => ({ id: String(i), program }));
    const inFlight = opts.inFlight === 'shard' ? executor.inFlightCapacity : opts.inFlight;
    const results = inFlight ? await mapLimit(requests, inFlight, (r) => executor.run(r)) : await executor.runMany(requests);
    const seconds = (performance.now() - started) / 1000;
    for (const r of results) if (r.status !== 'passed' && process.env.BENCH_DEBUG) console.error(r);
    return {
      seconds,
      statuses: results.map((r) => (r.status === 'passed' ? 'OK' : r.status)),
      compileMs: results.reduce((sum, r) => sum + (r.compileMs ?? 0), 0),
      runMs: results.reduce((sum, r) => sum + r.durationMs, 0),
      shared: results.filter((r) => r.sharedProcess).length,
      forked: results.filter((r) => r.forked).length,
    };
  } finally {
    await executor.close();
  }
}

/** What each language's lever is, where it has one (its fixtures' bench.lever). */
const LEVERS = (language: ProcessLanguageId): string | undefined => processFixturesOf(language).bench.lever;

/** Untimed programs first (distinct from the timed ones): a worker's compilers are warm before most samples. */
const WARMUPS = 8;

const okCount = (s: string[]): number => s.filter((x) => x === 'OK').length;
const rate = (n: number, seconds: number): string => (n / seconds).toFixed(2);

console.log(
  `# bench-multiple: ${opts.programs} programs per language and side, ${opts.workers} workers, ${cpus().length} cores, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, ${new Date().toISOString()}`,
);
const table: string[] = [
  '| language | round | MultiPL-E (programs/s) | ours (programs/s) | ratio | ours: compile + run ms per program | lever off (programs/s) | floor: bare process per program (programs/s) |',
  '| --- | --- | --- | --- | --- | --- | --- | --- |',
];
/** evaluate.ts's own default, which MultiPL-E's side gets too for the whole-command figure. */
const wholeCommandWorkers = defaultSandboxConcurrency();
const wholeTable: string[] = [
  '| language | round | MultiPL-E whole command (s) | ours: evaluate.ts whole command (s) | ratio | ours: first program sent at (s) |',
  '| --- | --- | --- | --- | --- | --- |',
];
for (const language of opts.languages) {
  const programs = programsFor(language, opts.programs);
  let peerSeconds = 0;
  let ourSeconds = 0;
  for (let round = 1; round <= opts.rounds; round++) {
    const peer = opts.skipPeer ? undefined : runPeer(language, programs);
    const warmups = programsFor(language, opts.programs + WARMUPS).slice(opts.programs);
    const ours = await runOurs(toolchainFor(language), programs, warmups);
    const lever = opts.levers ? LEVERS(language) : undefined;
    const off = lever ? await runOurs(plainToolchainFor(language), programs, warmups) : undefined;
    const floor = opts.floor && language === 'js' ? await runBareNode(programs) : undefined;
    if (floor && okCount(floor.statuses) !== programs.length)
      throw new Error(`js: bare node passed ${okCount(floor.statuses)}/${programs.length}`);
    if (peer && okCount(peer.statuses) !== programs.length)
      throw new Error(
        `${language}: MultiPL-E's way passed ${okCount(peer.statuses)}/${programs.length}: ${[...new Set(peer.statuses)].join(', ')}`,
      );
    if (okCount(ours.statuses) !== programs.length)
      throw new Error(`${language}: ours passed ${okCount(ours.statuses)}/${programs.length}: ${[...new Set(ours.statuses)].join(', ')}`);
    if (off && okCount(off.statuses) !== programs.length)
      throw new Error(`${language}: lever off passed ${okCount(off.statuses)}/${programs.length}`);
    peerSeconds += peer?.seconds ?? 0;
    ourSeconds += ours.seconds;
    const ratio = peer ? `${(peer.seconds / ours.seconds).toFixed(1)}x` : '-';
    const line = `| ${language} | ${round} | ${peer ? rate(programs.length, peer.seconds) : '-'} | ${rate(programs.length, ours.seconds)}${ours.shared ? ` (${ours.shared} in shared processes)` : ''}${ours.forked ? ` (${ours.forked} forked)` : ''} | ${ratio} | ${(ours.compileMs / programs.length).toFixed(0)} + ${(ours.runMs / programs.length).toFixed(0)} | ${off ? `${rate(programs.length, off.seconds)} (${lever})` : '-'} | ${floor ? `${rate(programs.length, floor.seconds)}${peer ? ` (MultiPL-E at ${(floor.seconds / peer.seconds).toFixed(2)}x of it)` : ''}` : '-'} |`;
    table.push(line);
    console.log(line);
  }
  if (opts.rounds > 1 && !opts.skipPeer)
    table.push(
      `| ${language} | all | ${rate(programs.length * opts.rounds, peerSeconds)} | ${rate(programs.length * opts.rounds, ourSeconds)} | **${(peerSeconds / ourSeconds).toFixed(1)}x** | | | |`,
    );
  if (opts.skipWholeCommand) continue;
  for (let round = 1; round <= opts.rounds; round++) {
    const ours = runWholeCommand(language, opts.programs);
    if (okCount(ours.statuses) !== programs.length)
      throw new Error(
        `${language}: evaluate.ts passed ${okCount(ours.statuses)}/${programs.length}: ${[...new Set(ours.statuses)].join(', ')}`,
      );
    const peer = opts.skipPeer ? undefined : runPeer(language, programs, wholeCommandWorkers);
    if (peer && okCount(peer.statuses) !== programs.length)
      throw new Error(`${language}: MultiPL-E's way (whole command) passed ${okCount(peer.statuses)}/${programs.length}`);
    const line = `| ${language} | ${round} | ${peer ? peer.wallSeconds.toFixed(2) : '-'} | ${ours.seconds.toFixed(2)} | ${peer ? `${(peer.wallSeconds / ours.seconds).toFixed(2)}x` : '-'} | ${ours.firstProgramSeconds.toFixed(2)} |`;
    wholeTable.push(line);
    console.log(`whole command: ${line}`);
  }
}
console.log('\nSteady state (runner started and warm, clock around the programs only):\n' + table.join('\n'));
if (!opts.skipWholeCommand)
  console.log(
    `\nWhole command (a fresh process from spawn to exit, nothing warmed; ${wholeCommandWorkers} workers on both sides, evaluate.ts's default):\n` +
      wholeTable.join('\n'),
  );
