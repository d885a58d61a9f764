/**
 * A task's requirement in words, as the planner's template states it for demos and target alike
 * (`[Task] <requirement> [Subtasks]`): for a programming-by-example task (PBE World) its shown
 * examples stated as a task; for a stub (HumanEval style, MonkeyEval, BeatNumEval) the prompt's
 * natural-language part (comments and docstrings); the prompt itself only when it has none.
 */
import type { ApiLibrary } from '../../domain/apidocs/library.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';

/** Examples quoted in a requirement: enough to show the task, few enough to keep it short. */
const MAX_EXAMPLES = 4;

function listInEnglish(items: string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** The prompt's comments and docstrings, in order of appearance kinds (comments, then docstrings). */
export function naturalLanguageOf(prompt: string): string {
  const parts: string[] = [];
  for (const m of prompt.matchAll(/^\s*#\s?(.*)$/gm)) if (m[1]!.trim()) parts.push(m[1]!.trim());
  for (const m of prompt.matchAll(/("""|''')([\s\S]*?)\1/g)) {
    const text = m[2]!
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .join(' ');
    if (text) parts.push(text);
  }
  return parts.join('\n');
}

export function taskRequirement(problem: SweepProblem, library: ApiLibrary): string {
  if (problem.examples?.length) {
    const shown = problem.examples.slice(0, MAX_EXAMPLES).map((e) => `${e.input} becomes ${e.output}`);
    const use = library.runtime.kind === 'module' ? ` Use the ${library.runtime.module} module.` : '';
    return `Write ${problem.entry_point}(s) that transforms the string s the same fixed way as these examples: ${listInEnglish(shown)}.${use}`;
  }
  return naturalLanguageOf(problem.prompt) || problem.prompt.trim();
}
