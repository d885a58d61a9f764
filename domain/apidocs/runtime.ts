/**
 * Running programs written against a dataset's library: the one place that knows each runtime
 * kind. A program is a solution (the model's code, which must use the library as its users know
 * it) and the rest (tests and the check call, written by the dataset's authors: for a renamed
 * library in the original names, so only the solution is checked and mapped back).
 */
import type { LibraryRuntime, PreparedProgram } from './library.js';
import { prepareModuleProgram } from './moduleRuntime.js';
import { prepareRenamedProgram, presentRenamedOutput } from './renamedRuntime.js';

export function prepareProgram(runtime: LibraryRuntime | undefined, parts: { solution: string; rest: string }): PreparedProgram {
  const joined = parts.rest ? `${parts.solution}\n${parts.rest}` : parts.solution;
  if (!runtime || runtime.kind === 'builtin') return { ok: true, program: joined };
  if (runtime.kind === 'module') return prepareModuleProgram(runtime, joined);
  return prepareRenamedProgram(runtime, parts);
}

/** What a program printed or raised, in the names the model knows (renamed libraries hide the originals). */
export function presentOutput(runtime: LibraryRuntime | undefined, text: string): string {
  if (!runtime || runtime.kind !== 'renamed') return text;
  return presentRenamedOutput(runtime, text);
}
