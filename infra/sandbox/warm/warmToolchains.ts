/**
 * The warm toolchains of MultiPL-E's compiled languages behind the process runner's Toolchain
 * interface (infra/sandbox/process/contract.ts; `toolchainFor` serves them): each wraps the
 * language's plain toolchain module and changes only its compile step (and what that step needs
 * mounted), so that checks, files, run steps and the classification of outcomes stay the plain
 * module's.
 *
 *   cpp         MultiPL-E: `g++ FILE -o BIN -std=c++17`. Ours: the same command plus `-include` of
 *               a precompiled header of the shared includes (<assert.h>, <bits/stdc++.h>, built
 *               once by scripts/install-warm-compilers.sh with the same g++ and flags), used only
 *               when the program starts with exactly those includes (MultiPL-E's prompts do) and
 *               the header is installed: the header is then the program's own first lines, parsed
 *               once instead of per program. Anything else takes the plain step.
 *   rs          MultiPL-E: `rustc FILE -o BIN` (edition 2015, opt-level 0, debug assertions and
 *               overflow checks on). Ours: the same plus RUST_FAST_FLAGS, `-C prefer-dynamic` (std
 *               linked as the toolchain's shared library, which the run step finds: the link
 *               shrinks from the whole static std to a few symbols) and `-C strip=debuginfo`;
 *               neither changes what the program computes or which checks it makes. Batches
 *               compile several programs per rustc call (rsBatch.ts), each run alone.
 *   go_test.go  Go's tools directly (go.ts's direct route: go test's own compile, vet and link
 *               steps), or the plain `go test -c` step for a file the direct route does not cover.
 *   java, ts    a ServedStep: the same compile in a warm server, in a jail of its own (jail.ts,
 *               lineServer.ts), which compiles the sample's build directory; the run step is the
 *               plain one. java: MultiPL-E's `javac -encoding UTF8 -d DIR FILE` (javatuples on the
 *               class path) through javax.tools in one JVM (java/JavacServer.java: the JVM start,
 *               javac's loading and warm-up are paid once). ts: MultiPL-E's `tsc --target esnext
 *               FILE` (a type error too is a SyntaxError, our compile_error) and its emit, in a warm
 *               Node process (ts/tscServer.cjs).
 *   scala       a ServedStep as java's: MultiPL-E's `scalac -d DIR FILE` in one JVM
 *               (scala/ScalacServer.scala: a fresh compiler per program, the JVM start, class loading and
 *               JIT warm-up paid once), its class path the jars the `scalac` script puts on its own.
 *               Until scripts/install-warm-compilers.sh has built the server, the plain step.
 *   cs          a ServedStep as java's: MultiPL-E's options (`-d:DEBUG -r:System.Numerics.dll`) through
 *               mcs's in-process entry point in one Mono process (cs/McsServer.cs: Mono's start and
 *               the compiler's loading and JIT paid once), a server per core (mcs compiles one program at a
 *               time), started with the runner; runs exec'd from the slot's warm sandbox (the
 *               runner's fork servers). Until built, the plain step.
 *   d           MultiPL-E: `rdmd -unittest -main FILE` (here, as the plain module, `ldc2 -unittest`
 *               then the binary). Ours: the plain steps, and batches that compile several programs
 *               per ldc2 call into one binary, each program run alone from a copy of it that runs
 *               only its own unittests (dBatch.ts).
 *   js          nothing to compile: the plain module, plus `runTogether` (jsSharedProcess.ts), used
 *               only when a runner is asked to share processes: several programs per Node
 *               process, each in a V8 context of its own.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, chownSync, constants, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExecutionLimits } from '../../../domain/execution/types.js';
import { BUILD_DIR, type BatchCompile, type BatchOutcome, type ServedStep, type StepResult, type Toolchain } from '../process/contract.js';
import { COMPILE_LIMITS as STEP_COMPILE_LIMITS, probeVersionSync, WARM_TOOLS_DIR } from '../process/toolchains/common.js';
import { binaryIdentity } from '../process/toolchains/keptBetweenRuns.js';
import { cppToolchain } from '../process/toolchains/cpp.js';
import { csToolchain } from '../process/toolchains/cs.js';
import { dToolchain } from '../process/toolchains/d.js';
import { goToolchain } from '../process/toolchains/go.js';
import { declaresPublicMain, JAVATUPLES_JAR, javaToolchain } from '../process/toolchains/java.js';
import { rsToolchain, rustSysroot } from '../process/toolchains/rs.js';
import { isRustTestHarness } from '../process/toolchains/octopack.js';
import { scalaInstallation, scalaToolchain } from '../process/toolchains/scala.js';
import { tsToolchain } from '../process/toolchains/ts.js';
import { GoDirectRoute, packageFits } from './go.js';
import { chownTree } from '../bwrapPolicy.js';
import { COMPILE_LIMITS, SERVER_UID } from './jail.js';
import { LineServer, ServerTimeout } from './lineServer.js';
import { rsCompileBatch } from './rsBatch.js';
import { dCompileBatch } from './dBatch.js';
import { jsRunTogether, SHARED_RUNNER_MOUNT } from './jsSharedProcess.js';
import { jsToolchain } from '../process/toolchains/js.js';
import { execForkServer } from '../process/forkServer.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const PCH_IN_SANDBOX = '/opt/explora-pch';
const GO_STD_IN_SANDBOX = '/opt/explora-gostd';

/** The first lines of MultiPL-E's C++ prompts: what the precompiled header holds. */
export const CPP_PCH_PREFIX = '#include<assert.h>\n#include<bits/stdc++.h>\n';

/** rustc's flags beside MultiPL-E's command (see the header). */
export const RUST_FAST_FLAGS = ['-C', 'prefer-dynamic', '-C', 'strip=debuginfo'];

export function warmJsToolchain(): Toolchain {
  const base = jsToolchain();
  return { ...base, mounts: () => [...base.mounts(), SHARED_RUNNER_MOUNT], runTogether: jsRunTogether };
}

export function warmCppToolchain(pchDir = join(WARM_TOOLS_DIR, 'cpp-pch')): Toolchain {
  const base = cppToolchain();
  const hasPch = (): boolean => existsSync(join(pchDir, 'multiple.h.gch'));
  return {
    ...base,
    mounts: () => [...base.mounts(), ...(hasPch() ? [{ host: pchDir, sandbox: PCH_IN_SANDBOX }] : [])],
    compile: (limits: ExecutionLimits, program: string) => {
      const step = base.compile(limits, program);
      if (!step || step.kind !== 'sandbox' || !hasPch() || !program.startsWith(CPP_PCH_PREFIX)) return step;
      return { ...step, argv: [...step.argv, '-include', `${PCH_IN_SANDBOX}/multiple.h`] };
    },
  };
}

export function warmRsToolchain(): Toolchain {
  const base = rsToolchain();
  let libDir: string | undefined;
  const stdLibInSandbox = (): string => {
    if (libDir) return libDir;
    const sysroot = rustSysroot();
    const hostLine = probeVersionSync('rustc', ['-vV'], 'rustc', 'install Rust', {}, { keepBetweenRuns: true, line: /^host: / });
    const host = (hostLine.ok && /^host: (\S+)$/.exec(hostLine.version)?.[1]) || 'x86_64-unknown-linux-gnu';
    // The plain module mounts a sysroot outside /usr at /opt/rust.
    libDir = `${sysroot.startsWith('/usr') ? sysroot : '/opt/rust'}/lib/rustlib/${host}/lib`;
    return libDir;
  };
  const compile = (limits: ExecutionLimits, program: string) => {
    const step = base.compile(limits, program);
    // A test-harness program (HumanEvalPack's) takes the plain steps: the two rustc calls of a shell.
    if (isRustTestHarness(program)) return step;
    return step && step.kind === 'sandbox' ? { ...step, argv: [...step.argv, ...RUST_FAST_FLAGS] } : step;
  };
  const run = (limits: ExecutionLimits) => {
    const step = base.run(limits);
    return { ...step, env: { ...step.env, LD_LIBRARY_PATH: stdLibInSandbox() } };
  };
  const batch = rsCompileBatch({
    lone: (limits, program) => {
      const step = compile(limits, program);
      if (step?.kind !== 'sandbox') throw new Error('the Rust compile step is a sandboxed rustc');
      return step;
    },
    run,
    hostRustc: 'rustc',
  });

  return {
    ...base,
    compile,
    run,
    // The batch's command is the lone step's own (these flags included), and its programs run
    // with the lone run step, so a batched program is compiled and run exactly as alone. Test-harness
    // programs compile alone.
    compileBatch: (limits, programs) => (programs.some(isRustTestHarness) ? null : batch(limits, programs)),
  };
}

export function warmDToolchain(): Toolchain {
  const base = dToolchain();
  return {
    ...base,
    // The runner's fork servers (its default): a warm sandbox per slot execs each program's lone run command.
    forkServer: execForkServer,
    // The batch's command is the lone step's own and its programs run with the lone run step.
    compileBatch: dCompileBatch({
      lone: (limits, program) => {
        const step = base.compile(limits, program);
        if (step?.kind !== 'sandbox') throw new Error('the D compile step is a sandboxed ldc2');
        return step;
      },
      run: (limits) => base.run(limits),
    }),
  };
}

export function warmGoToolchain(): Toolchain {
  const base = goToolchain();
  const go = new GoDirectRoute();
  let started: Promise<void> | undefined;
  return {
    ...base,
    prepare: async () => {
      await base.prepare?.();
      // If the direct route cannot be set up, every program takes the plain `go test -c` step.
      started ??= go.start().catch((error: unknown) => {
        process.emitWarning(`Go's direct route is off, go test -c serves every program: ${String(error)}`);
      });
      await started;
    },
    close: async () => {
      started = undefined;
      await go.close();
      await base.close?.();
    },
    mounts: () => [...base.mounts(), ...(go.stdCopy ? [{ host: go.stdCopy, sandbox: GO_STD_IN_SANDBOX }] : [])],
    files: (program: string) =>
      (go.stdCopy ? go.directPlan(program, BUILD_DIR, GO_STD_IN_SANDBOX)?.files : undefined) ?? base.files(program),
    compile: (limits: ExecutionLimits, program: string) => {
      const plan = go.stdCopy ? go.directPlan(program, BUILD_DIR, GO_STD_IN_SANDBOX) : undefined;
      const step = base.compile(limits, program);
      if (!plan || !step || step.kind !== 'sandbox') return step;
      return { ...step, argv: ['/bin/sh', '-c', plan.script], env: { GOROOT: go.goroot, LANG: 'C.UTF-8' } };
    },
    compileBatch: (limits: ExecutionLimits, programs: readonly string[]) => (go.batches ? goBatch(go, base, limits, programs) : null),
  };
}

/**
 * Go's batch (contract.ts's BatchCompile; docs/sandbox.md says why outcomes are unchanged): each
 * program compiled and vetted as its own package (step 1, each within its lone time limit), then
 * one test main over the packages that built, vetted clean and fit (packageFits), and one link
 * (step 2); each of them then runs the shared binary with its own position as first argument.
 * Every other program is `alone`: a compile or vet failure then gets the lone build's own
 * diagnostics, and a failure of step 2 sends the whole batch alone.
 */
function goBatch(go: GoDirectRoute, base: Toolchain, limits: ExecutionLimits, programs: readonly string[]): BatchCompile | null {
  const lone = base.compile(limits, programs[0]!);
  if (!lone || lone.kind !== 'sandbox') return null;
  const plan = go.batchPlan(programs, BUILD_DIR, GO_STD_IN_SANDBOX, Math.ceil(lone.limits.timeoutMs / 1000));
  const taken = plan.programs.flatMap((p, i) => (p ? [i] : []));
  if (taken.length < 2) return null;
  const env = { GOROOT: go.goroot, LANG: 'C.UTF-8' };
  return {
    build: async (batch) => {
      const alone: BatchOutcome[] = programs.map(() => ({ kind: 'alone' }));
      batch.write(plan.files);
      // Limits scaled for the batch: each program keeps its own time limit inside (timeout), the step as a whole n of them.
      const first = await batch.run({
        kind: 'sandbox',
        argv: ['/bin/sh', '-c', plan.script],
        env,
        limits: { ...lone.limits, timeoutMs: lone.limits.timeoutMs * taken.length + 5_000 },
      });
      if (first.sandboxError || first.timedOut || first.signal) return alone;
      const nm = readSmall(join(batch.buildDir, 'nm.out'));
      const members = taken.filter((i) => {
        const p = plan.programs[i]!;
        return readSmall(join(batch.buildDir, p.dir, 'status')).trim() === '0' && packageFits(nm, `${BUILD_DIR}/${p.dir}/pkg.a`, p.pkgPath);
      });
      if (members.length === 0) return alone;
      const linking = plan.link(members);
      batch.write(linking.files);
      const second = await batch.run({ kind: 'sandbox', argv: ['/bin/sh', '-c', linking.script], env, limits: lone.limits });
      if (second.sandboxError || second.timedOut || second.exitCode !== 0) return alone;
      const compileMs = (first.durationMs + second.durationMs) / members.length;
      const run = base.run(limits);
      for (const [position, i] of members.entries()) {
        alone[i] = {
          kind: 'built',
          files: { 'program.test': join(batch.buildDir, 'program.test') },
          run: { ...run, argv: [run.argv[0]!, String(position), ...run.argv.slice(1)] },
          compileMs,
        };
      }
      return alone;
    },
  };
}

/** A small file a batch step wrote ('' if it did not); at most 8 MiB is read. */
function readSmall(path: string): string {
  try {
    return readFileSync(path)
      .subarray(0, 8 << 20)
      .toString('utf8');
  } catch {
    return '';
  }
}

/** A warm compiler server in its own jail, serving the build directories under one root. */
class ServedCompiler {
  private server: LineServer | undefined;
  private root: string | undefined;
  private next = 0;

  constructor(
    private readonly command: (root: string) => { argv: string[]; readOnly: string[]; readWrite?: string[] },
    private readonly requestLine: (id: string, dir: string) => string,
    private readonly parse: (line: string) => { id: string | undefined; ok: boolean; diagnostics: string },
  ) {}

  step(): ServedStep {
    return { kind: 'served', limits: STEP_COMPILE_LIMITS, serve: (build) => this.serve(build.buildDir, build.uid) };
  }

  /**
   * Starts the server for the runner's directory `root` now, in the background (the runner's
   * startServers): its JVM or Node loads while the caller reads its input. A failure is left to the
   * first compile, which starts it again and reports it as before.
   */
  startIn(root: string): void {
    const server = this.serverFor(root);
    void server.server.start().catch(() => undefined);
    void server.retired?.catch(() => undefined);
  }

  /** The server of `root`, made when there is none (or one of another directory, which is closed). */
  private serverFor(root: string): { server: LineServer; retired: Promise<void> | undefined } {
    if (this.server && this.root === root) return { server: this.server, retired: undefined };
    // Set before any await: compiles that arrive together (a runner's first burst) must find
    // this server, not each make one (the others would be left running, never closed).
    const old = this.server;
    const { argv, readOnly, readWrite } = this.command(root);
    this.root = root;
    this.server = new LineServer(
      { jobDir: root, uid: SERVER_UID, limits: COMPILE_LIMITS, readOnly, readWrite },
      argv,
      (line) => this.parse(line).id,
    );
    return { server: this.server, retired: old?.close() };
  }

  private async serve(buildDir: string, uid: number | undefined): Promise<StepResult> {
    const { server, retired } = this.serverFor(dirname(buildDir));
    await retired;
    const started = performance.now();
    chownTree(buildDir, SERVER_UID);
    const id = String(this.next++);
    try {
      const line = await server.request(id, this.requestLine(id, `/job/${basename(buildDir)}`), STEP_COMPILE_LIMITS.timeoutMs);
      const answer = this.parse(line);
      return result(answer.ok ? 0 : 1, false, answer.diagnostics, performance.now() - started);
    } catch (error) {
      if (error instanceof ServerTimeout) return result(null, true, '', performance.now() - started);
      throw error;
    } finally {
      if (uid !== undefined) chownTree(buildDir, uid);
    }
  }

  async close(): Promise<void> {
    await this.server?.close();
    this.server = undefined;
  }
}

/**
 * Copies of a compiler server that compiles one program at a time (mcs), each compile sent to the
 * least busy: the runner's slots compile side by side, as a compiler process each would.
 */
class ServedPool {
  private readonly busy: number[];

  constructor(private readonly servers: readonly ServedCompiler[]) {
    this.busy = servers.map(() => 0);
  }

  step(): ServedStep {
    return {
      kind: 'served',
      limits: STEP_COMPILE_LIMITS,
      serve: async (build) => {
        const i = this.busy.indexOf(Math.min(...this.busy));
        this.busy[i]!++;
        try {
          return await this.servers[i]!.step().serve(build);
        } finally {
          this.busy[i]!--;
        }
      },
    };
  }

  startIn(root: string): void {
    for (const server of this.servers) server.startIn(root);
  }

  async close(): Promise<void> {
    await Promise.all(this.servers.map((server) => server.close()));
  }
}

function result(exitCode: number | null, timedOut: boolean, diagnostics: string, durationMs: number): StepResult {
  return {
    exitCode,
    signal: null,
    timedOut,
    durationMs,
    stdout: '',
    stderr: diagnostics,
    stdoutBytes: 0,
    stderrBytes: Buffer.byteLength(diagnostics),
    survivors: 0,
  };
}

export function warmJavaToolchain(): Toolchain {
  const base = javaToolchain();
  const jar = JAVATUPLES_JAR;
  const serverClasses = join(WARM_TOOLS_DIR, 'javac-server');
  // The JDK javac runs from, found as the shell would find it (no shell started for it).
  const javaHome = (): string => {
    const javac = binaryIdentity('javac', process.env.PATH ?? '/usr/bin:/bin');
    if (!javac) throw new Error('java: no javac on PATH (the toolchain check refuses the language first)');
    return dirname(dirname(javac.file));
  };
  const served = new ServedCompiler(
    () => ({
      argv: [
        join(javaHome(), 'bin/java'),
        '-XX:+UseSerialGC',
        '-Xmx768m',
        '-cp',
        serverClasses,
        'JavacServer',
        jar,
        String(Math.max(2, availableParallelism())),
      ],
      readOnly: [serverClasses, dirname(jar), javaHome()],
    }),
    (id, dir) => `${id}\t${dir}/Problem.java\t${dir}`,
    (line) => {
      const [id, code, text = ''] = line.split('\t');
      return { id, ok: code === '0', diagnostics: text.replace(/\\n/g, '\n').replace(/\\t/g, '\t').replace(/\\\\/g, '\\') };
    },
  );
  return {
    ...base,
    check: async () => {
      const plain = await base.check();
      if (!plain.ok) return plain;
      if (!existsSync(join(serverClasses, 'JavacServer.class')))
        return { ok: false, missing: `the warm javac server (${serverClasses})`, install: 'run `npm run setup -- --languages java`' };
      return plain;
    },
    startServers: (root) => served.startIn(root),
    // A `public class Main` program (HumanEvalPack's) takes the plain javac step: Main.java and its launcher.
    compile: (limits, program) => (declaresPublicMain(program) ? base.compile(limits, program) : served.step()),
    close: async () => {
      await served.close();
      await base.close?.();
    },
  };
}

export function warmScalaToolchain(): Toolchain {
  const base = scalaToolchain();
  const serverClasses = join(WARM_TOOLS_DIR, 'scalac-server');
  const javaHome = (): string =>
    dirname(dirname(execFileSync('sh', ['-c', 'readlink -f "$(command -v java)"'], { encoding: 'utf8' }).trim()));
  // The jars the scalac script puts on its class path (every one in the Scala home's lib/), read where they are.
  const jars = (): string[] => {
    const home = scalaInstallation()?.home;
    if (!home) throw new Error('scala: no scalac on PATH (the toolchain check refuses the language first)');
    const lib = join(home, 'lib');
    return readdirSync(lib)
      .filter((f) => f.endsWith('.jar'))
      .sort()
      .map((f) => join(lib, f));
  };
  const served = new ServedCompiler(
    () => {
      const classPath = jars();
      return {
        argv: [
          join(javaHome(), 'bin/java'),
          '-XX:+UseSerialGC',
          '-Xss4m',
          '-Xmx768m',
          '-cp',
          [...classPath, serverClasses].join(':'),
          'ScalacServer',
        ],
        readOnly: [serverClasses, javaHome(), ...classPath],
      };
    },
    (id, dir) => `${id}\t${dir}/program.scala\t${dir}`,
    (line) => {
      const [id, code, text = ''] = line.split('\t');
      return { id, ok: code === '0', diagnostics: text.replace(/\\n/g, '\n').replace(/\\t/g, '\t').replace(/\\\\/g, '\\') };
    },
  );
  return {
    ...base,
    // Until scripts/install-warm-compilers.sh has built the server (it needs scalac, which
    // install-toolchains.sh may install later), the plain compile step: the same outcomes.
    compile: (limits, program) => (existsSync(join(serverClasses, 'ScalacServer.class')) ? served.step() : base.compile(limits, program)),
    close: async () => {
      await served.close();
      await base.close?.();
    },
  };
}

export function warmCsToolchain(): Toolchain {
  const base = csToolchain();
  const serverDir = join(WARM_TOOLS_DIR, 'mcs-server');
  const server = join(serverDir, 'McsServer.exe');
  // mcs compiles one program at a time: a server per core (each a Mono process of ~100 MB).
  const served = new ServedPool(
    Array.from(
      { length: Math.max(1, Math.min(4, availableParallelism())) },
      () =>
        new ServedCompiler(
          () => ({ argv: ['/usr/bin/env', 'mono', server], readOnly: [serverDir] }),
          (id, dir) => `${id}\t${dir}/program.cs\t${dir}/program.exe`,
          (line) => {
            const [id, code, text = ''] = line.split('\t');
            return { id, ok: code === '0', diagnostics: text.replace(/\\n/g, '\n').replace(/\\t/g, '\t').replace(/\\\\/g, '\\') };
          },
        ),
    ),
  );
  return {
    ...base,
    // Mono's start and mcs's JIT warm-up while the runner's caller reads its input, as java's and ts's.
    startServers: (root) => {
      if (existsSync(server)) served.startIn(root);
    },
    // The runner's fork servers (its default): a warm sandbox per slot execs each program's lone run command.
    forkServer: execForkServer,
    // Until scripts/install-warm-compilers.sh has built the server, the plain compile step: the same outcomes.
    compile: (limits, program) => (existsSync(server) ? served.step() : base.compile(limits, program)),
    close: async () => {
      await served.close();
      await base.close?.();
    },
  };
}

/** Where the tsc server keeps its library check between runs (tscServer.cjs: keyed by TypeScript's version and options). */
export const TSC_LIBRARY_CHECKS_DIR = join(WARM_TOOLS_DIR, 'tsc-library-checks');

/** A directory the warm servers (SERVER_UID) can write, or undefined when it cannot be made (a read-only tools directory). */
function serverWritableDir(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    if (process.getuid?.() === 0) chownSync(dir, SERVER_UID, SERVER_UID);
    else accessSync(dir, constants.W_OK);
    return dir;
  } catch {
    return undefined;
  }
}

/** `libraryChecksDir`: where the server keeps its library check (tests give their own). */
export function warmTsToolchain(options: { libraryChecksDir?: string } = {}): Toolchain {
  const base = tsToolchain();
  const typescriptDir = dirname(createRequire(import.meta.url).resolve('typescript/package.json'));
  const served = new ServedCompiler(
    () => {
      const kept = serverWritableDir(options.libraryChecksDir ?? TSC_LIBRARY_CHECKS_DIR);
      return {
        argv: [process.execPath, '--max-old-space-size=1024', join(HERE, 'ts/tscServer.cjs'), typescriptDir, ...(kept ? [kept] : [])],
        readOnly: [typescriptDir, join(HERE, 'ts')],
        readWrite: kept ? [kept] : [],
      };
    },
    (id, dir) => JSON.stringify({ id, file: `${dir}/program.ts` }),
    (line) => {
      const answer = JSON.parse(line) as { id?: unknown; ok?: boolean; diagnostics?: string };
      return {
        id: answer.id === undefined || answer.id === null ? undefined : String(answer.id),
        ok: answer.ok === true,
        diagnostics: answer.diagnostics ?? '',
      };
    },
  );
  return {
    ...base,
    startServers: (root) => served.startIn(root),
    compile: () => served.step(),
    close: async () => {
      await served.close();
      await base.close?.();
    },
  };
}
