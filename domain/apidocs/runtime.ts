/**
 * Running programs written against a dataset's library: the one place that knows each runtime
 * kind. A program is a solution (the model's code, which must use the library as its users know
 * it) and the rest (tests and the check call, written by the dataset's authors: for a renamed
 * library in the original names, so only the solution is checked and mapped back). The language
 * puts the two together (domain/languages/).
 */
import type { LibraryRuntime, PreparedProgram } from './library.js';
import { prepareModuleProgram } from './moduleRuntime.js';
import { prepareRenamedSolution, presentRenamedOutput } from './renamedRuntime.js';

export type Assemble = (parts: { solution: string; tests: string }) => string;

/** Python's way, the default: the solution, then the rest on the next line. */
const joinLines: Assemble = ({ solution, tests }) => (tests ? `${solution}\n${tests}` : solution);

export function prepareProgram(
  runtime: LibraryRuntime | undefined,
  parts: { solution: string; rest: string },
  assemble: Assemble = joinLines,
): PreparedProgram {
  if (!runtime || runtime.kind === 'builtin') return { ok: true, program: assemble({ solution: parts.solution, tests: parts.rest }) };
  if (runtime.kind === 'module') return prepareModuleProgram(runtime, assemble({ solution: parts.solution, tests: parts.rest }));
  const prepared = prepareRenamedSolution(runtime, parts.solution);
  return prepared.ok ? { ok: true, program: assemble({ solution: prepared.program, tests: parts.rest }) } : prepared;
}

/** What a program printed or raised, in the names the model knows (renamed libraries hide the originals). */
export function presentOutput(runtime: LibraryRuntime | undefined, text: string): string {
  if (!runtime || runtime.kind !== 'renamed') return text;
  return presentRenamedOutput(runtime, text);
}
