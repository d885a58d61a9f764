/**
 * C++ (MultiPL-E `cpp`): as its eval_cpp.py, `g++ program.cpp -o program -std=c++17`, then the
 * binary; exit 0 is OK, anything else Exception. MultiPL-E's tests use `assert`, which aborts
 * (SIGABRT) after printing "Assertion ... failed": `failed`; std::bad_alloc is `oom`; other
 * signals (SIGSEGV...) `killed`. Memory: RLIMIT_AS.
 */
import type { RunOutcome, StepResult, Toolchain } from '../contract.js';
import { exitedWith, firstLine, killedBy, probeVersion, runNativeProgram, sandboxCompile } from './common.js';

export function classifyCpp(run: StepResult): RunOutcome {
  const text = run.stderr;
  if (/std::bad_alloc|cannot allocate memory/.test(text))
    return { status: 'oom', exception: { type: 'std::bad_alloc', message: firstLine(text, /bad_alloc|allocate/) ?? 'out of memory' } };
  if (run.signal === 'SIGABRT' && /Assertion .* failed/.test(text))
    return {
      status: 'failed',
      exception: { type: 'AssertionError', message: (firstLine(text, /Assertion .* failed/) ?? '').slice(0, 2000) },
    };
  const uncaught = /terminate called after throwing an instance of '([^']+)'\n?\s*(?:what\(\):\s*(.*))?/.exec(text);
  if (uncaught) return { status: 'error', exception: { type: uncaught[1]!, message: uncaught[2] ?? '' } };
  if (run.signal) return killedBy(run);
  return exitedWith(run);
}

export function cppToolchain(): Toolchain {
  return {
    language: 'cpp',
    name: 'C++ (g++)',
    check: () => probeVersion('g++', ['--version'], 'g++', 'install g++ (Debian: apt-get install g++)', {}, { keepBetweenRuns: true }),
    mounts: () => [],
    files: (program) => ({ 'program.cpp': program }),
    compile: () => sandboxCompile(['g++', 'program.cpp', '-o', 'program', '-std=c++17']),
    run: runNativeProgram,
    classify: classifyCpp,
  };
}
