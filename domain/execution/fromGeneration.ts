/**
 * Turns a model's extracted code into the program the sandbox runs, whichever API produced it and
 * whatever form the dataset has.
 */
import { isStatementTask, type SweepProblem } from '../datasets/problems.js';
import type { LlmApi } from '../llm/request.js';
import { completionPrompt } from '../methods/direct/request.js';
import { fullProgram } from './program.js';

/** The prompt's leading import lines: chat answers often drop them (`from typing import List`). */
function promptImports(prompt: string): string {
  const lines: string[] = [];
  for (const line of prompt.split('\n')) {
    if (/^\s*(def|class|@)\b/.test(line)) break;
    if (/^(import|from)\s/.test(line)) lines.push(line);
  }
  return lines.length ? lines.join('\n') + '\n' : '';
}

function definesEntryPoint(code: string, entryPoint: string): boolean {
  return new RegExp(`^\\s*(async\\s+)?def\\s+${entryPoint.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*\\(`, 'm').test(code);
}

function indentBody(code: string): string {
  const lines = code.split('\n');
  const indented = lines.some((l) => /^[ \t]+\S/.test(l)) || lines.every((l) => l.trim() === '');
  return indented ? code : lines.map((l) => (l.trim() ? `    ${l}` : l)).join('\n');
}

/**
 * The solution a generation stands for — the program without its test, as bigcode's harness saves
 * generations (prompt included):
 * - completions API: the text continues the prompt (for full-program tasks, the prompt without its
 *   `raise NotImplementedError()` line);
 * - chat API: a complete function runs as is after the prompt's imports; a bare body is put under
 *   the prompt's signature;
 * - saved (evaluate-only): the generation is already such a solution.
 */
export function solutionFromGeneration(problem: SweepProblem, api: LlmApi | 'saved', code: string): string {
  if (api === 'saved') return code;
  if (api === 'completions') return completionPrompt(problem) + code;
  if (isStatementTask(problem)) return statementSolution(problem, code);
  if (definesEntryPoint(code, problem.entry_point)) return promptImports(problem.prompt) + code;
  return completionPrompt(problem) + indentBody(code);
}

export function programFromGeneration(problem: SweepProblem, api: LlmApi | 'saved', code: string): string {
  return fullProgram({ test: problem.test, entryPoint: problem.entry_point, completion: solutionFromGeneration(problem, api, code) });
}

/**
 * A chat answer to a statement task: the whole script when it contains the prompt's unfinished
 * last line (what the prompt asks for), else a continuation of that line.
 */
function statementSolution(problem: SweepProblem, code: string): string {
  const last = problem.prompt.trimEnd().split('\n').pop()!.trim();
  if (last && code.includes(last)) return promptImports(problem.prompt) + code;
  const prompt = completionPrompt(problem);
  return prompt.endsWith('\n') ? prompt + code.trimStart() : `${prompt} ${code.trimStart()}`;
}
