/**
 * Go (MultiPL-E `go_test.go`): the program is a test file (`package <name>_test`, `func TestX(t
 * *testing.T)`), run as `go test program_test.go` by MultiPL-E's eval_go.py. Here the two halves
 * of `go test` are our two steps: `go test -c` builds the test binary (with go test's vet checks:
 * a vet failure is "[build failed]" for MultiPL-E too, so `compile_error`), then the binary runs.
 * MultiPL-E counts "FAIL" in the output as Exception: the binary exits 1 on a failed test (our
 * `failed`) and 2 on a panic (`error`).
 *
 * The standard library's compiled packages come from a build cache made once on the host by
 * `prepare()` (or scripts/install-toolchains.sh) in .tools/go-cache and mounted read-only: Go
 * no longer ships them prebuilt, and building them costs each cold compile some 15 s. Samples
 * share nothing writable: the sample's own package is compiled into its build step's temp dir.
 * Memory: RLIMIT_DATA, not RLIMIT_AS: the Go runtime reserves address space for its page
 * summaries at start and fails under a 512 MiB RLIMIT_AS; what it commits counts as data.
 *
 * A program that imports testify (HumanEvalPack's `package main` tests, run by code_eval_octopack
 * as `go test main_test.go` in a module that requires it) gets the pinned go.mod and go.sum
 * (octopack.ts) beside it, testify's module cache mounted read-only at its host path, and a build
 * cache of the standard library and testify compiled (installed by scripts/install-toolchains.sh).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { RunOutcome, StepResult, Toolchain } from '../contract.js';
import { BUILD_DIR } from '../contract.js';
import { COMPILE_LIMITS, exitedWith, firstLine, killedBy, probeVersion, probeVersionSync, runLimits, TOOLS_DIR } from './common.js';
import { GO_MODCACHE, GO_MODULE_FILES, GO_TESTIFY_CACHE, GO_TESTIFY_CACHE_IN_SANDBOX, importsTestify } from './octopack.js';

const GO_INSTALL = 'install Go 1.21 or later (from go.dev/dl, or Debian: apt-get install golang) so that `go` is on PATH';
const CACHE_IN_SANDBOX = '/opt/gocache';
export const GO_CACHE_DIR = join(TOOLS_DIR, 'go-cache');
const STAMP = '.explora-warm-std';

/**
 * Packages of `go list std` a program can import: every one but internal and vendored ones, the
 * commands, and those that need build flags of their own (race, msan, asan) or are cgo's runtime.
 */
export function importableStd(list: string): string[] {
  return list
    .split('\n')
    .map((p) => p.trim())
    .filter((p) => p && !/(^|\/)internal(\/|$)|^vendor\/|^cmd\/|^runtime\/(race|msan|asan|cgo)$|^plugin$/.test(p));
}

/** A test file importing every package of the list, whose `go test -c` fills the cache with their compiled code and vet facts. */
export function warmProgram(packages: readonly string[]): string {
  return `package warm_test\n\nimport (\n${packages
    .filter((p) => p !== 'testing')
    .map((p) => `\t_ ${JSON.stringify(p)}\n`)
    .join('')}\t"testing"\n)\n\nfunc TestWarm(t *testing.T) {}\n`;
}

function goEnv(cache: string): Record<string, string> {
  return {
    GOCACHE: cache,
    HOME: '/tmp',
    GOPATH: '/tmp/gopath',
    GOTOOLCHAIN: 'local',
    GOPROXY: 'off',
    GOTELEMETRY: 'off',
    GOFLAGS: '-mod=mod',
    LANG: 'C.UTF-8',
  };
}

/** Go's GOROOT (asked once per process and kept between runs). */
function goRootDir(): string {
  const check = probeVersionSync('go', ['env', 'GOROOT'], 'go', GO_INSTALL, {}, { keepBetweenRuns: true });
  return check.ok ? check.version : '/usr/local/go';
}

let warming: Promise<void> | undefined;
/**
 * Builds the shared read-only cache once per machine (a stamp marks it done): every importable
 * package of the standard library, compiled and vetted. A sandboxed compile cannot store what is
 * missing from a read-only cache, and Go then refuses the import ("package net is not in std"),
 * so the whole standard library is in it, not only what MultiPL-E's prompts import. Takes a minute
 * or two, once (scripts/install-toolchains.sh does it at install).
 */
export function warmGoCache(): Promise<void> {
  if (existsSync(join(GO_CACHE_DIR, STAMP))) return Promise.resolve();
  warming ??= (async () => {
    mkdirSync(GO_CACHE_DIR, { recursive: true, mode: 0o755 });
    const dir = mkdtempSync(join(tmpdir(), 'explora-gowarm-'));
    const env = { PATH: `${goRootDir()}/bin:/usr/local/bin:/usr/bin:/bin`, ...goEnv(GO_CACHE_DIR), HOME: dir, GOPATH: join(dir, 'gopath') };
    try {
      const { stdout } = await promisify(execFile)('go', ['list', 'std'], { cwd: dir, env });
      writeFileSync(join(dir, 'warm_test.go'), warmProgram(importableStd(stdout)));
      await promisify(execFile)('go', ['test', '-c', '-o', join(dir, 'warm.test'), 'warm_test.go'], {
        cwd: dir,
        env,
        maxBuffer: 16 * 1024 * 1024,
      });
      writeFileSync(join(GO_CACHE_DIR, STAMP), new Date().toISOString() + '\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  })();
  warming.catch(() => {
    warming = undefined;
  });
  return warming;
}

export function classifyGo(run: StepResult): RunOutcome {
  const text = run.stdout + '\n' + run.stderr;
  // The heap's own failure, or a thread or mapping the memory limit refused (ENOMEM, errno 12).
  if (/fatal error: (runtime: )?out of memory|cannot allocate memory|errno=12\b/.test(text))
    return {
      status: 'oom',
      exception: { type: 'OutOfMemory', message: firstLine(text, /out of memory|cannot allocate|errno=12/) ?? 'out of memory' },
    };
  if (run.signal) return killedBy(run);
  const panic = /^panic: (.*)$/m.exec(text);
  if (panic) return { status: 'error', exception: { type: 'panic', message: panic[1]!, traceback: text.slice(-4000) } };
  if (/^--- FAIL/m.test(text) || (run.exitCode === 1 && /^FAIL/m.test(text))) {
    return {
      status: 'failed',
      exception: {
        type: 'TestFailure',
        message: (firstLine(run.stdout, /_test\.go:\d+:/) ?? firstLine(run.stdout, /FAIL/) ?? 'FAIL').slice(0, 2000),
        traceback: run.stdout.slice(-4000),
      },
    };
  }
  return exitedWith(run);
}

/** The pinned go.mod and go.sum of code_eval_octopack's Go module (testify). */
function testifyModuleFiles(): Record<string, string> {
  return {
    'go.mod': readFileSync(join(GO_MODULE_FILES, 'go.mod'), 'utf8'),
    'go.sum': readFileSync(join(GO_MODULE_FILES, 'go.sum'), 'utf8'),
  };
}

export function goToolchain(): Toolchain {
  return {
    language: 'go_test.go',
    name: 'Go',
    check: () => probeVersion('go', ['version'], 'go', GO_INSTALL, {}, { keepBetweenRuns: true }),
    mounts: () => [
      ...(goRootDir().startsWith('/usr/') ? [] : [{ host: goRootDir(), sandbox: goRootDir() }]),
      { host: GO_CACHE_DIR, sandbox: CACHE_IN_SANDBOX },
      // testify's module and build caches, where installed (octopack.ts).
      ...(existsSync(GO_TESTIFY_CACHE) && existsSync(GO_MODCACHE)
        ? [
            { host: GO_TESTIFY_CACHE, sandbox: GO_TESTIFY_CACHE_IN_SANDBOX },
            { host: GO_MODCACHE, sandbox: GO_MODCACHE },
          ]
        : []),
    ],
    prepare: warmGoCache,
    files: (program) =>
      importsTestify(program) ? { 'program_test.go': program, ...testifyModuleFiles() } : { 'program_test.go': program },
    compile: (_limits, program) => ({
      kind: 'sandbox',
      argv: ['go', 'test', '-c', '-o', 'program.test', 'program_test.go'],
      env: {
        PATH: `${goRootDir()}/bin:/usr/local/bin:/usr/bin:/bin`,
        // goindex=0: go's module index of testify's module, when its key misses the read-only cache
        // (it did, hours after the install wrote it), is written there, and a failed write fails the
        // build; without the index go reads the module's files, which it reads anyway.
        ...(importsTestify(program)
          ? { ...goEnv(GO_TESTIFY_CACHE_IN_SANDBOX), GOMODCACHE: GO_MODCACHE, GODEBUG: 'goindex=0' }
          : goEnv(CACHE_IN_SANDBOX)),
      },
      limits: COMPILE_LIMITS,
    }),
    run: (limits) => ({
      kind: 'sandbox',
      argv: [`${BUILD_DIR}/program.test`],
      env: { LANG: 'C.UTF-8', GOTRACEBACK: 'single' },
      limits: runLimits(limits, 'data', { maxProcesses: Math.max(limits.maxProcesses, 32) }),
    }),
    classify: classifyGo,
  };
}
