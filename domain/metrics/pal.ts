/**
 * PAL on GSM8K / GSM-HARD as bigcode-evaluation-harness scores it (tasks/gsm.py and
 * custom_metrics/pal_metric/): the program's answer is the last line of what it printed (stdout and
 * stderr share one stream there), stripped; a program that raised, timed out or printed nothing is
 * "failed: ...". Failed answers are dropped before choosing; greedy takes the first remaining
 * answer, majority voting the most common one (the first seen among equals); a task with no
 * remaining answer answers "". The chosen answer is right when |float(answer) - float(reference)|
 * < 1e-3; an answer or reference float() refuses scores 0 and counts in num_failed_execution.
 * bigcode reports {accuracy, num_failed_execution}; with one greedy sample per task accuracy is pass@1.
 */
import { pyFloat, pyIsIntLiteral, pySplit, pyStrip } from './pythonText.js';

/** The few-shot prompts' count: bigcode splits the generation at the 9th "# solution in Python:". */
export const PAL_SHOTS = 8;
export const PAL_TOLERANCE = 1e-3;
const FAILED = 'failed:';

export type PalRun = { kind: 'exited'; output: string } | { kind: 'raised'; message: string } | { kind: 'timed-out' };

export type PalMode = 'greedy' | 'majority_voting';

/**
 * bigcode's postprocess_generation: the program is what follows the last prompt's
 * "# solution in Python:" (the generation includes the prompt), cut before any "Q:", with
 * `print(solution())` appended.
 */
export function palProgram(generation: string): string {
  const parts = pySplit(generation, '# solution in Python:', PAL_SHOTS + 1);
  let program = pyStrip(parts[parts.length - 1]!);
  if (program.includes('Q:')) program = pySplit(program, 'Q:')[0]!;
  return `${program}\nprint(solution())`;
}

/** GSM8K's reference: after the last "#### ", commas removed, an int or a float when float() takes it, else the text. */
export function gsm8kReference(answer: string): number | string {
  const target = pyStrip(pySplit(answer, '#### ').at(-1)!);
  const plain = target.replaceAll(',', '');
  const value = pyFloat(plain);
  if (value === undefined) return target;
  return pyIsIntLiteral(plain) ? Number(pyStrip(plain).replaceAll('_', '')) : value;
}

/** What bigcode's run_program returns for one program: its answer string, or "failed: ...". */
export function palAnswer(run: PalRun): string {
  if (run.kind === 'timed-out') return `${FAILED} timed out`;
  if (run.kind === 'raised') return `${FAILED} ${run.message}`;
  // io.StringIO.readlines() splits after each "\n"; an empty stream has no last line (IndexError).
  if (run.output === '') return `${FAILED} list index out of range`;
  const lines = pySplit(run.output, '\n');
  const last = lines.length > 1 && lines.at(-1) === '' ? lines.at(-2)! : lines.at(-1)!;
  return pyStrip(last);
}

/**
 * Whether bigcode counts an answer as a failed run, left out of the vote: what run_program returns
 * for a run that gave none, and equally a program's own last line when it starts with "failed:".
 */
export function isFailedAnswer(answer: string): boolean {
  return answer.startsWith(FAILED);
}

/** The answer bigcode scores for one task, from its samples' answers in sample order. */
export function chooseAnswer(answers: readonly string[], mode: PalMode): string {
  const valid = answers.filter((a) => !isFailedAnswer(a));
  if (valid.length === 0) return '';
  if (mode === 'greedy') return valid[0]!;
  const counts = new Map<string, number>();
  for (const a of valid) counts.set(a, (counts.get(a) ?? 0) + 1);
  return majorityOf(counts)!;
}

/**
 * Counter.most_common()[0] of answers counted in sample order (a Map keeps first-seen order): the
 * most common, the first seen among equals; undefined for no answer. A cell's vote uses it on its
 * per-task tallies, so that it needs the distinct answers only, never every sample.
 */
export function majorityOf(counts: ReadonlyMap<string, number>): string | undefined {
  let best: string | undefined;
  let bestCount = 0;
  for (const [answer, count] of counts) {
    if (count > bestCount) {
      best = answer;
      bestCount = count;
    }
  }
  return best;
}

/** 1 when the answer is within the tolerance of the reference; undefined when float() refuses either. */
export function palScore(answer: string, reference: number | string): 0 | 1 | undefined {
  const a = pyFloat(answer);
  const r = typeof reference === 'number' ? reference : pyFloat(reference);
  if (a === undefined || r === undefined) return undefined;
  return Math.abs(a - r) < PAL_TOLERANCE ? 1 : 0;
}

export interface PalTask {
  reference: number | string;
  /** run_program's result per sample, in sample order (see palAnswer). */
  answers: readonly string[];
}

export interface PalResult {
  accuracy: number;
  num_failed_execution: number;
  perTask: Array<{ answer: string; correct: boolean }>;
}

/** bigcode's pal_code_exec.compute over every task's answers. */
export function palScores(tasks: readonly PalTask[], mode: PalMode): PalResult {
  if (tasks.length === 0) throw new RangeError('PAL scores of no tasks');
  let failed = 0;
  let correct = 0;
  const perTask = tasks.map(({ reference, answers }) => {
    const answer = chooseAnswer(answers, mode);
    const score = palScore(answer, reference);
    if (score === undefined) failed += 1;
    if (score === 1) correct += 1;
    return { answer, correct: score === 1 };
  });
  return { accuracy: correct / tasks.length, num_failed_execution: failed, perTask };
}
