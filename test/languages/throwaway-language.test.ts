/**
 * docs/extending.md's claim for languages: a language is its folder (domain/languages/<id>/: its
 * definition, one line in LANGUAGES, and its test fixtures) plus its toolchain entry
 * (infra/sandbox/process/toolchains/<id>.ts, one line in TOOLCHAINS). A throwaway language,
 * `demo-sh` (POSIX shell scripts whose tests `exit 1` on a wrong answer), is defined here as those
 * files would define it and wired through the same types: a table of languages with it, the
 * toolchain table typed against that table's process-run ids, the runner chosen by runnerOf, and
 * its programs run by the real process runner in the real sandbox (bubblewrap). Its fixtures are
 * found as a folder's are, and the generic tests take them with no edit of their own: the check
 * that every language has its fixtures names it until it has them, and the generic suites run its
 * programs: its four statuses (test/support/status-suite.ts, which test/sandbox/warm-toolchains.test.ts
 * runs for every language) and its eight hostile programs (test/support/hostile-suite.ts, which
 * test/sandbox/process-hostile.e2e.test.ts runs for every language). The type-level half is checked by `npx tsc --noEmit` (npm test runs it):
 * each `@ts-expect-error` below must be an error, or the type check fails.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { multiplELanguage } from '../../domain/languages/multiple.js';
import { LANGUAGES, type LanguageId, type ProcessLanguageId } from '../../domain/languages/registry.js';
import { runnerOf, UnknownRunnerError } from '../../domain/languages/runner.js';
import type { LanguageFixtures } from '../../domain/languages/fixtures.js';
import type { Language, ProcessLanguageIdOf } from '../../domain/languages/types.js';
import { BUILD_DIR, type RunOutcome, type StepResult, type Toolchain } from '../../infra/sandbox/process/contract.js';
import { ProcessExecutor } from '../../infra/sandbox/process/processExecutor.js';
import { exitedWith, killedBy, probeVersion, runLimits } from '../../infra/sandbox/process/toolchains/common.js';
import { TOOLCHAINS, toolchainFrom, ToolchainNotRegisteredError, type ToolchainTable } from '../../infra/sandbox/toolchainRegistry.js';
import { LANGUAGE_FIXTURES, missingFixtures, processFixturesOf, type FixturesTable } from '../support/language-fixtures.js';
import { describeHostile } from '../support/hostile-suite.js';
import { describeStatuses } from '../support/status-suite.js';

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
  // A tool the script runs that ran out of memory says so (awk: "run time error: out of memory").
  if (/out of memory|cannot allocate/i.test(run.stderr))
    return { status: 'oom', exception: { type: 'OutOfMemory', message: run.stderr.trim() } };
  // dash's "program.sh: 3: Syntax error: ...": the program does not parse, MultiPL-E's SyntaxError.
  if (/Syntax error/.test(run.stderr)) return { status: 'compile_error', exception: { type: 'SyntaxError', message: run.stderr.trim() } };
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

// --- What domain/languages/demo-sh/fixtures.ts would hold (the types: domain/languages/fixtures.ts).
const addDemo = (body: string, check = '[ "$(add 2 3)" = 5 ] || exit 1') => `add() {\n${body}\n}\n${check}\n`;
const demoShFixtures: LanguageFixtures<'demo-sh'> = {
  language: 'demo-sh',
  multiple: {
    id: 'demo-sh',
    row: {
      prompt: '# Add two numbers x and y\nadd() {\n',
      tests: '}\n\n[ "$(add 0 1)" = 1 ] || exit 1\n[ "$(add 2 3)" = 5 ] || exit 1\n',
      stop: ['\n#'],
    },
    completions: {
      right: '    echo $(($1 + $2))\n# kept past a stop token\nexit 3\n',
      wrong: '    echo $(($1 - $2))\n',
      noncompiling: '    if true; then\n',
      hostile: '    while :; do :; done\n',
    },
    hostilePasses: false,
  },
  process: {
    statuses: {
      ok: addDemo('    echo $(($1 + $2))'),
      wrong: addDemo('    echo $(($1 - $2))'),
      broken: addDemo('    if true; then echo $(($1 + $2))'),
      hangs: 'while :; do :; done\n',
    },
    hostile: ({ port, targets, outputMiB }) => ({
      loop: 'while :; do :; done',
      spawnBomb: 'while :; do /bin/sleep 100 & done',
      // dash itself dies of SIGSEGV when an allocation fails, saying nothing (the generic suite caught it
      // as `killed`): the string grows in awk, which reports running out of memory.
      memoryBomb: 'awk \'BEGIN { s = "x"; while (1) s = s s }\'',
      output: `head -c ${outputMiB * 1048576} /dev/zero | tr '\\0' x`,
      // dash has no /dev/tcp: through bash's, as Lua's do.
      network: `for p in ${port} 7233 8333; do\n  if bash -c "exec 3<>/dev/tcp/127.0.0.1/$p" 2>/dev/null; then echo "$p CONNECTED"; else echo "$p refused"; fi\ndone`,
      environment: 'env\ncat /proc/1/environ 2>/dev/null || true',
      writeOutside: `for p in ${targets.join(' ')}; do\n  if (echo x > "$p") 2>/dev/null; then echo "WROTE $p"; else echo "refused $p"; fi\ndone`,
      daemon: 'setsid /bin/sleep 30 > /dev/null 2>&1 &\necho "spawned $!"',
    }),
    wellBehaved: '[ $((1 + 1)) = 2 ]\n',
    bench: {
      rows: [1, 2, 3].map((n) => ({
        name: `add_${n}`,
        prompt: 'add() {\n',
        completion: '    echo $(($1 + $2))\n}',
        tests: `[ "$(add ${n} 1)" = ${n + 1} ] || exit 1`,
      })),
      distinct: (i) => `\n# bench program ${i}\n`,
    },
  },
};

// --- The two registry lines, here on copies of the registries.
const LANGUAGES_WITH_DEMO = { ...LANGUAGES, 'demo-sh': demoSh } as const;
type DemoProcessId = ProcessLanguageIdOf<typeof LANGUAGES_WITH_DEMO>;
const TOOLCHAINS_WITH_DEMO = { ...TOOLCHAINS, 'demo-sh': { plain: demoShToolchain } } as const satisfies ToolchainTable<DemoProcessId>;
// --- Its fixtures, found as its folder's would be (test/support/language-fixtures.ts lists the folders).
const FIXTURES_WITH_DEMO: FixturesTable = new Map([
  ...LANGUAGE_FIXTURES,
  ['demo-sh', { fixtures: demoShFixtures, file: 'domain/languages/demo-sh/fixtures.ts' }],
]);

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

  it('the generic tests take its fixtures from its folder; without them, the check names what is missing', () => {
    expect(missingFixtures(LANGUAGES_WITH_DEMO, FIXTURES_WITH_DEMO)).toEqual([]);
    expect(processFixturesOf('demo-sh', FIXTURES_WITH_DEMO).statuses.ok).toBe(demoShFixtures.process!.statuses.ok);
    expect(missingFixtures(LANGUAGES_WITH_DEMO, LANGUAGE_FIXTURES)).toEqual([
      `language "demo-sh" has no fixtures: its folder under domain/languages/ needs a fixtures.ts exporting \`fixtures: LanguageFixtures<'demo-sh'>\` (docs/extending.md)`,
    ]);
    const withoutProcess = new Map(FIXTURES_WITH_DEMO).set('demo-sh', {
      fixtures: { ...demoShFixtures, process: undefined },
      file: 'domain/languages/demo-sh/fixtures.ts',
    });
    expect(missingFixtures(LANGUAGES_WITH_DEMO, withoutProcess)).toEqual([
      'language "demo-sh" runs on the process runner but domain/languages/demo-sh/fixtures.ts has no `process` fixtures (statuses, hostile, wellBehaved, bench)',
    ]);
    expect(() => processFixturesOf('demo-sh', withoutProcess)).toThrow(/"demo-sh".*no `process` fixtures/);
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

// The generic suites, as test/sandbox/warm-toolchains.test.ts and process-hostile.e2e.test.ts run them for every language of LANGUAGES.
describeStatuses(
  'demo-sh',
  toolchainFrom(TOOLCHAINS_WITH_DEMO, 'demo-sh'),
  processFixturesOf('demo-sh', FIXTURES_WITH_DEMO).statuses,
  LIMITS,
  {
    timeoutMs: 2_000,
  },
);
describeHostile([
  {
    language: 'demo-sh',
    toolchain: toolchainFrom(TOOLCHAINS_WITH_DEMO, 'demo-sh'),
    hostile: processFixturesOf('demo-sh', FIXTURES_WITH_DEMO).hostile,
    wellBehaved: processFixturesOf('demo-sh', FIXTURES_WITH_DEMO).wellBehaved,
  },
]);
