/**
 * Go (`go_test.go`) without the go command: what `go test -c FILE` does for one file, done by Go's
 * own tools directly, with everything the go command recomputes per program (loading and hashing
 * the standard library, its build cache look-ups, the vet facts of the imports) computed once per
 * set of imports and kept. The warm Go toolchain (warmToolchains.ts) uses it as its compile step.
 *
 * Per program, in the build step's sandbox, the steps `go test -x` shows, with the same tools and
 * flags (directPlan):
 *   compile  the test file as package `command-line-arguments_test` (or `command-line-arguments`);
 *   vet      the analyzers `go test` runs (-atomic -bool -buildtags -directive -errorsas
 *            -ifaceassert -nilfunc -printf -slog -stringintconv -tests), with the imports' facts:
 *            a vet finding fails the build exactly as it does under `go test` ([build failed]);
 *   testmain the generated main (testing.MainStart over the file's TestXxx functions);
 *   link     `-s -w -buildmode=exe -X testing.testBinary=1`, as go test links, with GOGC=off
 *            for the linker (it exits before its garbage would matter).
 * The test binary then runs with the plain Go toolchain's run step (process/toolchains/go.ts). A
 * compile, vet or link failure is `compile_error` (MultiPL-E: "[build failed]"). A file this route
 * does not cover exactly (a TestMain, examples, benchmarks, fuzz targets, an import outside the
 * standard library, or a package clause it cannot read) takes the plain `go test -c` step.
 *
 * Batches (batchPlan, for the process runner's compileBatch: infra/sandbox/warm/warmToolchains.ts):
 * the same compile and vet per program, each as a package of its own, then one test main whose
 * first argument picks the package, and one link; packages whose presence would change another
 * program's run (init work, big data, unsafe) are built alone (packageFits).
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { WARM_TOOLS_DIR } from '../process/toolchains/common.js';
import { keep, readKept } from '../process/toolchains/keptBetweenRuns.js';

const VET_FLAGS = [
  '-atomic',
  '-bool',
  '-buildtags',
  '-directive',
  '-errorsas',
  '-ifaceassert',
  '-nilfunc',
  '-printf',
  '-slog',
  '-stringintconv',
  '-tests',
];
const TESTMAIN_IMPORTS = ['os', 'testing', 'testing/internal/testdeps'];
const NM_BINARY = 'explora-nm';

/** One program as a package (packagePlan). */
interface PackagePlan {
  pkgPath: string;
  packageName: string;
  imports: string[];
  tests: string[];
  /** import path -> export data (host path), its closure with the test main's. */
  exports: Map<string, string>;
  /** Its files, relative to its directory. */
  files: Record<string, string>;
  compile: string;
  vet: string;
}

/**
 * A batch of programs (batchPlan): first `script` compiles and vets each program the batch takes
 * (`programs[i]` defined) in its own directory, writing `<dir>/status` (0: built and vetted) and
 * `<dir>/log`, then lists every built package's symbols (`nm.out`, read by `packageFits`); then
 * `link(members)` gives the files and script of one test main over the members (indices of
 * `programs`) and one link, into `program.test`, whose first argument is the member's position
 * in `members`.
 */
export interface BatchPlan {
  programs: ({ dir: string; pkgPath: string; tests: string[] } | undefined)[];
  files: Record<string, string>;
  script: string;
  link(members: readonly number[]): { files: Record<string, string>; script: string };
}

/** A package's own data beyond which it is built alone (its data would weigh on the others' runs). */
export const BATCH_MAX_PACKAGE_DATA = 64 << 10;

/**
 * Whether a package can share a test binary with others without changing what they see: no
 * initialisation work (its `..inittask` lists no function: no init(), no variable initialised by
 * code; a run of another program's tests would run it) and little data (`BATCH_MAX_PACKAGE_DATA`
 * of data and bss, mapped by every run of the binary). `nm` is the `nm -size -type` listing of
 * the batch's archives, `archive` this package's path in it.
 */
export function packageFits(nm: string, archive: string, pkgPath: string): boolean {
  let inittask: number | undefined;
  let data = 0;
  for (const line of nm.split('\n')) {
    // `archive:\t addr size type name`; without the archive when nm listed one file only.
    const m = /^(?:(\S+):\t)?\s*[0-9a-f]*\s+(\d+) ([A-Za-z?]) (.+)$/.exec(line);
    if (!m || (m[1] !== undefined && m[1] !== archive) || m[3] === 'U') continue;
    const size = Number(m[2]);
    if (m[4] === `${pkgPath}..inittask`) inittask = size;
    if ('DBdb'.includes(m[3]!) && m[4]!.startsWith(`${pkgPath}.`)) data += size;
  }
  // An inittask of 8 bytes is its header alone (state and a count of zero functions).
  return inittask !== undefined && inittask <= 8 && data <= BATCH_MAX_PACKAGE_DATA;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The generated test main (testing.MainStart over each package's TestXxx functions, as `go
 * test`'s own). With `select`, the first argument says which package's tests run (its position
 * in `units`), and is removed, so that the tests see the arguments a lone test binary gets.
 */
function testMain(units: readonly { alias: string; pkgPath: string; tests: string[] }[], select: boolean): string {
  const imports = units.map((u) => `\t${u.alias} ${JSON.stringify(u.pkgPath)}\n`).join('');
  const table = (u: { alias: string; tests: string[] }): string => u.tests.map((t) => `{${JSON.stringify(t)}, ${u.alias}.${t}}`).join(', ');
  if (!select) {
    const u = units[0]!;
    return `package main\n\nimport (\n\t"os"\n\t"testing"\n\t"testing/internal/testdeps"\n\n${imports})\n\nvar tests = []testing.InternalTest{\n${u.tests.map((t) => `\t{${JSON.stringify(t)}, ${u.alias}.${t}},\n`).join('')}}\n\nfunc main() {\n\tm := testing.MainStart(testdeps.TestDeps{}, tests, nil, nil, nil)\n\tos.Exit(m.Run())\n}\n`;
  }
  return `package main

import (
\t"os"
\t"testing"
\t"testing/internal/testdeps"

${imports})

var tests = [][]testing.InternalTest{
${units.map((u) => `\t{${table(u)}},\n`).join('')}}

func main() {
\twhich := -1
\tif len(os.Args) > 1 && len(os.Args[1]) > 0 && len(os.Args[1]) < 6 {
\t\twhich = 0
\t\tfor _, c := range os.Args[1] {
\t\t\tif c < '0' || c > '9' {
\t\t\t\twhich = -1
\t\t\t\tbreak
\t\t\t}
\t\t\twhich = which*10 + int(c-'0')
\t\t}
\t}
\tif which < 0 || which >= len(tests) {
\t\tos.Stderr.WriteString("explora batch test main: the first argument must name a program of the batch\\n")
\t\tos.Exit(3)
\t}
\tos.Args = append(os.Args[:1], os.Args[2:]...)
\tm := testing.MainStart(testdeps.TestDeps{}, tests[which], nil, nil, nil)
\tos.Exit(m.Run())
}
`;
}

interface GoEnv {
  goroot: string;
  tooldir: string;
  version: string;
  lang: string;
}

/** The std files one set of imports needs, copied out of the host's build cache into our own directory. */
interface ImportSet {
  /** import path -> export data file (sandbox path), transitive closure incl. the test main's. */
  exports: Map<string, string>;
  /** direct import -> vet facts file (sandbox path). */
  vetx: Map<string, string>;
}

/**
 * `file` as an earlier run left it, else made by `make` at a temporary name and renamed into place
 * (runs that race each rename a whole file); false when it can be neither (a read-only .tools).
 */
function reused(file: string, make: (tmp: string) => void): boolean {
  if (existsSync(file)) return true;
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    make(tmp);
    renameSync(tmp, file);
    return true;
  } catch {
    rmSync(tmp, { force: true });
    return false;
  }
}

/** Copies `from` to `to` under a temporary name, renamed into place with its mode set (a concurrent run sees the whole file or none). */
function copyInto(from: string, to: string, mode: number): void {
  const tmp = `${to}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    copyFileSync(from, tmp);
    chmodSync(tmp, mode);
    renameSync(tmp, to);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}

function goOutput(args: string[], cwd?: string): string {
  return execFileSync('go', args, {
    encoding: 'utf8',
    cwd,
    env: { ...process.env, GOFLAGS: '', GO111MODULE: 'auto' },
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 << 20,
  });
}

/** `import "x"` and `import ( "x"; y "z" )`, as written in a test file. */
export function goImports(source: string): string[] | undefined {
  const imports: string[] = [];
  const block = /^import\s*\(([\s\S]*?)\)/gm;
  const single = /^import\s+(?:[\w.]+\s+)?"([^"]+)"/gm;
  for (const m of source.matchAll(block)) {
    for (const line of m[1]!.split(/[\n;]/)) {
      const t = line.replace(/\/\/.*$/, '').trim();
      if (!t) continue;
      const spec = /^(?:[\w.]+\s+)?"([^"]+)"$/.exec(t);
      if (!spec) return undefined;
      imports.push(spec[1]!);
    }
  }
  for (const m of source.matchAll(single)) imports.push(m[1]!);
  return [...new Set(imports)].sort();
}

export function goTestNames(source: string): { tests: string[]; special: boolean } {
  const tests = [...source.matchAll(/^func\s+(Test\w*)\s*\(\s*\w+\s+\*testing\.T\s*\)/gm)]
    .map((m) => m[1]!)
    .filter((name) => name === 'Test' || !/^[a-z]/.test(name.slice(4)));
  const special = /^func\s+(TestMain|Example\w*|Benchmark\w*|Fuzz\w*)\s*\(/m.test(source);
  return { tests, special };
}

/** A command of the go tool's, as importSetSteps asks for it (run by runSync or runAsync). */
interface GoCommand {
  file: string;
  args: string[];
  cwd?: string;
  env: NodeJS.ProcessEnv;
}

const GO_OUTPUT_OPTIONS = { encoding: 'utf8' as const, maxBuffer: 64 << 20 };

function goCommand(args: string[], cwd?: string): GoCommand {
  return { file: 'go', args, ...(cwd ? { cwd } : {}), env: { ...process.env, GOFLAGS: '', GO111MODULE: 'auto' } };
}

/** Drives a generator of go commands synchronously (a program's compile step asks for its imports' set there and then). */
function runSync<T>(steps: Generator<GoCommand, T, string>): T {
  let next = steps.next();
  while (!next.done) {
    const { file, args, cwd, env } = next.value;
    let output: string;
    try {
      output = execFileSync(file, args, { ...GO_OUTPUT_OPTIONS, stdio: ['ignore', 'pipe', 'pipe'], cwd, env });
    } catch (error) {
      steps.return(undefined as never); // its finally blocks (temporary directories) run
      throw error;
    }
    next = steps.next(output);
  }
  return next.value;
}

/** The same, without blocking Node's event loop (the runner's start: other work goes on meanwhile). */
async function runAsync<T>(steps: Generator<GoCommand, T, string>): Promise<T> {
  let next = steps.next();
  while (!next.done) {
    const { file, args, cwd, env } = next.value;
    let output: string;
    try {
      output = (await promisify(execFile)(file, args, { ...GO_OUTPUT_OPTIONS, cwd, env })).stdout;
    } catch (error) {
      steps.return(undefined as never);
      throw error;
    }
    next = steps.next(output);
  }
  return next.value;
}

/** What is kept of an import set between runs: the file names (in the std copy) of its export data and vet facts. */
const KeptImportSet = z.object({ exports: z.record(z.string(), z.string()), vetx: z.record(z.string(), z.string()) });

/**
 * The direct route: its std copy and import sets are made by start(). The std copy is kept between
 * runs under the tools directory (its files are Go's build cache entries, named by their content,
 * each copied in under a temporary name and renamed), with a record per import set; where the
 * tools directory cannot be written, a temporary copy is made for this run and removed by close().
 */
export class GoDirectRoute {
  private env!: GoEnv;
  private std = new Set<string>();
  private readonly sets = new Map<string, ImportSet>();
  /** Our copy of the std export data and vet facts, mounted read-only in the build sandboxes; made by start(). */
  private cache = '';
  private cacheIsTemporary = false;
  /** Where this Go installation's kept files are (start()). */
  private prepared = '';

  /** `keptDir`: where what depends on the Go installation alone is kept (tests give their own). */
  constructor(private readonly keptDir: string = join(WARM_TOOLS_DIR, 'go-direct')) {}

  async start(): Promise<void> {
    const { stdout: goEnvOut } = await promisify(execFile)('go', ['env', 'GOROOT', 'GOTOOLDIR', 'GOVERSION'], {
      ...GO_OUTPUT_OPTIONS,
      env: goCommand([]).env,
    });
    const [goroot, tooldir, version] = goEnvOut.trim().split('\n');
    this.env = { goroot: goroot!, tooldir: tooldir!, version: version!, lang: /^go\d+\.\d+/.exec(version!)![0] };
    // What depends on this Go installation alone is kept between runs (start-up: docs/benchmarks.md).
    const prepared = join(this.keptDir, createHash('sha256').update(`${goroot}\n${tooldir}\n${version}`).digest('hex').slice(0, 16));
    this.prepared = prepared;
    const stdList = join(prepared, 'std.txt');
    const std = reused(stdList, (tmp) => writeFileSync(tmp, goOutput(['list', 'std'])))
      ? readFileSync(stdList, 'utf8')
      : goOutput(['list', 'std']);
    this.std = new Set(std.trim().split('\n'));
    if (!this.cache) {
      const kept = join(prepared, 'std-copy');
      try {
        mkdirSync(kept, { recursive: true, mode: 0o755 });
        accessSync(kept, constants.W_OK);
        this.cache = kept;
      } catch {
        this.cache = mkdtempSync(join(tmpdir(), 'explora-gostd-'));
        this.cacheIsTemporary = true;
      }
    }
    chmodSync(this.cache, 0o755); // read by every slot's uid
    const first = ['fmt', 'testing'];
    if (!this.keptImportSet(first)) this.sets.set(first.join(','), this.recordImportSet(first, await runAsync(this.importSetSteps(first))));
    // `go tool nm` is built on demand by the go command (not shipped since Go 1.24), which a
    // sandbox cannot do: the batches' check of their packages uses our own build of it.
    const nm = join(this.cache, NM_BINARY);
    if (!existsSync(nm)) {
      const kept = join(prepared, NM_BINARY);
      try {
        if (reused(kept, (tmp) => goOutput(['build', '-o', tmp, 'cmd/nm'], this.cache))) copyInto(kept, nm, 0o755);
        else goOutput(['build', '-o', nm, 'cmd/nm'], this.cache);
      } catch (error) {
        process.emitWarning(`Go batches are off (each program builds alone): go build cmd/nm failed: ${String(error)}`);
      }
    }
  }

  /** `host` (a file of Go's build cache) in our std copy, under its own name (Go names them by content). */
  private copyIn(host: string): string {
    const target = join(this.cache, basename(host));
    if (!existsSync(target)) copyInto(host, target, 0o644);
    return target;
  }

  /** The set an earlier run kept, when every file it names is still in the std copy. */
  private keptImportSet(imports: string[]): ImportSet | undefined {
    const key = imports.join(',');
    const known = this.sets.get(key);
    if (known) return known;
    if (this.cacheIsTemporary) return undefined;
    const kept = readKept(join(this.prepared, 'import-sets'), { importSet: 1, imports }, KeptImportSet);
    if (!kept) return undefined;
    const inCopy = (names: Record<string, string>): Map<string, string> | undefined => {
      const files = new Map(Object.entries(names).map(([path, name]) => [path, join(this.cache, basename(name))] as const));
      return [...files.values()].every((f) => existsSync(f)) ? files : undefined;
    };
    const exports = inCopy(kept.exports);
    const vetx = inCopy(kept.vetx);
    if (!exports || !vetx) return undefined;
    const set = { exports, vetx };
    this.sets.set(key, set);
    return set;
  }

  /** Copies a set's files (host paths in Go's build cache) into the std copy, and keeps the set's record. */
  private recordImportSet(imports: string[], found: { exports: Map<string, string>; vetx: Map<string, string> }): ImportSet {
    const exports = new Map([...found.exports].map(([path, file]) => [path, this.copyIn(file)] as const));
    const vetx = new Map([...found.vetx].map(([path, file]) => [path, this.copyIn(file)] as const));
    if (!this.cacheIsTemporary) {
      const names = (files: Map<string, string>) => Object.fromEntries([...files].map(([path, file]) => [path, basename(file)]));
      keep(join(this.prepared, 'import-sets'), { importSet: 1, imports }, { exports: names(exports), vetx: names(vetx) });
    }
    return { exports, vetx };
  }

  /** Export data and vet facts for a set of imports: kept, or from the host's go command (once per set). */
  private importSet(imports: string[]): ImportSet {
    const kept = this.keptImportSet(imports);
    if (kept) return kept;
    const set = this.recordImportSet(imports, runSync(this.importSetSteps(imports)));
    this.sets.set(imports.join(','), set);
    return set;
  }

  /** The go commands that find a set's files in Go's build cache (host paths), as a generator of commands (runSync, runAsync). */
  private *importSetSteps(imports: string[]): Generator<GoCommand, { exports: Map<string, string>; vetx: Map<string, string> }, string> {
    const exports = new Map<string, string>();
    const listed: string = yield goCommand([
      'list',
      '-export',
      '-f',
      '{{.ImportPath}}={{.Export}}',
      '-deps',
      ...new Set([...imports, ...TESTMAIN_IMPORTS, 'runtime']),
    ]);
    for (const line of listed.trim().split('\n')) {
      const [path, file] = line.split('=');
      if (path && file) exports.set(path, file);
    }
    // The vet facts of the direct imports: what `go vet` hands the analyzers of a file importing them.
    const stubDir = mkdtempSync(join(tmpdir(), 'explora-govet-'));
    const vetx = new Map<string, string>();
    try {
      const stub = `package stub_test\n\nimport (\n${imports.map((i) => `\t_ "${i}"`).join('\n')}\n)\n\n`;
      // -x prints each vet.cfg, with the facts files of the stub's imports (go vet exits 0 here). The
      // first run may name facts it has just computed in its own temporary directory, gone when it
      // exits; a second run names them in the build cache.
      for (let attempt = 0; attempt < 3 && vetx.size === 0; attempt++) {
        writeFileSync(join(stubDir, 'stub_test.go'), `${stub}// ${attempt} ${Date.now()} ${Math.random()}\n`);
        const log: string = yield {
          file: 'sh',
          args: ['-c', 'go vet -x ./stub_test.go 2>&1 || true'],
          cwd: stubDir,
          env: { ...process.env, GOFLAGS: '' },
        };
        const found = new Map<string, string>();
        for (const block of log.split(/vet\.cfg << 'EOF' # internal\n/).slice(1)) {
          const cfg = JSON.parse(block.slice(0, block.indexOf('\nEOF'))) as { ImportPath: string; PackageVetx?: Record<string, string> };
          if (cfg.ImportPath.endsWith('_test')) for (const [path, file] of Object.entries(cfg.PackageVetx ?? {})) found.set(path, file);
        }
        if ([...found.values()].every((file) => existsSync(file))) for (const [path, file] of found) vetx.set(path, file);
      }
      if (vetx.size === 0 && imports.length > 0) throw new Error(`go vet -x named no facts files for the imports ${imports.join(', ')}`);
    } finally {
      rmSync(stubDir, { recursive: true, force: true });
    }
    return { exports, vetx };
  }

  /**
   * The direct route's files and build script for one program, with the job directory at `jobPath`
   * and our std copy at `cachePath` inside the sandbox; undefined when the program needs the plain
   * `go test -c` step (see the header).
   */
  directPlan(program: string, jobPath: string, cachePath: string): { files: Record<string, string>; script: string } | undefined {
    const unit = this.packagePlan(program, jobPath, cachePath);
    if (!unit) return undefined;
    const j = jobPath;
    const main = testMain([{ alias: '_test', pkgPath: unit.pkgPath, tests: unit.tests }], false);
    const script = [
      `${unit.compile} || exit 101`,
      `${unit.vet} || exit 102`,
      `${this.compileMain(j)} || exit 103`,
      `${this.link(j)} || exit 104`,
    ].join('\n');
    const importcfg = unit.files.importcfg!;
    return {
      files: {
        ...unit.files,
        'importcfg.main': importcfg + `packagefile ${unit.pkgPath}=${j}/pkg.a\n`,
        'importcfg.link': importcfg + `packagefile ${unit.pkgPath}=${j}/pkg.a\npackagefile main=${j}/main.a\n`,
        'main.go': main,
      },
      script,
    };
  }

  /**
   * One program as a package of its own, in `jobPath` (its files there: program_test.go,
   * importcfg, vet.cfg): its compile and vet commands (the lone route's, with the lone route's
   * flags), compiled as `pkgPath` (default the lone route's, `command-line-arguments_test`) with
   * its source recorded as `recordedDir`/program_test.go (trimpath), so that its panics and test
   * failures name the file a lone build names. Undefined when the direct route does not cover it.
   */
  private packagePlan(
    program: string,
    jobPath: string,
    cachePath: string,
    options: { pkgPath?: string; recordedDir?: string } = {},
  ): PackagePlan | undefined {
    const imports = goImports(program);
    const names = goTestNames(program);
    const pkg = /^package\s+(\w+)/m.exec(program)?.[1];
    if (!imports || !pkg || names.special || names.tests.length === 0 || imports.some((i) => !this.std.has(i))) return undefined;
    const set = this.importSet(imports);
    const at = (host: string): string => cachePath + host.slice(this.cache.length);
    const pkgPath = options.pkgPath ?? (pkg.endsWith('_test') ? 'command-line-arguments_test' : 'command-line-arguments');
    const importcfg = [...set.exports].map(([p, f]) => `packagefile ${p}=${at(f)}`).join('\n') + '\n';
    const vetCfg = {
      ID: pkgPath,
      Compiler: 'gc',
      Dir: jobPath,
      ImportPath: pkgPath,
      GoFiles: [`${jobPath}/program_test.go`],
      NonGoFiles: [],
      IgnoredFiles: [],
      ModulePath: '',
      ModuleVersion: '',
      ImportMap: Object.fromEntries(imports.map((i) => [i, i])),
      PackageFile: Object.fromEntries(imports.flatMap((i) => (set.exports.has(i) ? [[i, at(set.exports.get(i)!)]] : []))),
      Standard: Object.fromEntries(imports.map((i) => [i, true])),
      PackageVetx: Object.fromEntries(imports.flatMap((i) => (set.vetx.has(i) ? [[i, at(set.vetx.get(i)!)]] : []))),
      VetxOnly: false,
      VetxOutput: `${jobPath}/vet.out`,
      Stdout: `${jobPath}/vet.stdout`,
      GoVersion: this.env.version,
      FixArchive: '',
      SucceedOnTypecheckFailure: false,
    };
    const t = this.env.tooldir;
    const j = jobPath;
    const trim = options.recordedDir && options.recordedDir !== jobPath ? ` -trimpath '${j}=>${options.recordedDir}'` : '';
    return {
      pkgPath,
      packageName: pkg,
      imports,
      tests: names.tests,
      exports: set.exports,
      files: { 'program_test.go': program, importcfg, 'vet.cfg': JSON.stringify(vetCfg) },
      compile: `${t}/compile -o ${j}/pkg.a${trim} -p ${pkgPath} -lang=${this.env.lang} -complete -c=1 -nolocalimports -importcfg ${j}/importcfg -pack ${j}/program_test.go`,
      vet: `TERM=dumb ${t}/vet ${VET_FLAGS.join(' ')} ${j}/vet.cfg`,
    };
  }

  private compileMain(j: string): string {
    return `${this.env.tooldir}/compile -o ${j}/main.a -p main -lang=${this.env.lang} -complete -c=1 -importcfg ${j}/importcfg.main -pack ${j}/main.go`;
  }

  private link(j: string): string {
    return `GOGC=off ${this.env.tooldir}/link -o ${j}/program.test -importcfg ${j}/importcfg.link -s -w -buildmode=exe -X testing.testBinary=1 ${j}/main.a`;
  }

  /** Whether batches can be built: the direct route is up and our `nm` (built by start()) is there. */
  get batches(): boolean {
    return Boolean(this.cache) && existsSync(join(this.cache, NM_BINARY));
  }

  /**
   * Several programs in one build directory at `jobPath` (see BatchPlan): each one the direct
   * route covers, in a package of its own (`p<i>/command-line-arguments_test`, its files in
   * `p<i>/`); undefined for the others, which are built alone. Only `package x_test` files with
   * no import of "unsafe" (no //go:linkname into another package's or the runtime's symbols) are
   * taken.
   */
  batchPlan(programs: readonly string[], jobPath: string, cachePath: string, timeoutS: number): BatchPlan {
    const units = programs.map((program, i) => {
      const dir = `p${i}`;
      const unit = this.packagePlan(program, `${jobPath}/${dir}`, cachePath, {
        pkgPath: `${dir}/command-line-arguments_test`,
        recordedDir: jobPath,
      });
      return unit && unit.packageName.endsWith('_test') && !unit.imports.includes('unsafe') ? { ...unit, dir } : undefined;
    });
    const files: Record<string, string> = {};
    const lines: string[] = [];
    for (const unit of units) {
      if (!unit) continue;
      for (const [name, text] of Object.entries(unit.files)) files[`${unit.dir}/${name}`] = text;
      // Each program's compile and vet within its own lone time limit; its status and diagnostics apart.
      const d = `${jobPath}/${unit.dir}`;
      lines.push(
        `timeout -s KILL ${timeoutS} /bin/sh -c ${shellQuote(`${unit.compile} && ${unit.vet}`)} > ${d}/log 2>&1; echo $? > ${d}/status`,
      );
    }
    // What each built package would do in another program's binary: its init work and its data.
    const dirs = units.flatMap((u) => (u ? [u.dir] : [])).join(' ');
    if (dirs)
      lines.push(
        `set --; for d in ${dirs}; do [ "$(cat ${jobPath}/$d/status)" = 0 ] && set -- "$@" ${jobPath}/$d/pkg.a; done`,
        `[ $# -eq 0 ] || ${cachePath}/${NM_BINARY} -size -type "$@" > ${jobPath}/nm.out 2> ${jobPath}/nm.err`,
      );
    return {
      programs: units.map((u) => (u ? { dir: u.dir, pkgPath: u.pkgPath, tests: u.tests } : undefined)),
      files,
      script: lines.join('\n') + '\n',
      link: (members) => {
        const j = jobPath;
        const exports = new Map<string, string>();
        for (const k of members) for (const [p, f] of units[k]!.exports) exports.set(p, f);
        const importcfg =
          [...exports].map(([p, f]) => `packagefile ${p}=${cachePath + f.slice(this.cache.length)}`).join('\n') +
          '\n' +
          members.map((k) => `packagefile ${units[k]!.pkgPath}=${j}/${units[k]!.dir}/pkg.a\n`).join('');
        return {
          files: {
            'importcfg.main': importcfg,
            'importcfg.link': importcfg + `packagefile main=${j}/main.a\n`,
            'main.go': testMain(
              members.map((k) => ({ alias: `_p${k}`, pkgPath: units[k]!.pkgPath, tests: units[k]!.tests })),
              true,
            ),
          },
          script: `${this.compileMain(j)} || exit 103\n${this.link(j)} || exit 104\n`,
        };
      },
    };
  }

  /** GOROOT, for the sandboxes that build. */
  get goroot(): string {
    return this.env.goroot;
  }

  /** Our copy of the std export data and vet facts (host path). */
  get stdCopy(): string {
    return this.cache;
  }

  async close(): Promise<void> {
    // A kept std copy stays for the next run; a temporary one goes.
    if (this.cache && this.cacheIsTemporary) rmSync(this.cache, { recursive: true, force: true });
    this.cache = '';
    this.cacheIsTemporary = false;
    this.sets.clear();
  }
}
