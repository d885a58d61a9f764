/**
 * docs/extending.md's claim for languages: a language is its folder (domain/languages/<id>/, one
 * line in LANGUAGES) plus its toolchain entry (infra/sandbox/process/toolchains/<id>.ts, one line in
 * TOOLCHAINS). A throwaway language, `demo-sh` (POSIX shell scripts whose tests `exit 1` on a wrong
 * answer), is defined here as those two files would define it and wired through the same types:
 * a table of languages with it, the toolchain table typed against that table's process-run ids,
 * the runner chosen by runnerOf, and its programs run by the real process runner in the real
 * sandbox (bubblewrap). The type-level half is checked by `npx tsc --noEmit` (npm test runs it):
 * each `@ts-expect-error` below must be an error, or the type check fails.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { multiplELanguage } from '../../domain/languages/multiple.js';
import { LANGUAGES, type LanguageId, type ProcessLanguageId } from '../../domain/languages/registry.js';
import { runnerOf, UnknownRunnerError } from '../../domain/languages/runner.js';
import type { Language, ProcessLanguageIdOf } from '../../domain/languages/types.js';
import { BUILD_DIR, type RunOutcome, type StepResult, type Toolchain } from '../../infra/sandbox/process/contract.js';
import { ProcessExecutor } from '../../infra/sandbox/process/processExecutor.js';
import { exitedWith, killedBy, probeVersion, runLimits } from '../../infra/sandbox/process/toolchains/common.js';
import { TOOLCHAINS, toolchainFrom, ToolchainNotRegisteredError, type ToolchainTable } from '../../infra/sandbox/toolchainRegistry.js';

// --- What domain/languages/demo-sh/index.ts would hold.
const demoSh = multiplELanguage({
  id: 'demo-sh',
  name: 'POSIX shell',
  extension: 'sh',
  stopWords: ['\n#'],
  fenceTags: ['sh', 'shell'],
  compiled: false,
});

// --- What infra/sandbox/process/toolchains/demo-sh.ts would hold.
function classifyDemoSh(run: StepResult): RunOutcome {
  if (run.signal) return killedBy(run);
  // The tests' own way of saying a wrong answer.
  if (run.exitCode === 1) return { status: 'failed', exception: { type: 'TestFailure', message: run.stderr.trim().slice(0, 2000) } };
  return exitedWith(run);
}

function demoShToolchain(): Toolchain {
  return {
    language: 'demo-sh',
    name: 'POSIX shell (/bin/sh)',
    check: () => probeVersion('/bin/sh', ['-c', 'echo /bin/sh'], '/bin/sh', 'install a POSIX shell (Debian: dash)'),
    mounts: () => [],
    files: (program) => ({ 'program.sh': program }),
    compile: () => null,
    run: (limits) => ({
      kind: 'sandbox',
      argv: ['/bin/sh', `${BUILD_DIR}/program.sh`],
      env: { LANG: 'C.UTF-8' },
      limits: runLimits(limits, 'address-space'),
    }),
    classify: classifyDemoSh,
  };
}

// --- The two registry lines, here on copies of the registries.
const LANGUAGES_WITH_DEMO = { ...LANGUAGES, 'demo-sh': demoSh } as const;
type DemoProcessId = ProcessLanguageIdOf<typeof LANGUAGES_WITH_DEMO>;
const TOOLCHAINS_WITH_DEMO = { ...TOOLCHAINS, 'demo-sh': { plain: demoShToolchain } } as const satisfies ToolchainTable<DemoProcessId>;

// --- The guarantees the types give (tsc checks these lines).
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const isTrue = <T extends true>(): T | undefined => undefined;
// The process-run ids are derived from the table of languages: every language but Python's (zygote) one.
isTrue<Equal<Exclude<LanguageId, ProcessLanguageId>, 'python'>>();
isTrue<Equal<Exclude<DemoProcessId, ProcessLanguageId>, 'demo-sh'>>();
// A process-run language without its toolchain entry is a type error ...
// @ts-expect-error Property '"demo-sh"' is missing
const missingEntry: ToolchainTable<DemoProcessId> = TOOLCHAINS;
// ... and so is an entry for a language that does not run on the process runner (or does not exist).
// @ts-expect-error Object literal may only specify known properties
const strayEntry: ToolchainTable<ProcessLanguageId> = { ...TOOLCHAINS, python: { plain: demoShToolchain } };
// A runner kind nobody implements is not a language's.
// @ts-expect-error Type '"wasm"' is not assignable to type 'RunnerKind'
const unknownRunner: Language<'demo-wasm'> = { ...demoSh, id: 'demo-wasm', runner: 'wasm' };
// (Values only for the type checker.)
void [missingEntry, strayEntry, unknownRunner];

const LIMITS = { timeoutMs: 20_000 };
let executor: ProcessExecutor | undefined;
afterAll(() => executor?.close());

describe('a throwaway language, defined by its folder and its toolchain entry', () => {
  it('the runner of a process-run language is its process runner, with its own toolchain; Python keeps its zygote', () => {
    expect(runnerOf(LANGUAGES_WITH_DEMO, 'demo-sh')).toEqual({ kind: 'process', language: 'demo-sh' });
    expect(runnerOf(LANGUAGES_WITH_DEMO, 'python')).toEqual({ kind: 'python-zygote' });
    expect(runnerOf(LANGUAGES_WITH_DEMO, 'js')).toEqual({ kind: 'process', language: 'js' });
    expect(toolchainFrom(TOOLCHAINS_WITH_DEMO, 'demo-sh').name).toBe('POSIX shell (/bin/sh)');
  });

  it('its programs run in the real sandbox: a passing one passes, a failing one fails', async () => {
    const runner = runnerOf(LANGUAGES_WITH_DEMO, 'demo-sh');
    if (runner.kind !== 'process') throw new Error('demo-sh runs on the process runner');
    executor = new ProcessExecutor(toolchainFrom(TOOLCHAINS_WITH_DEMO, runner.language), { concurrency: 2, limits: LIMITS });
    await executor.start();
    const program = (solution: string) =>
      demoSh.assemble({
        solution: `add() {\n${solution}\n}`,
        tests:
          '[ "$(add 2 3)" = 5 ] || { echo "add 2 3 != 5" >&2; exit 1; }\n# no network, no environment: the sandbox is the same as every language\'s\n[ -z "$HOME" ]',
      });
    const [passing, failing] = await Promise.all([
      executor.run({ id: 'passing', program: program('  echo $(($1 + $2))') }),
      executor.run({ id: 'failing', program: program('  echo $(($1 - $2))') }),
    ]);
    expect(passing.status).toBe('passed');
    expect(failing.status).toBe('failed');
    expect(failing.exception).toMatchObject({ type: 'TestFailure', message: 'add 2 3 != 5' });
  });

  it('past the types, nothing falls back: a runner no sandbox implements throws, a process language without a toolchain throws', () => {
    const forged = {
      ...LANGUAGES_WITH_DEMO,
      'demo-wasm': { ...demoSh, id: 'demo-wasm', runner: 'wasm' },
    } as unknown as typeof LANGUAGES_WITH_DEMO;
    expect(() => runnerOf(forged, 'demo-wasm' as 'demo-sh')).toThrow(UnknownRunnerError);
    expect(() => runnerOf(forged, 'demo-wasm' as 'demo-sh')).toThrow(/demo-wasm.*"wasm"/);
    expect(() => toolchainFrom(TOOLCHAINS as ToolchainTable<DemoProcessId>, 'demo-sh')).toThrow(ToolchainNotRegisteredError);
    expect(() => toolchainFrom(TOOLCHAINS as ToolchainTable<DemoProcessId>, 'demo-sh')).toThrow(/demo-sh/);
  });
});
