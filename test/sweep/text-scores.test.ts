/**
 * Tasks scored from their text (TaskChecking `text`): a throwaway family (test/support/phrases-family.ts)
 * plugged in with its two lines, whose samples are scored by bigcode's BLEU against the task's
 * reference. A cell folds its records into the corpus figures (each task's first sample only, as
 * bigcode's gen[0]), equal to bigcodeBleu over those pairs; no pass@k is shown as if it meant
 * something; results.json, bigcode's metric file, the results table, the report and evaluate.ts
 * show the metric; a set mixing text-scored and run tasks is refused.
 */
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { compareCells, ComparedTaskSchema } from '../../domain/compare/compare.js';

vi.mock('../../domain/families/ids.js', async (importOriginal) => {
  const ids = await importOriginal<typeof import('../../domain/families/ids.js')>();
  const FAMILY_IDS = [...ids.FAMILY_IDS, 'phrases'] as const;
  return { ...ids, FAMILY_IDS, FamilyIdSchema: z.enum(FAMILY_IDS) };
});
vi.mock('../../domain/families/registry.js', async (importOriginal) => {
  const registry = await importOriginal<typeof import('../../domain/families/registry.js')>();
  const { phrasesFamily } = await import('../support/phrases-family.js');
  return { ...registry, ...registry.createRegistry({ ...registry.FAMILIES, phrases: phrasesFamily as never }) };
});

const { bigcodeBleu } = await import('../../domain/metrics/bleu.js');
const { corpusMetricById, createRegistry, familyOf, FAMILIES } = await import('../../domain/families/registry.js');
const { BIGCODE_BLEU } = await import('../../domain/families/textScored.js');
const { scoreFields, totalsOfRecords } = await import('../../domain/sweep/records.js');
const { CellAccumulator, referenceOf, sampleLine } = await import('../../domain/sweep/results.js');
const { answerCode, corpusMetricOf, textCheckingOf, textScore } = await import('../../domain/sweep/textScores.js');
const { bigcodeMetricsJson, cellFigures } = await import('../../domain/sweep/peerFiles.js');
const { formatResultsTable } = await import('../../scripts/lib/sweep-view.js');
const { scoreAnswers } = await import('../../infra/scoring/scoreAnswers.js');
const { memoryReferenceOutputs } = await import('../../infra/referenceOutputs.js');
const { humanEvalRow } = await import('../../domain/scoring/sampleRecord.js');
const { renderSweepReport } = await import('../../domain/report/html.js');
const { synthReport } = await import('../report/support.js');
type SampleRecord = import('../../domain/sweep/records.js').SampleRecord;
type SweepProblem = import('../../domain/datasets/problems.js').SweepProblem;

const ROWS = [
  { id: 'p/0', intent: 'sort a list', snippet: 'a.sort()' },
  { id: 'p/1', intent: 'reverse a string', snippet: 's[::-1]' },
  { id: 'p/2', intent: 'join words with commas', snippet: "', '.join(words)" },
];
const jsonl = (rows: readonly object[]) => rows.map((r) => JSON.stringify(r) + '\n').join('');
const rowsText = jsonl(ROWS);
const { PHRASES_EXACT_MATCH, phrasesFamily } = await import('../support/phrases-family.js');
const problems: SweepProblem[] = phrasesFamily.load({
  entry: { name: 'ph', family: 'phrases', path: 'rows.jsonl' },
  texts: { rows: rowsText },
  sources: { rows: 'rows.jsonl' },
}).problems;

// Per task, its samples' generations; sample 0 is what bigcode scores.
const GENERATIONS = [
  ['a.sort()', 'sorted(a)'],
  ['s[::-1] ', 'reversed(s)'],
  ["'-'.join(w)", "', '.join(words)"],
];

/** The record executeShard makes of a text-scored sample. */
function record(task: number, sample: number, generation: string, status: 'scored' | 'llm_error' = 'scored'): SampleRecord {
  const problem = problems[task]!;
  const solution = familyOf(problem).solution(problem, 'saved', generation);
  const checking = textCheckingOf(problem)!;
  return {
    task_id: problem.task_id,
    task_index: task,
    sample_index: sample,
    raw: generation,
    code: generation,
    solution,
    status,
    ...scoreFields(textScore(checking, solution)),
    duration_ms: 0,
    prompt_tokens: 3,
    completion_tokens: 2,
    calls: 1,
  };
}

const records = GENERATIONS.flatMap((gens, t) => gens.map((g, s) => record(t, s, g)));

function summarize(rs: SampleRecord[]) {
  const acc = new CellAccumulator(problems);
  for (const r of rs) acc.add(r);
  return acc.summary({
    k: [1, 2],
    cell: { cell: 'c1', dataset: 'ph', model: 'm', method: 'direct', temperature: 0.2, n_samples: 2 },
    wallSeconds: 1,
    resultsKey: 'k',
  });
}

describe('a text-scored family in a cell', () => {
  it("folds each task's first sample into bigcode's BLEU, the same figures as bigcodeBleu over those pairs", () => {
    const { summary, results } = summarize(records);
    const expected = bigcodeBleu(
      GENERATIONS.map((g) => g[0]!.trim()),
      ROWS.map((r) => r.snippet),
    );
    expect(summary.scores?.kind).toBe('text');
    if (summary.scores?.kind !== 'text') return;
    expect(summary.scores).toMatchObject({ metric: 'bleu', headline: 'bleu', samplesScored: 'first', samples: 3 });
    expect(expected.bleu).toBeGreaterThan(0.1);
    expect(expected.bleu).toBeLessThan(0.9);
    expect((summary.scores.figures as Record<string, unknown>).bleu).toBeCloseTo(expected.bleu, 12);
    expect((summary.scores.figures as Record<string, unknown>).precisions).toEqual(expected.precisions);
    expect(summary.scores.figures as Record<string, unknown>).toEqual({ ...expected });
    // Every sample is counted as a sample; none is a pass.
    expect(summary.statusCounts).toEqual({ scored: 6 });
    expect(summary.samples).toBe(6);
    expect(summary.tasks).toBe(3);
    expect(summary.cost.sandboxRuns).toBe(0);
    expect(summary.passAtK).toEqual({});
    expect(summary.successAtK).toEqual({});
    expect(summary.droppedK).toEqual(['pass@k and success@k: the samples are scored from their text by bleu, not run; see scores']);
    expect(results).toMatchObject({ scores: { metric: 'bleu', samples_scored: 'first', samples: 3, bleu: expected.bleu } });
    expect(results).not.toHaveProperty('pass@1');
    // Per task, the statistics the metric scored (the first sample's): a comparison recomputes the same figure from them.
    const tasks = z.array(ComparedTaskSchema).parse(results.per_task);
    expect(tasks.map((t) => ((t as Record<string, unknown>).text as { samples: number } | undefined)?.samples)).toEqual([1, 1, 1]);
    const compared = { dataset: 'ph', model: 'm', method: 'direct', temperature: 0.2, nSamples: 2, k: [1], corpusMetric: 'bleu', tasks };
    const [m] = compareCells([
      { ref: 's/a', ...compared },
      { ref: 's/b', ...compared },
    ]).pairs[0]!.metrics;
    expect(m).toMatchObject({ metric: 'bleu', test: 'paired-bootstrap', diff: 0, p: 1 });
    expect(m!.a).toBeCloseTo(expected.bleu, 12);
  });

  it('the figures do not depend on the order samples come in, nor on the other samples', () => {
    const other = GENERATIONS.flatMap((gens, t) => gens.map((g, s) => record(t, s, s === 0 ? g : 'something else entirely')));
    const a = summarize(records).summary.scores;
    expect(summarize(other).summary.scores).toEqual(a);
    expect(summarize([...records].reverse()).summary.scores).toEqual(a);
  });

  it("a sample without an answer (llm_error) is the task's empty prediction, as a model that wrote nothing", () => {
    const failed = records.map((r) => (r.task_index === 1 && r.sample_index === 0 ? record(1, 0, '', 'llm_error') : r));
    const { summary } = summarize(failed);
    const expected = bigcodeBleu(
      ['a.sort()', '', "'-'.join(w)"],
      ROWS.map((r) => r.snippet),
    );
    expect(summary.scores?.kind === 'text' && (summary.scores.figures as Record<string, unknown>).bleu).toBeCloseTo(expected.bleu, 12);
    expect(summary.statusCounts).toEqual({ scored: 5, llm_error: 1 });
  });

  it('progress counts no pass for them (pass@1 so far: no task done)', () => {
    expect(totalsOfRecords(0, records)).toMatchObject({ samples: 6, tasksDone: 0, passSum: 0, sandboxRuns: 0, calls: 6 });
  });

  it("records, references.json, bigcode's metric file and the results table show the metric, not a pass", () => {
    const line = JSON.parse(sampleLine(problems[0]!, records[0]!));
    expect(line).toMatchObject({ task_id: 'p/0', completion: 'a.sort()', result: 'scored', passed: false, score: { kind: 'text' } });
    // 13a: "a . sort ( )"
    expect(line.score.stats).toMatchObject({ matches_1: 5, possible_1: 5, translation_length: 5, reference_length: 5 });
    expect(referenceOf(problems[1]!)).toBe('s[::-1]');
    const { summary } = summarize(records);
    const bigcode = JSON.parse(bigcodeMetricsJson(summary));
    expect(Object.keys(bigcode.ph).sort()).toEqual(
      ['bleu', 'brevity_penalty', 'length_ratio', 'precisions', 'reference_length', 'translation_length'].sort(),
    );
    const table = formatResultsTable([summary]);
    expect(table).toMatch(/c1: bleu 0\.\d{4}; precisions [\d. ]+; brevity_penalty/);
    expect(table).toContain("(bleu over each task's first sample: 3 samples)");
    expect(table).toContain('not scored: pass@k and success@k: the samples are scored from their text by bleu');
  });

  it('the report shows the metric in its scores and its best-per-dataset line, and the status scored', () => {
    const data = synthReport();
    const { summary } = summarize(records);
    const cell = { ...data.cells[0]!, ...summary, id: 'c1', dataset: 'ph', perTask: [] };
    const html = renderSweepReport({ ...data, cells: [...data.cells, cell], drilldown: [] }, { chartLibrary: '' });
    const bleu = summary.scores?.kind === 'text' ? ((summary.scores.figures as Record<string, unknown>).bleu as number) : NaN;
    expect(html).toMatch(/<table class="grid metrics" id="text-scores-table">[\s\S]*<td>bleu<\/td><td class="num">0\.\d{4}<\/td>/);
    expect(html).toContain(`<li><b>ph</b>: ${cell.model} · ${cell.method} · t${cell.temperature}, bleu ${bleu.toFixed(4)}</li>`);
    expect(html).toContain('scored from its text');
  });

  it('a set mixing text-scored and run tasks has no one score: refused by name', () => {
    const humaneval: SweepProblem = {
      family: 'humaneval',
      task_id: 'HumanEval/0',
      prompt: '',
      entry_point: 'f',
      test: '',
      form: 'completion',
    };
    expect(corpusMetricOf(problems, 'cell')?.id).toBe('bleu');
    expect(corpusMetricOf([humaneval], 'cell')).toBeNull();
    expect(() => corpusMetricOf([...problems, humaneval], 'cell')).toThrow(
      'cell: task HumanEval/0 is run in the sandbox, others are scored by bleu from their text; not in one cell',
    );
    expect(() => familyOf(problems[0]!).tests(problems[0]!, null)).toThrow(/scored from its text, never run/);
  });
});

describe("a family's own corpus metric", () => {
  const prose = phrasesFamily.load({
    entry: { name: 'ph', family: 'phrases', path: 'rows.jsonl' },
    texts: { rows: jsonl(ROWS.map((r) => ({ ...r, prose: true }))) },
    sources: { rows: 'rows.jsonl' },
  }).problems;

  it("is found by the id results store, from the family's declaration alone: a comparison recomputes it", () => {
    expect(corpusMetricOf(prose, 'cell')?.id).toBe('phrases-exact');
    expect(corpusMetricById('phrases-exact')).toBe(PHRASES_EXACT_MATCH);
    // Two cells of three tasks: a scores 3 of 6 samples right, b 6 of 6.
    const tasks = (right: number[]) => right.map((r, i) => ({ task_id: `p/${i}`, n: 2, c: 0, text: { samples: 2, stats: { exact: r } } }));
    const cell = { dataset: 'ph', model: 'm', method: 'direct', temperature: 0.2, nSamples: 2, k: [1], corpusMetric: 'phrases-exact' };
    const [m] = compareCells([
      { ref: 's/a', ...cell, tasks: tasks([1, 1, 1]) },
      { ref: 's/b', ...cell, tasks: tasks([2, 2, 2]) },
    ]).pairs[0]!.metrics;
    expect(m).toMatchObject({ metric: 'exact_match', a: 0.5, b: 1 });
  });

  it('is unknown without the declaration, and two families may not give one id two metrics', () => {
    const undeclared = createRegistry({ ...FAMILIES, phrases: { ...phrasesFamily, corpusMetrics: [BIGCODE_BLEU] } as never });
    expect(undeclared.corpusMetricById('phrases-exact')).toBeUndefined();
    expect(undeclared.corpusMetricById('bleu')).toBe(BIGCODE_BLEU);
    const twin = { ...PHRASES_EXACT_MATCH };
    expect(() =>
      createRegistry({
        ...FAMILIES,
        phrases: phrasesFamily as never,
        twin: { ...phrasesFamily, id: 'twin', corpusMetrics: [twin] } as never,
      }),
    ).toThrow("family twin declares a corpus metric phrases-exact, another family's metric's id");
  });
});

describe("a model's answer as a text-scored task reads it", () => {
  it("code families take the language's extraction; prose families (answer: 'reply') a chat reply whole, thinking stripped", () => {
    const [code] = phrasesFamily.load({
      entry: { name: 'ph', family: 'phrases', path: 'rows.jsonl' },
      texts: { rows: jsonl([ROWS[0]!, { ...ROWS[1]!, prose: true }]) },
      sources: { rows: 'rows.jsonl' },
    }).problems;
    const prose = phrasesFamily.load({
      entry: { name: 'ph', family: 'phrases', path: 'rows.jsonl' },
      texts: { rows: jsonl([{ ...ROWS[1]!, prose: true }]) },
      sources: { rows: 'rows.jsonl' },
    }).problems[0]!;
    const reply = '<think>hmm</think>\nThe code:\n```python\nx = 1\n```\nYES, it does.';
    expect(answerCode(code!, 'chat', reply, [])).toBe('x = 1');
    expect(answerCode(prose, 'chat', reply, [])).toBe('\nThe code:\n```python\nx = 1\n```\nYES, it does.');
    // Completions are cut at the stop words either way.
    expect(answerCode(prose, 'completions', 'YES\nmore', ['\n'])).toBe('YES');
    expect(answerCode(code!, 'completions', 'a.sort()\nmore', ['\n'])).toBe('a.sort()');
  });
});

describe('evaluate.ts on a text-scored family', () => {
  it("scores each task's first sample in the file, whatever the order of the rows, and keeps every row; no runner starts", async () => {
    const rows = [
      { task_id: 'p/1', completion: 's[::-1] ' },
      { task_id: 'p/0', completion: 'a.sort()' },
      { task_id: 'p/1', completion: 'reversed(s)' },
      { task_id: 'p/2', completion: "'-'.join(w)" },
    ];
    const seen = new Map<number, number>();
    const answers = rows.map((row) => {
      const taskIndex = problems.findIndex((p) => p.task_id === row.task_id);
      const sampleIndex = seen.get(taskIndex) ?? 0;
      seen.set(taskIndex, sampleIndex + 1);
      return { taskIndex, sampleIndex, generation: { raw: row.completion, code: row.completion, api: 'saved' as const } };
    });
    const out = await scoreAnswers(
      {
        problems,
        answers,
        k: [1],
        cell: { dataset: 'ph', n_samples: 2 },
        runnerFor: () => Promise.reject(new Error('no runner for text-scored samples')),
        references: memoryReferenceOutputs(),
        timeoutMs: 1000,
        inFlight: 4,
      },
      'now',
    );
    expect(out.summary.scores).toMatchObject({ kind: 'text', samples: 3 });
    expect(cellFigures(out.summary, 'evaluate')).toEqual({
      ...bigcodeBleu(['s[::-1]', 'a.sort()', "'-'.join(w)"], ['s[::-1]', 'a.sort()', "', '.join(words)"]),
    });
    const humanEval = rows.map((row, i) => humanEvalRow(row, out.scored[i]!.record, out.scored[i]!.run));
    expect(humanEval.map((r) => [r.task_id, r.result])).toEqual([
      ['p/1', 'scored'],
      ['p/0', 'scored'],
      ['p/1', 'scored'],
      ['p/2', 'scored'],
    ]);
    expect((humanEval[2]!.stats as Record<string, number>).matches_1).toBe(1);
  });
});
