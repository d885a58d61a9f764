/**
 * Lua (MultiPL-E `lua`): as its eval_lua.py, `lua program.lua`; exit 0 is OK, anything else an
 * Exception. The tests are a luaunit suite (`os.exit(lu.LuaUnit.run())`: the exit code is the
 * number of failed tests): a failed assertion is `failed`, an error raised in a test `error`; a
 * program that does not load (lua's "... near ..." without a traceback) `compile_error`, as
 * JavaScript's SyntaxError is. Memory: RLIMIT_AS (a plain C interpreter); "not enough memory" is `oom`.
 */
import type { RunOutcome, StepResult, Toolchain } from '../contract.js';
import { BUILD_DIR } from '../contract.js';
import { exitedWith, firstLine, killedBy, probeVersion, runLimits } from './common.js';
import { luaForkServer } from '../luaForkServer.js';

export const LUA_INSTALL =
  'run `npm run setup -- --languages lua` (Debian: apt-get install lua5.4 lua-unit) so that `lua` and luaunit are there';

export function classifyLua(run: StepResult): RunOutcome {
  const text = `${run.stdout}\n${run.stderr}`;
  if (/not enough memory/.test(text))
    return { status: 'oom', exception: { type: 'OutOfMemory', message: firstLine(text, /not enough memory/) ?? 'not enough memory' } };
  if (run.signal) return killedBy(run);
  // luaunit's summary: "Ran 1 tests in 0.000 seconds, 0 successes, 1 failure[, 1 error]".
  const summary = /Ran \d+ tests in [\d.]+ seconds, \d+ successes?(?:, (\d+) failures?)?(?:, (\d+) errors?)?/.exec(run.stdout);
  if (summary && Number(summary[1] ?? 0) > 0)
    return {
      status: 'failed',
      exception: {
        type: 'AssertionError',
        message: (firstLine(run.stdout, /expected:|failed/i) ?? summary[0]).slice(0, 2000),
        traceback: run.stdout.slice(-4000),
      },
    };
  if (summary)
    return {
      status: 'error',
      exception: {
        type: 'LuaError',
        message: (firstLine(run.stdout, /:\d+: /) ?? summary[0]).slice(0, 2000),
        traceback: run.stdout.slice(-4000),
      },
    };
  // lua's own report of a chunk that did not load: "lua: program.lua:3: unexpected symbol near 'end'", no traceback.
  if (/^lua[\d.]*: .*:\d+: .*near /m.test(run.stderr) && !/stack traceback/.test(run.stderr))
    return {
      status: 'compile_error',
      exception: { type: 'SyntaxError', message: firstLine(run.stderr, /near /) ?? 'syntax error', traceback: run.stderr.slice(-4000) },
    };
  return exitedWith(run);
}

export function luaToolchain(): Toolchain {
  return {
    language: 'lua',
    name: 'Lua (lua, luaunit)',
    // One probe for both: the interpreter and the test framework MultiPL-E's tests require.
    check: () =>
      probeVersion(
        'lua',
        ['-e', "local lu = require('luaunit'); print(_VERSION .. ', luaunit ' .. lu.VERSION)"],
        'lua or luaunit',
        LUA_INSTALL,
      ),
    mounts: () => [],
    files: (program) => ({ 'program.lua': program }),
    compile: () => null,
    run: (limits) => ({
      kind: 'sandbox',
      argv: ['lua', `${BUILD_DIR}/program.lua`],
      env: { LANG: 'C.UTF-8' },
      limits: runLimits(limits, 'address-space'),
    }),
    // A warm lua with luaunit loaded per slot forks each program (opt-in: ../forkServer.ts, ../luaForkServer.ts).
    forkServer: luaForkServer,
    classify: classifyLua,
  };
}
