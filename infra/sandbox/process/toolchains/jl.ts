/**
 * Julia (MultiPL-E `jl`): `julia program.jl`, as its eval_julia.py runs it; exit 0 is OK. Julia
 * is not in Debian bookworm: the language is declared, and `check()` refuses it until `julia` is on
 * PATH (julialang.org's installer, juliaup). Not run on the machine this was written on: the
 * outcomes below follow eval_julia.py and Julia's own messages, untested here. A failed `@test`
 * ("Test Failed", the testset's "Some tests did not pass") is `failed`; a parse error
 * ("ParseError", "syntax:") `compile_error`; OutOfMemoryError `oom`; another error `error`.
 * Memory: RLIMIT_DATA (Julia reserves large address space at start).
 */
import type { RunOutcome, StepResult, Toolchain } from '../contract.js';
import { BUILD_DIR } from '../contract.js';
import { exitedWith, firstLine, killedBy, probeVersion, runLimits } from './common.js';

export const JULIA_INSTALL =
  'install Julia (not packaged in Debian bookworm): curl -fsSL https://install.julialang.org | sh, or a release from julialang.org/downloads, so that `julia` is on PATH';

export function classifyJulia(run: StepResult): RunOutcome {
  const text = `${run.stdout}\n${run.stderr}`;
  if (/OutOfMemoryError/.test(text))
    return { status: 'oom', exception: { type: 'OutOfMemoryError', message: firstLine(text, /OutOfMemoryError/) ?? 'out of memory' } };
  if (run.signal) return killedBy(run);
  if (/ParseError|LoadError: syntax:|^ERROR: syntax:/m.test(text))
    return {
      status: 'compile_error',
      exception: { type: 'ParseError', message: firstLine(text, /ParseError|syntax:/) ?? 'parse error', traceback: text.slice(-4000) },
    };
  if (/Test Failed|Some tests did not pass/.test(text))
    return {
      status: 'failed',
      exception: {
        type: 'TestFailure',
        message: (firstLine(text, /Test Failed|Expression:/) ?? 'a @test failed').slice(0, 2000),
        traceback: text.slice(-4000),
      },
    };
  const thrown = /^ERROR: (?:LoadError: )?(\w+)(?:\((.*)\))?/m.exec(text);
  if (thrown)
    return { status: 'error', exception: { type: thrown[1]!, message: (thrown[2] ?? '').slice(0, 2000), traceback: text.slice(-4000) } };
  return exitedWith(run);
}

export function jlToolchain(): Toolchain {
  return {
    language: 'jl',
    name: 'Julia',
    check: () => probeVersion('julia', ['--version'], 'julia', JULIA_INSTALL),
    mounts: () => [],
    files: (program) => ({ 'program.jl': program }),
    compile: () => null,
    run: (limits) => ({
      kind: 'sandbox',
      argv: ['julia', `${BUILD_DIR}/program.jl`],
      env: { LANG: 'C.UTF-8', HOME: '/tmp', JULIA_DEPOT_PATH: '/tmp/julia-depot:' },
      limits: runLimits(limits, 'data'),
    }),
    classify: classifyJulia,
  };
}
