/**
 * PAL on GSM8K and GSM-HARD (bigcode's pal-gsm8k-*, pal-gsmhard-*): rows in their owners' formats
 * (bad rows named by file, line and field), bigcode's prompt to the character, its postprocessing,
 * programs run in the real sandbox and their answers scored, and a cell's greedy and
 * majority-voting accuracy from its records, checked against domain/metrics/pal.ts's palScores
 * (itself checked against bigcode's pal_code_exec in test/metrics/).
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compareCells, ComparedTaskSchema } from '../../domain/compare/compare.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { palFamily, PalEntrySchema, palPrompt } from '../../domain/families/pal/index.js';
import { familyOf } from '../../domain/families/registry.js';
import type { TaskScore } from '../../domain/families/types.js';
import { LANGUAGES } from '../../domain/languages/registry.js';
import { palScores, type PalMode } from '../../domain/metrics/pal.js';
import { scoreFields, type SampleRecord } from '../../domain/sweep/records.js';
import { CellAccumulator } from '../../domain/sweep/results.js';
import { bigcodeMetricsJson } from '../../domain/sweep/peerFiles.js';
import { PythonExecutor } from '../../infra/sandbox/pythonExecutor.js';
import { loadEvaluateProblems } from '../../scripts/lib/evaluate-problems.js';
import { formatResultsTable } from '../../scripts/lib/sweep-view.js';
import { BIGCODE_SAVED_GENERATIONS, GSM8K_ROWS, GSM_HARD_ROWS, palJsonl } from '../support/pal-rows.js';

const entry = PalEntrySchema.parse({ name: 'gsm8k', family: 'pal', path: 'test.jsonl' });
const load = (text: string, source = 'test.jsonl') =>
  palFamily.load({ entry, texts: { rows: text }, sources: { rows: source } }).problems.map((p) => palFamily.read(p));

describe('PAL rows', () => {
  it("entries name JSON Lines or Hugging Face's Parquet export; another file is refused naming the field", () => {
    expect(PalEntrySchema.parse({ name: 'gsm8k', family: 'pal', path: 'main/test-00000-of-00001.parquet' }).path).toBe(
      'main/test-00000-of-00001.parquet',
    );
    const refused = PalEntrySchema.safeParse({ name: 'gsm8k', family: 'pal', path: 'test.csv' });
    expect(refused.success).toBe(false);
    expect(refused.error!.issues[0]!.path).toEqual(['path']);
  });

  it("GSM8K: a task per row, ids by index, the reference after '#### ' (commas dropped), no reference program", () => {
    const problems = load(palJsonl(GSM8K_ROWS));
    expect(problems.map((p) => [p.task_id, p.dataset, p.target])).toEqual([
      ['0', 'gsm8k', 18],
      ['1', 'gsm8k', 3],
      ['2', 'gsm8k', 70000],
    ]);
    expect(problems[0]!.prompt).toBe(palPrompt(GSM8K_ROWS[0]!.question));
    expect(palFamily.referenceSolution(problems[0]!)).toBeNull();
    const comma = load(palJsonl([{ ...GSM8K_ROWS[0]!, answer: 'So 1,000 in all.\n#### 1,000' }]));
    expect(comma[0]!.target).toBe(1000);
  });

  it("GSM-HARD: the input, its float target and its PAL program as the reference, run in bigcode's postprocessed form", () => {
    const problems = load(palJsonl(GSM_HARD_ROWS), 'gsmhardv2.jsonl');
    expect(problems.map((p) => [p.task_id, p.dataset, p.target])).toEqual([
      ['0', 'gsm-hard', -9867630],
      ['1', 'gsm-hard', 3],
    ]);
    expect(problems[1]!.prompt).toBe(palPrompt(GSM_HARD_ROWS[1]!.input));
    expect(palFamily.referenceSolution(problems[1]!)).toBe(`${GSM_HARD_ROWS[1]!.code}\nprint(solution())`);
  });

  it('bad rows are refused naming the file, the line and the field', () => {
    const gsm8k = palJsonl(GSM8K_ROWS).split('\n');
    const hard = palJsonl(GSM_HARD_ROWS).split('\n');
    const cases: Array<[string, string, string | RegExp]> = [
      [
        'test.jsonl',
        `${gsm8k[0]}\n${JSON.stringify({ ...GSM8K_ROWS[1]!, answer: 'It takes 3' })}\n`,
        /^test\.jsonl:2: answer: must end with "#### /,
      ],
      ['test.jsonl', `${gsm8k[0]}\n\n${JSON.stringify({ answer: '#### 3' })}\n`, /^test\.jsonl:3: question: /],
      ['gsmhardv2.jsonl', `${hard[0]}\n${JSON.stringify({ ...GSM_HARD_ROWS[1]!, target: '3' })}\n`, /^gsmhardv2\.jsonl:2: target: /],
      ['gsmhardv2.jsonl', `${hard[0]}\n${JSON.stringify(GSM8K_ROWS[1])}\n`, /^gsmhardv2\.jsonl:2: input: /],
      ['test.jsonl', `${gsm8k[0]}\n{"question": \n`, /^test\.jsonl:2: not valid JSON/],
      ['empty.jsonl', '\n', 'empty.jsonl has no tasks'],
    ];
    for (const [source, text, message] of cases) expect(() => load(text, source), text).toThrow(message);
  });

  it("the prompt is bigcode's to the character (its tests/data/pal-gsm8k-greedy_prompt.json, for the question 'test')", () => {
    const prompt = palPrompt('test');
    expect(prompt.length).toBe(4101);
    expect(createHash('sha256').update(prompt).digest('hex')).toBe('dce6308ca2407dd632af747d71b57724d1e1142bd765146f2bb95c78e8684be4');
    expect(
      prompt.startsWith(
        'Q: Olivia has $23. She bought five bagels for $3 each. How much money does she have left?\n\n# solution in Python:\n\n\ndef solution():\n',
      ),
    ).toBe(true);
    expect(prompt.endsWith('    return result\n\n\n\n\n\nQ: test\n\n# solution in Python:\n\n\n')).toBe(true);
    expect(palFamily.stopWords(entry)).toEqual(['\n\n\n']);
  });

  it("a generation becomes bigcode's program: after the prompt's last marker, cut at 'Q:', then print(solution())", () => {
    const [problem] = load(palJsonl(GSM8K_ROWS.slice(1, 2)));
    const completion = 'def solution():\n    return 2 + 1';
    expect(palFamily.solution(problem!, 'completions', `${completion}\n\n\n`)).toBe(`${completion}\nprint(solution())`);
    // The text before 'Q:' keeps its trailing newlines (bigcode strips before it cuts).
    expect(palFamily.solution(problem!, 'chat', `${completion}\n\nQ: next`)).toBe(`${completion}\n\n\nprint(solution())`);
    // bigcode's saved generations are programs already; a saved completion without the print is postprocessed.
    expect(palFamily.solution(problem!, 'saved', BIGCODE_SAVED_GENERATIONS[1]!)).toBe(BIGCODE_SAVED_GENERATIONS[1]);
    expect(palFamily.solution(problem!, 'saved', completion)).toBe(`${completion}\nprint(solution())`);
  });

  it('evaluate.ts recognises either file from its first row, after APPS', () => {
    expect(loadEvaluateProblems({ text: palJsonl(GSM8K_ROWS), source: 'test.jsonl' }).family).toBe('pal');
    expect(loadEvaluateProblems({ text: palJsonl(GSM_HARD_ROWS), source: 'gsmhardv2.jsonl' }).family).toBe('pal');
    expect(loadEvaluateProblems({ text: palJsonl(GSM8K_ROWS), source: 'test.jsonl' }).form).toBe('full');
  });
});

describe('PAL programs in the sandbox', () => {
  let executor: PythonExecutor;
  beforeAll(async () => {
    executor = new PythonExecutor({ limits: { timeoutMs: 10_000 } });
    await executor.start();
  });
  afterAll(() => executor.close());

  const [robe] = load(palJsonl(GSM8K_ROWS.slice(1, 2)));
  const [eggs] = load(palJsonl(GSM_HARD_ROWS.slice(0, 1)), 'gsmhardv2.jsonl');

  async function run(
    problem: SweepProblem,
    solution: string,
    timeoutMs = 3000,
  ): Promise<{ status: string; score: TaskScore; exception: string | undefined }> {
    const program = LANGUAGES.python.assemble({
      solution: palFamily.embedSolution(problem, solution),
      tests: palFamily.tests(problem, null),
    });
    const result = await executor.run({ id: 'pal', program, limits: palFamily.limits(problem, null, timeoutMs) });
    return { status: result.status, score: familyOf(problem).score(problem, result), exception: result.exception?.message };
  }
  const body = (lines: string) => `def solution():\n${lines}\nprint(solution())`;

  it.each([
    ['the right answer', body('    return 2 + 2 / 2'), 'passed', '3.0', true],
    ['within 1e-3 of it', body('    return 3.0009'), 'passed', '3.0009', true],
    // |3.001 - 3| is 0.000999... in floating point: within, as in bigcode.
    ['3.001, in floating point', body('    return 3.001'), 'passed', '3.001', true],
    // A wrong answer fails the run (an AssertionError naming both), after the harness reported it.
    ['just beyond', body('    return 3.0011'), 'failed', '3.0011', false],
    ['its last line, after debug output', `print("thinking")\n${body('    return 3')}`, 'passed', '3', true],
    [
      'standard error shares the stream',
      `${body('    return 3')}\nimport sys\nprint("warning", file=sys.stderr)`,
      'failed',
      'warning',
      false,
    ],
    ['a text answer is no number', body('    return "three"'), 'failed', 'three', false],
    ['__name__ is not "__main__"', `${body('    return 3')}\nif __name__ == "__main__":\n    print(4)`, 'passed', '3', true],
    ['a raised exception gives no answer', body('    return 1 / 0'), 'error', null, false],
    ['sys.exit() gives no answer', `import sys\nprint(3)\nsys.exit(0)`, 'error', null, false],
    ['printing nothing gives no answer', 'def solution():\n    return 3', 'error', null, false],
    // bigcode cannot tell it from its own "failed: <error>": a failed run, out of the vote.
    ['a last line "failed: ..." is a failed run', body('    return "failed: no idea"'), 'failed', null, false],
  ])('%s', async (_what, solution, status, answer, passed) => {
    const { status: ran, score } = await run(robe!, solution);
    expect(ran).toBe(status);
    expect(score).toMatchObject({
      kind: 'answer',
      answer,
      passed,
      comparable: answer !== null && answer !== 'three' && answer !== 'warning',
    });
  });

  it("GSM-HARD's reference program answers its target; a run out of time gives no answer", async () => {
    const reference = await run(eggs!, palFamily.referenceSolution(eggs!)!);
    expect(reference.score).toEqual({ kind: 'answer', passed: true, success: true, answer: '-9867630', comparable: true });
    const wrong = await run(eggs!, body('    return -9867631'));
    expect(wrong).toMatchObject({ status: 'failed', exception: "answer '-9867631', reference -9867630" });
    const slow = await run(eggs!, body('    while True:\n        pass'), 500);
    expect(slow.status).toBe('timeout');
    expect(slow.score).toEqual({ kind: 'answer', passed: false, success: false, answer: null, comparable: false });
  });
});

/** A sample's record as a shard stores it, with the run's status and score and nothing else of note. */
function sampleRecord(task: number, sample: number, status: SampleRecord['status'], score: TaskScore): SampleRecord {
  return {
    task_id: String(task),
    task_index: task,
    sample_index: sample,
    raw: '',
    code: '',
    solution: '',
    status,
    ...scoreFields(score),
    duration_ms: 1,
    prompt_tokens: 0,
    completion_tokens: 0,
    calls: 0,
  };
}

describe("a cell's greedy and majority-voting accuracy", () => {
  const problem = (i: number): SweepProblem => ({
    family: 'pal',
    task_id: String(i),
    prompt: '',
    entry_point: 'solution',
    test: '',
    form: 'completion',
  });
  const references = [9, 5, 2, 7, 6];
  /** Each task's samples' answers in sample order; null: the run gave none. */
  const answers: Array<Array<string | null>> = [
    ['9', '8', '9', '8', '8'], // greedy right, the vote wrong
    [null, '5.0', '4', '4', '5'], // greedy skips the failed run; '5.0' and '5' are two answers, '4' wins the vote
    [null, null], // no answer: "" for both, a failed execution
    ['seven', 'seven', '7'], // the vote's answer is no number: a failed execution; greedy too
    ['6', '7', '7', '6'], // a tie: the first seen wins the vote
  ];

  function records(): SampleRecord[] {
    return answers.flatMap((list, task) =>
      list.map((answer, sample) => {
        const correct = answer !== null && Math.abs(Number(answer) - references[task]!) < 1e-3;
        const score: TaskScore = {
          kind: 'answer',
          passed: correct,
          success: answer !== null,
          answer,
          comparable: answer !== null && !Number.isNaN(Number(answer)),
        };
        return sampleRecord(task, sample, answer === null ? 'error' : 'passed', score);
      }),
    );
  }

  it("matches palScores (bigcode pal_code_exec) on the same answers, and shows in results, the table and bigcode's file", () => {
    const acc = new CellAccumulator(references.map((_, i) => problem(i)));
    for (const r of records()) acc.add(r);
    const { summary, results } = acc.summary({
      k: [1],
      cell: { cell: 'c1', dataset: 'pal-gsm8k', n_samples: 5 },
      wallSeconds: 1,
      resultsKey: 'k',
    });
    const oracle = (mode: PalMode) =>
      palScores(
        answers.map((list, task) => ({ reference: references[task]!, answers: list.map((a) => a ?? 'failed: error') })),
        mode,
      );
    expect(oracle('greedy')).toMatchObject({ accuracy: 0.6, num_failed_execution: 2 });
    expect(oracle('majority_voting')).toMatchObject({ accuracy: 0.2, num_failed_execution: 2 });
    expect(summary.scores).toEqual({
      kind: 'voting',
      greedy: { accuracy: oracle('greedy').accuracy, numFailedExecution: oracle('greedy').num_failed_execution },
      majorityVoting: { accuracy: oracle('majority_voting').accuracy, numFailedExecution: oracle('majority_voting').num_failed_execution },
    });
    expect(results.scores).toEqual({
      greedy: { accuracy: 0.6, num_failed_execution: 2 },
      majority_voting: { accuracy: 0.2, num_failed_execution: 2 },
    });
    expect((results.per_task as Array<{ answers: unknown }>)[1]!.answers).toEqual([
      { answer: '5.0', votes: 1, correct: true },
      { answer: '4', votes: 2, correct: false },
      { answer: '5', votes: 1, correct: true },
    ]);
    // A comparison scores each task's vote from per_task alone: the same accuracies as the cell's.
    const tasks = z.array(ComparedTaskSchema).parse(results.per_task);
    const compared = { dataset: 'pal-gsm8k', model: 'm', method: 'direct', temperature: 0, nSamples: 5, k: [1], tasks };
    const metrics = compareCells([
      { ref: 's/a', ...compared },
      { ref: 's/b', ...compared },
    ]).pairs[0]!.metrics;
    expect(metrics.find((m) => m.metric === 'majority-voting accuracy')).toMatchObject({ a: 0.2, b: 0.2, diff: 0, p: 1 });
    expect(metrics.find((m) => m.metric === 'greedy accuracy')).toMatchObject({ a: 0.6, b: 0.6, diff: 0, p: 1 });
    // pass@1: the share of right samples, per task then averaged.
    expect(summary.passAtK['pass@1']).toBeCloseTo((2 / 5 + 2 / 5 + 0 + 1 / 3 + 2 / 4) / 5, 12);
    expect(formatResultsTable([summary])).toContain('c1: accuracy greedy 0.6000 (2 failed), majority voting 0.2000 (2 failed)');
    // Several samples per task: bigcode's pal-*-majority_voting figures lead.
    expect(JSON.parse(bigcodeMetricsJson(summary))['pal-gsm8k']).toMatchObject({
      accuracy: 0.2,
      num_failed_execution: 2,
      greedy: { accuracy: 0.6, num_failed_execution: 2 },
      majority_voting: { accuracy: 0.2, num_failed_execution: 2 },
    });
  });

  it('a program that prints "failed: ..." is out of the vote in a cell, as in bigcode and evaluate.ts', () => {
    // What each sample's program printed last; null: it raised. Task 0's "failed:" lines outnumber its answer.
    const printed: Array<Array<string | null>> = [
      ['failed: try again', 'failed: try again', '9'],
      ['failed: x', null],
      ['5', 'failed: 5', '4', '4'],
    ];
    const targets = [9, 5, 4];
    const tasks = targets.map((target, i) => ({ ...problem(i), dataset: 'gsm8k' as const, target }));
    const acc = new CellAccumulator(tasks);
    printed.forEach((list, task) =>
      list.forEach((line, sample) => {
        const stdout = line === null ? '' : `__explora_pal_answer__ ${JSON.stringify(line)}\n`;
        const right = line !== null && Number(line) === targets[task];
        const score = palFamily.score(palFamily.read(tasks[task]!), {
          status: line === null ? 'error' : right ? 'passed' : 'failed',
          stdout,
        });
        acc.add(sampleRecord(task, sample, right ? 'passed' : line === null ? 'error' : 'failed', score));
      }),
    );
    const { results } = acc.summary({ k: [1], cell: { cell: 'c1', dataset: 'pal-gsm8k', n_samples: 4 }, wallSeconds: 1, resultsKey: 'k' });
    // bigcode's pal_code_exec (palScores, checked against it in test/metrics/) on what the programs printed.
    const oracle = (mode: PalMode) =>
      palScores(
        printed.map((list, task) => ({ reference: targets[task]!, answers: list.map((a) => a ?? 'failed: error') })),
        mode,
      );
    expect(oracle('majority_voting')).toMatchObject({ accuracy: 2 / 3, num_failed_execution: 1 });
    expect(results.scores).toEqual({
      greedy: { accuracy: oracle('greedy').accuracy, num_failed_execution: oracle('greedy').num_failed_execution },
      majority_voting: {
        accuracy: oracle('majority_voting').accuracy,
        num_failed_execution: oracle('majority_voting').num_failed_execution,
      },
    });
  });
});
