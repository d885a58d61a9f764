/**
 * A new kind of score plugs in from the family's folder alone: the throwaway Words family gains a
 * length ratio (test/support/words-length-ratio.ts: its declaration, its tests printing the lengths,
 * its score), added with the registry line a family's folder needs and nothing else. Its samples are
 * scored through the one scoring path (real sandbox), and the kind appears, from its declaration, in
 * the records, results.json, bigcode's metrics, the progress view, the report (loaded from S3 as a
 * sweep's), compare (cells read from S3 as scripts/compare.ts reads them) and evaluate.ts's output
 * (its main, run in this process so that it sees the registry line).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';

// The two lines a new family adds: its id in ids.ts, its definition in the registry.
vi.mock('../../domain/families/ids.js', async (importOriginal) => {
  const ids = await importOriginal<typeof import('../../domain/families/ids.js')>();
  const FAMILY_IDS = [...ids.FAMILY_IDS, 'words'] as const;
  return { ...ids, FAMILY_IDS, FamilyIdSchema: z.enum(FAMILY_IDS) };
});
vi.mock('../../domain/families/registry.js', async (importOriginal) => {
  const registry = await importOriginal<typeof import('../../domain/families/registry.js')>();
  const { wordsWithLengthRatio } = await import('../support/words-length-ratio.js');
  return { ...registry, ...registry.createRegistry({ ...registry.FAMILIES, words: wordsWithLengthRatio as never }) };
});

const { loadEvaluateProblems } = await import('../../scripts/lib/evaluate-problems.js');
const { scoreAnswers } = await import('../../infra/scoring/scoreAnswers.js');
const { SandboxPool } = await import('../../infra/sandbox/pool.js');
const { memoryReferenceOutputs } = await import('../../infra/referenceOutputs.js');
const { resultsJson } = await import('../../domain/sweep/results.js');
const { cellFileKey, sweepResultsKey } = await import('../../domain/sweep/keys.js');
const { formatResultsTable } = await import('../../scripts/lib/sweep-view.js');
const { loadComparedCells } = await import('../../activities/storage/compare.js');
const { compareCells } = await import('../../domain/compare/compare.js');
const { formatComparison } = await import('../../domain/compare/format.js');
const { loadSweepReportData } = await import('../../activities/storage/report.js');
const { renderSweepReport } = await import('../../domain/report/html.js');
const { putObject } = await import('../../infra/s3.js');
const { testConfig, uniqueSuffix } = await import('../support/config.js');
const { testBucket } = await import('../support/s3.js');

const ROWS = [
  { id: 'w/0', word: 'abc', method: 'upper' },
  { id: 'w/1', word: 'Hello World', method: 'swapcase' },
  { id: 'w/2', word: 'xy', method: 'title' },
];
const rowsText = ROWS.map((r) => JSON.stringify(r) + '\n').join('');
const right = (method: string) => `    return s.${method}()\n`;
const doubled = (method: string) => `    return (s + s).${method}()\n`;
const raises = '    raise ValueError("no answer")\n';
/** Per model, each task's two completions: `good` answers right; `long` doubles the word (ratio 2) or raises (no ratio). */
const COMPLETIONS: Record<string, (method: string, task: number) => string[]> = {
  good: (m) => [right(m), right(m)],
  long: (m, task) => (task === 2 ? [raises, doubled(m)] : [doubled(m), right(m)]),
};

const { config } = testConfig();
const bucket = testBucket(config);
const sandboxes = new SandboxPool({ concurrency: 2 });
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-throwaway-score-'));
const sweepId = `throwaway-score-${uniqueSuffix()}`;

afterAll(() => sandboxes.close());

async function scoreModel(model: string) {
  const { problems } = loadEvaluateProblems({ text: rowsText, source: 'words.jsonl' });
  const answers = problems.flatMap((_problem, taskIndex) =>
    COMPLETIONS[model]!(ROWS[taskIndex]!.method, taskIndex).map((completion, sampleIndex) => ({
      taskIndex,
      sampleIndex,
      generation: { raw: completion, code: completion, api: 'completions' as const },
    })),
  );
  const cell = { cell: `words.${model}`, dataset: 'words', model, method: 'direct', temperature: 0.2, n_samples: 2 };
  return scoreAnswers(
    {
      problems,
      answers,
      k: [1],
      cell,
      runnerFor: (language, runtime, dirs) => sandboxes.forLanguage(language, runtime, dirs),
      references: memoryReferenceOutputs(),
      timeoutMs: 10_000,
      inFlight: 2,
    },
    'now',
  );
}

describe('a score of a new kind, declared by the family', () => {
  it('is kept per sample, folded per cell, and shown in results, the peer files, the progress view, the report and compare', async () => {
    const good = await scoreModel('good');
    const long = await scoreModel('long');
    // The records: the kind's own fields (a raising answer has no ratio).
    expect(long.scored.map((s) => s.record.score)).toEqual([
      { kind: 'length', ratio: 2 },
      { kind: 'length', ratio: 1 },
      { kind: 'length', ratio: 2 },
      { kind: 'length', ratio: 1 },
      { kind: 'length', ratio: null },
      { kind: 'length', ratio: 2 },
    ]);
    expect(long.scored.map((s) => s.record.passed)).toEqual([false, true, false, true, false, false]);
    // The cell: per task 1.5, 1.5, 2 (the raising sample left out), their mean over tasks.
    expect(good.summary.scores).toEqual({ kind: 'length_ratio', meanRatio: 1, tasks: 3 });
    expect(long.summary.scores).toEqual({ kind: 'length_ratio', meanRatio: (1.5 + 1.5 + 2) / 3, tasks: 3 });
    expect(long.summary.passAtK['pass@1']).toBeCloseTo(1 / 3, 12);
    expect(long.results.scores).toEqual({ mean_length_ratio: (1.5 + 1.5 + 2) / 3, tasks_measured: 3 });
    expect((long.results.per_task as Array<{ length_ratio: number }>).map((t) => t.length_ratio)).toEqual([1.5, 1.5, 2]);
    // bigcode's metrics and the samples file.
    expect(JSON.parse(long.files['evaluation_results.json']!).words).toEqual({
      'pass@1': long.summary.passAtK['pass@1'],
      length_ratio: (1.5 + 1.5 + 2) / 3,
    });
    expect(JSON.parse(long.files['samples.jsonl']!.split('\n')[4]!)).toMatchObject({
      task_id: 'w/2',
      score: { kind: 'length', ratio: null },
    });
    // The progress view's results table.
    expect(formatResultsTable([good.summary, long.summary])).toContain('words.long: length ratio 1.6667 over 3 tasks');

    // Stored as a sweep stores its results, read back by the report's and compare's loaders.
    const summaries = [good, long].map((s) => ({
      ...s.summary,
      resultsKey: cellFileKey(sweepId, String(s.summary.cell.cell), 'results.json'),
    }));
    for (const [i, s] of [good, long].entries()) await putObject(bucket, summaries[i]!.resultsKey, resultsJson(s.results));
    await putObject(bucket, sweepResultsKey(sweepId), JSON.stringify({ sweep_id: sweepId, cells: summaries }));

    const data = await loadSweepReportData(bucket, sweepId);
    expect(data.cells.map((c) => c.scores)).toEqual([good.summary.scores, long.summary.scores]);
    const html = renderSweepReport(data, { chartLibrary: '' });
    const table = html.slice(html.indexOf('<table class="grid metrics" id="length-ratio-table">'));
    expect(table.slice(0, table.indexOf('</table>'))).toMatch(
      /<th>length ratio<\/th><th>tasks<\/th>.*<td>long<\/td><td>direct<\/td><td class="num">0.2<\/td><td class="num">1\.667<\/td><td class="num">3<\/td>/s,
    );

    const cells = await loadComparedCells(bucket, [
      { sweepId, cellId: 'words.good' },
      { sweepId, cellId: 'words.long' },
    ]);
    const comparison = compareCells(cells, { bootstrap: { resamples: 500 } });
    const row = comparison.pairs[0]!.metrics.find((m) => m.metric === 'length ratio');
    expect(row).toMatchObject({ a: 1, b: (1.5 + 1.5 + 2) / 3, test: 'permutation-exact' });
    expect(row!.diff).toBeCloseTo(-2 / 3, 12);
    expect(formatComparison(comparison, { maxFlips: 5 })).toMatch(/^ {2}length ratio +1\.0000 +1\.6667 +-0\.6667 /m);
    // The same tasks in the report's comparison section.
    expect(html).toContain('length ratio');
  });

  it("is in evaluate.ts's output: its rows, its metrics line and results.json", async () => {
    const problemsFile = path.join(dir, 'words.jsonl');
    const samplesFile = path.join(dir, 'samples.jsonl');
    const outputDir = path.join(dir, 'out');
    writeFileSync(problemsFile, rowsText);
    writeFileSync(
      samplesFile,
      ROWS.flatMap((r, task) =>
        COMPLETIONS.long!(r.method, task).map((completion) => JSON.stringify({ task_id: r.id, completion }) + '\n'),
      ).join(''),
    );
    const argv = process.argv;
    const stdout: string[] = [];
    const stderr: string[] = [];
    const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (stdout.push(String(chunk)), true));
    const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (stderr.push(String(chunk)), true));
    try {
      process.argv = [argv[0]!, 'scripts/evaluate.ts', '--problems', problemsFile, '--samples', samplesFile, '--output-dir', outputDir];
      await import('../../scripts/evaluate.js');
      await vi.waitFor(
        () => {
          if (process.exitCode) throw new Error(`evaluate.ts failed: ${stderr.join('')}`);
          expect(stdout.some((l) => l.startsWith('{'))).toBe(true);
        },
        { timeout: 60_000, interval: 100 },
      );
    } finally {
      process.argv = argv;
      out.mockRestore();
      err.mockRestore();
    }
    expect(process.exitCode ?? 0).toBe(0);
    expect(JSON.parse(stdout.find((l) => l.startsWith('{'))!)).toEqual({ 'pass@1': 1 / 3, length_ratio: (1.5 + 1.5 + 2) / 3 });
    const rows = readFileSync(`${samplesFile}_results.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.map((r) => r.length_ratio)).toEqual([2, 1, 2, 1, null, 2]);
    const results = JSON.parse(readFileSync(path.join(outputDir, 'results.json'), 'utf8')) as Record<string, unknown>;
    expect(results.scores).toEqual({ mean_length_ratio: (1.5 + 1.5 + 2) / 3, tasks_measured: 3 });
  });
});
