/**
 * finalizeCell streams a cell's records shard by shard; its files must be byte for byte what the
 * former all-in-memory algorithm wrote (kept below as the oracle), against the real local S3.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSweepStorageActivities, type FinalizeCellInput } from '../../activities/storage/sweepFiles.js';
import { getBytes, putObject, type Bucket } from '../../infra/s3.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { familyOf } from '../../domain/families/registry.js';
import { parseJsonl } from '../../domain/datasets/jsonl.js';
import { estimateAtK } from '../../domain/metrics/passAtK.js';
import { cellFileKey, cellShardRecordsKey, sweepDatasetKey } from '../../domain/sweep/keys.js';
import { recordCost, SampleRecordSchema, type SampleRecord } from '../../domain/sweep/records.js';
import { summarizeCell, type CellSummary } from '../../domain/sweep/results.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { testBucket } from '../support/s3.js';

const { config } = testConfig();
let bucket: Bucket;
let tmp: string;
const previousTmp = process.env.TMPDIR;

beforeAll(() => {
  bucket = testBucket(config);
  // The activity's temporary files go here, so the test can see they are removed.
  tmp = mkdtempSync(path.join(os.tmpdir(), 'explora-finalize-test-'));
  process.env.TMPDIR = tmp;
});
afterAll(() => {
  if (previousTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previousTmp;
  rmSync(tmp, { recursive: true, force: true });
  bucket?.s3.destroy();
});

// ---------------------------------------------------------------------------------------------
// The oracle: finalizeCell and summarizeCell as they were before streaming (all records in memory).

function oldSummarizeCell(input: {
  problems: SweepProblem[];
  records: SampleRecord[];
  k: number[];
  cell: Record<string, unknown>;
  wallSeconds: number;
  resultsKey: string;
}) {
  const perTask = input.problems.map((p) => ({ task_id: p.task_id, n: 0, c: 0, s: 0, pipeline_length: familyOf(p).pipelineLength(p) }));
  const statusCounts: Record<string, number> = {};
  const unexecuted = new Set(input.records.filter((r) => r.status === 'not_executed').map((r) => r.task_index));
  for (const r of input.records) {
    const t = perTask[r.task_index]!;
    if (r.status !== 'not_executed') {
      t.n++;
      if (r.passed) t.c++;
      if (r.success) t.s++;
    }
    statusCounts[r.status] = (statusCounts[r.status] ?? 0) + 1;
  }
  const scored = unexecuted.size > 0 ? [] : perTask.filter((t) => t.n > 0);
  const pass = estimateAtK(
    scored.map((t) => ({ n: t.n, c: t.c })),
    input.k,
  );
  const success = estimateAtK(
    scored.map((t) => ({ n: t.n, c: t.s })),
    input.k,
  );
  const unexecutedSamples = input.records.filter((r) => r.status === 'not_executed').length;
  if (unexecutedSamples)
    pass.dropped = [`pass@k and success@k: ${unexecutedSamples} samples were not executed (generation-only), nothing is scored`];
  const costs = input.records.map(recordCost);
  const cost = {
    calls: costs.reduce((a, c) => a + c.calls, 0),
    promptTokens: costs.reduce((a, c) => a + c.prompt_tokens, 0),
    completionTokens: costs.reduce((a, c) => a + c.completion_tokens, 0),
    sandboxRuns: costs.reduce((a, c) => a + c.sandbox_runs, 0),
    wallSeconds: input.wallSeconds,
  };
  const byLength: Record<string, { tasks: number; pass_rate: number }> = {};
  for (const t of scored) {
    if (t.pipeline_length === undefined) continue;
    const b = (byLength[t.pipeline_length] ??= { tasks: 0, pass_rate: 0 });
    b.pass_rate = (b.pass_rate * b.tasks + t.c / t.n) / (b.tasks + 1);
    b.tasks++;
  }
  const named = (prefix: string, averages: Record<string, number>) =>
    Object.fromEntries(Object.entries(averages).map(([k, v]) => [`${prefix}@${k}`, v]));
  // Added with the 95% intervals (after the streaming rewrite): per k, the sample sd of the per-task
  // estimates over sqrt(T), and mean ± 1.96 SE clipped to [0, 1]; null with one task.
  const intervals = (prefix: string, est: ReturnType<typeof estimateAtK>) =>
    Object.fromEntries(
      est.ks.map((k) => {
        const ps = est.perTask.map((t) => t.atK[String(k)]!);
        const mean = ps.reduce((a, p) => a + p, 0) / ps.length;
        if (ps.length < 2) return [`${prefix}@${k}`, { stderr: null, low: null, high: null }];
        const se = Math.sqrt(ps.reduce((a, p) => a + (p - mean) ** 2, 0) / (ps.length - 1) / ps.length);
        return [`${prefix}@${k}`, { stderr: se, low: Math.max(0, mean - 1.96 * se), high: Math.min(1, mean + 1.96 * se) }];
      }),
    );
  const summary: CellSummary = {
    cell: input.cell,
    tasks: scored.length,
    samples: input.records.length,
    passAtK: named('pass', pass.averages),
    successAtK: named('success', success.averages),
    passAtKCI: intervals('pass', pass),
    successAtKCI: intervals('success', success),
    droppedK: pass.dropped,
    statusCounts,
    cost,
    resultsKey: input.resultsKey,
  };
  const summaryMetrics = () => ({ ...summary.passAtK, ...summary.successAtK });
  const results = {
    ...input.cell,
    tasks: scored.length,
    samples: input.records.length,
    ...summaryMetrics(),
    ci95: { ...summary.passAtKCI, ...summary.successAtKCI },
    dropped_k: pass.dropped,
    status_counts: statusCounts,
    cost: {
      calls: cost.calls,
      prompt_tokens: cost.promptTokens,
      completion_tokens: cost.completionTokens,
      sandbox_runs: cost.sandboxRuns,
      wall_seconds: cost.wallSeconds,
      calls_per_task: scored.length ? cost.calls / scored.length : 0,
      tokens_per_task: scored.length ? (cost.promptTokens + cost.completionTokens) / scored.length : 0,
    },
    ...(Object.keys(byLength).length ? { pass_rate_by_pipeline_length: byLength } : {}),
    per_task: perTask.map(({ pipeline_length, ...t }) => ({ ...t, ...(pipeline_length !== undefined ? { pipeline_length } : {}) })),
  };
  return { summary, results };
}

type FileName = 'generations.json' | 'references.json' | 'samples.jsonl' | 'results.json';

function oldFinalizeCell(
  problems: SweepProblem[],
  shardTexts: string[],
  input: FinalizeCellInput,
): { files: Record<FileName, string>; summary: CellSummary } {
  const records: SampleRecord[] = [];
  shardTexts.forEach((text, shard) => {
    for (const { row } of parseJsonl(text, SampleRecordSchema, `shard ${shard}`)) records.push(row);
  });
  records.sort((a, b) => a.task_index - b.task_index || a.sample_index - b.sample_index);
  const summary = oldSummarizeCell({
    problems,
    records,
    k: input.k,
    cell: input.cell,
    wallSeconds: input.wallSeconds,
    resultsKey: cellFileKey(input.sweepId, input.cellId, 'results.json'),
  });
  const generations: string[][] = problems.map(() => []);
  for (const r of records) generations[r.task_index]!.push(r.solution);
  const references = problems.map((p) => `${p.test}\ncheck(${p.entry_point})\n`);
  const samples = records
    .map((r) => {
      const p = problems[r.task_index]!;
      const completion = p.form === 'completion' && r.solution.startsWith(p.prompt) ? r.solution.slice(p.prompt.length) : r.solution;
      return JSON.stringify({ task_id: r.task_id, completion, result: r.status, passed: r.passed }) + '\n';
    })
    .join('');
  return {
    files: {
      'generations.json': JSON.stringify(generations),
      'references.json': JSON.stringify(references),
      'samples.jsonl': samples,
      'results.json': JSON.stringify(summary.results, null, 2) + '\n',
    },
    summary: summary.summary,
  };
}

// ---------------------------------------------------------------------------------------------
// The cell: 11 tasks, 3 samples each, of every kind of record.

const NAUGHTY = 'quotes " and \\ backslash\ttab, é, 🚀, \u2028 separator, lone \ud800 surrogate, </script>';

const problems: SweepProblem[] = Array.from({ length: 11 }, (_, i) => {
  const full = i >= 6;
  const prompt = full ? `def f${i}(x):\n    """${NAUGHTY}"""\n` : `def f${i}(x):\n    """Returns x (${i}) ${NAUGHTY}."""\n`;
  return {
    family: full ? 'pbe-world' : 'humaneval',
    task_id: full ? `PBE/${i}` : `HumanEval/${i}`,
    prompt,
    entry_point: `f${i}`,
    test: `def check(candidate):\n    assert candidate(${i}) == ${i}, "${NAUGHTY}"\n`,
    canonical_solution: '    return x\n',
    form: full ? 'full' : 'completion',
    ...(full ? { pipeline_length: 1 + (i % 3) } : {}),
  };
});

type Status = SampleRecord['status'];
/** Each task's samples' statuses; tasks 4 and 10 have no records, task 7's generations all failed. */
const TABLE: Record<number, Status[]> = {
  0: ['passed', 'passed', 'failed'],
  1: ['failed', 'failed', 'failed'],
  2: ['passed', 'llm_error', 'error'],
  3: ['passed', 'passed', 'passed'],
  5: ['timeout', 'passed', 'failed'],
  6: ['error', 'error', 'passed'],
  7: ['llm_error', 'llm_error', 'llm_error'],
  8: ['passed', 'failed', 'passed'],
  9: ['failed', 'passed', 'error'],
};
const WITH_METHOD_COST = new Set([0, 5, 9]);
const METHOD_COST = { calls: 2, prompt_tokens: 100, completion_tokens: 50, sandbox_runs: 3 };

function record(task: number, sample: number, status: Status, variant = ''): SampleRecord {
  const p = problems[task]!;
  const body = `    return x  # sample ${sample}${variant} ${NAUGHTY}\n`;
  // Task 1's sample 2 is a whole function that does not continue the prompt.
  const solution = p.form === 'completion' && !(task === 1 && sample === 2) ? p.prompt + body : `def f${task}(x):\n${body}`;
  const llmError = status === 'llm_error';
  return {
    task_id: p.task_id,
    task_index: task,
    sample_index: sample,
    raw: `raw ${task}/${sample}`,
    code: body,
    solution,
    status,
    passed: status === 'passed',
    success: status === 'passed' || status === 'failed',
    ...(status === 'error' ? { exception: { type: 'ValueError', message: `scripted ${NAUGHTY}` } } : {}),
    ...(llmError ? { llm_error: 'HTTP 500: model crashed' } : {}),
    duration_ms: status === 'timeout' ? 3000 : 12.5,
    prompt_tokens: llmError ? 0 : 10 + task,
    completion_tokens: llmError ? 0 : 5 + sample,
    calls: 1,
    llm_key: `llm/${task}/${sample}`,
    ...(WITH_METHOD_COST.has(task) ? { trace_key: `traces/${task}.json`, ...(sample === 0 ? { method_cost: METHOD_COST } : {}) } : {}),
  };
}

const allRecords = Object.entries(TABLE).flatMap(([t, statuses]) => statuses.map((s, i) => record(Number(t), i, s)));
const tasksOf = (lo: number, hi: number) => allRecords.filter((r) => r.task_index >= lo && r.task_index < hi);
/** A fixed shuffle, so that no shard file lists its records in order. */
const shuffled = <T>(xs: T[]): T[] =>
  xs
    .map((x, i) => ({ x, key: (i * 7 + 3) % 11 }))
    .sort((a, b) => a.key - b.key || 0)
    .map((e) => e.x);
const jsonl = (rs: SampleRecord[]) => rs.map((r) => JSON.stringify(r) + '\n').join('');

const K = [1, 2, 5];
const FILES: FileName[] = ['generations.json', 'references.json', 'samples.jsonl', 'results.json'];

async function setUpCell(shardTexts: Array<string | null>): Promise<FinalizeCellInput> {
  const sweepId = `finalize-${uniqueSuffix()}`;
  const cellId = 'ds.model.direct.t0.8';
  const datasetKey = sweepDatasetKey(sweepId, 'ds');
  await putObject(bucket, datasetKey, problems.map((p) => JSON.stringify(p) + '\n').join(''));
  for (const [shard, text] of shardTexts.entries())
    if (text !== null) await putObject(bucket, cellShardRecordsKey(sweepId, cellId, shard), text);
  return {
    sweepId,
    cellId,
    datasetKey,
    nSamples: 3,
    k: K,
    shards: shardTexts.length,
    wallSeconds: 12.25,
    cell: { cell: cellId, dataset: 'ds', model: 'model', method: 'direct', temperature: 0.8, n_samples: 3 },
  };
}

async function finalize(input: FinalizeCellInput): Promise<{ summary: CellSummary; beats: number }> {
  const env = new MockActivityEnvironment();
  let beats = 0;
  env.on('heartbeat', () => beats++);
  const summary = (await env.run(createSweepStorageActivities(bucket).finalizeCell, input)) as CellSummary;
  return { summary, beats };
}

/** The stored objects' bytes, and their text. */
async function stored(input: FinalizeCellInput): Promise<Record<FileName, { bytes: Buffer; text: string } | null>> {
  const out = {} as Record<FileName, { bytes: Buffer; text: string } | null>;
  for (const f of FILES) {
    const bytes = await getBytes(bucket, cellFileKey(input.sweepId, input.cellId, f));
    out[f] = bytes === null ? null : { bytes: Buffer.from(bytes), text: Buffer.from(bytes).toString('utf8') };
  }
  return out;
}

/** results.json's text without its last key, `provenance` (checked to be there), as results.json writes it. */
function withoutProvenance(text: string): Buffer {
  const { provenance, ...rest } = JSON.parse(text) as Record<string, unknown>;
  expect(Object.keys(JSON.parse(text)).at(-1)).toBe('provenance');
  expect(provenance).toMatchObject({ dataset_sha256: expect.stringMatching(/^[0-9a-f]{64}$/), runtime: { node: process.version } });
  return Buffer.from(JSON.stringify(rest, null, 2) + '\n', 'utf8');
}

/** Every file byte for byte as the old algorithm wrote it, and the same summary. */
async function expectAsBefore(input: FinalizeCellInput, shardTexts: string[], summary: CellSummary) {
  const expected = oldFinalizeCell(problems, shardTexts, input);
  const got = await stored(input);
  const text = {} as Record<FileName, string>;
  for (const f of FILES) {
    expect(got[f], f).not.toBeNull();
    // results.json ends with the cell's provenance (worker versions, hashes), which the old algorithm
    // did not write: the rest must be byte for byte as before.
    const bytes = f === 'results.json' ? withoutProvenance(got[f]!.text) : got[f]!.bytes;
    expect(bytes.equals(Buffer.from(expected.files[f], 'utf8')), `${f} differs:\n${got[f]!.text}\n---\n${expected.files[f]}`).toBe(true);
    text[f] = got[f]!.text;
  }
  expect(JSON.stringify(summary)).toBe(JSON.stringify(expected.summary));
  expect(readdirSync(tmp)).toEqual([]);
  return text;
}

describe('finalizeCell, a shard at a time', () => {
  // Shards as the cell workflow makes them: 3 tasks each, in task order; records shuffled within.
  const contiguous = [tasksOf(0, 3), tasksOf(3, 6), tasksOf(6, 9), tasksOf(9, 11)].map((rs) => jsonl(shuffled(rs)));

  it('writes exactly the files and summary of the in-memory algorithm, with the numbers the records imply', async () => {
    const input = await setUpCell(contiguous);
    const { summary, beats } = await finalize(input);
    expect(beats).toBe(input.shards);
    const got = await expectAsBefore(input, contiguous, summary);

    // The numbers, from the table: 9 scored tasks of 3 samples each (failed generations count as
    // failed samples).
    const results = JSON.parse(got['results.json']!);
    const per = Object.entries(TABLE).map(([t, st]) => ({
      t: Number(t),
      n: st.length,
      c: st.filter((s) => s === 'passed').length,
      s: st.filter((s) => s === 'passed' || s === 'failed').length,
    }));
    expect(results.tasks).toBe(9);
    expect(results.samples).toBe(27);
    expect(results['pass@1']).toBeCloseTo(11 / 27, 12);
    expect(results['pass@2']).toBeCloseTo(17 / 27, 12); // per task 1 - C(3-c,2)/C(3,2) for c = 0..3: 0, 2/3, 1, 1
    expect(results['success@1']).toBeCloseTo(18 / 27, 12);
    expect(results['success@2']).toBeCloseTo(per.reduce((a, { s }) => a + (s === 0 ? 0 : s === 1 ? 2 / 3 : 1), 0) / 9, 12);
    expect(results['pass@5']).toBeUndefined();
    expect(results.dropped_k).toEqual(['k=5: larger than the smallest number of samples of a task (n=3)']);
    expect(results.status_counts).toEqual({ passed: 11, failed: 7, llm_error: 4, error: 4, timeout: 1 });
    expect(Object.keys(results.status_counts)).toEqual(['passed', 'failed', 'llm_error', 'error', 'timeout']);
    const tokens =
      allRecords.reduce((a, r) => a + r.prompt_tokens + r.completion_tokens, 0) +
      3 * (METHOD_COST.prompt_tokens + METHOD_COST.completion_tokens);
    expect(results.cost).toEqual({
      calls: 27 + 3 * METHOD_COST.calls,
      prompt_tokens: allRecords.reduce((a, r) => a + r.prompt_tokens, 0) + 3 * METHOD_COST.prompt_tokens,
      completion_tokens: allRecords.reduce((a, r) => a + r.completion_tokens, 0) + 3 * METHOD_COST.completion_tokens,
      sandbox_runs: 27 - 1 - 3 + 3 * METHOD_COST.sandbox_runs,
      wall_seconds: 12.25,
      calls_per_task: (27 + 6) / 9,
      tokens_per_task: tokens / 9,
    });
    expect(results.per_task.map((t: { n: number; c: number; s: number }) => [t.n, t.c, t.s])).toEqual(
      problems.map((_, i) => {
        const p = per.find((x) => x.t === i);
        return p ? [p.n, p.c, p.s] : [0, 0, 0];
      }),
    );
    // PBE tasks 6..9 scored (lengths 1 + i % 3): 6 → 1, 7 → 2, 8 → 3, 9 → 1.
    expect(results.pass_rate_by_pipeline_length).toEqual({
      '1': { tasks: 2, pass_rate: (1 / 3 + 1 / 3) / 2 },
      '2': { tasks: 1, pass_rate: 0 },
      '3': { tasks: 1, pass_rate: 2 / 3 },
    });
    expect(summary.passAtK).toEqual({ 'pass@1': results['pass@1'], 'pass@2': results['pass@2'] });
    // 95% intervals over the 9 tasks: pass@1's per-task c/n are 2/3, 0, 1/3, 1, 1/3, 1/3, 0, 2/3, 1/3
    // (sample sd 0.32394, SE 0.10798); every metric scored has one, in results.json as in the summary.
    expect(Object.keys(results.ci95)).toEqual(['pass@1', 'pass@2', 'success@1', 'success@2']);
    expect(results.ci95['pass@1'].stderr).toBeCloseTo(0.10798059064528333, 12);
    expect(results.ci95['pass@1'].low).toBeCloseTo(0.19576544974265211, 12);
    expect(results.ci95['pass@1'].high).toBeCloseTo(0.6190493650721628, 12);
    expect({ ...summary.passAtKCI, ...summary.successAtKCI }).toEqual(results.ci95);

    const generations = JSON.parse(got['generations.json']!) as string[][];
    expect(generations.map((g) => g.length)).toEqual([3, 3, 3, 3, 0, 3, 3, 3, 3, 3, 0]);
    expect(generations[7]).toEqual([0, 1, 2].map((s) => record(7, s, 'llm_error').solution));
    const lines = got['samples.jsonl']!.trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.task_id)).toEqual(
      [...allRecords].sort((a, b) => a.task_index - b.task_index || a.sample_index - b.sample_index).map((r) => r.task_id),
    );
    expect(lines[0].completion).toBe(record(0, 0, 'passed').solution.slice(problems[0]!.prompt.length));
    expect(lines[5].completion).toBe(record(1, 2, 'failed').solution); // not a continuation of the prompt
    expect(JSON.parse(got['references.json']!)).toEqual(problems.map((p) => `${p.test}\ncheck(${p.entry_point})\n`));

    for (const f of FILES) {
      const head = await bucket.s3.send(new HeadObjectCommand({ Bucket: bucket.name, Key: cellFileKey(input.sweepId, input.cellId, f) }));
      expect(head.ContentType, f).toBe(f.endsWith('.jsonl') ? 'application/x-ndjson' : 'application/json');
    }

    // A retried activity writes the same objects again.
    const again = await finalize(input);
    expect(JSON.stringify(again.summary)).toBe(JSON.stringify(summary));
    for (const [f, v] of Object.entries(await stored(input)))
      expect(v!.bytes.equals(Buffer.from(got[f as FileName], 'utf8')), f).toBe(true);
  });

  it('a generation-only cell (samples saved, not executed) is not scored, whatever else it holds', async () => {
    // Task 0's samples all failed to generate; the others were saved without running.
    const rs = [0, 1, 2].flatMap((t) => [0, 1, 2].map((i) => record(t, i, t === 0 ? 'llm_error' : 'not_executed')));
    const input = await setUpCell([jsonl(rs)]);
    const { summary } = await finalize(input);
    expect(summary.tasks).toBe(0);
    expect(summary.samples).toBe(9);
    expect(summary.passAtK).toEqual({});
    expect(summary.successAtK).toEqual({});
    expect(summary.passAtKCI).toEqual({});
    expect(summary.droppedK).toEqual(['pass@k and success@k: 6 samples were not executed (generation-only), nothing is scored']);
    expect(summary.statusCounts).toEqual({ llm_error: 3, not_executed: 6 });
    await expectAsBefore(input, [jsonl(rs)], summary);
  });

  it('shards that overlap or come out of task order (another sharding) still give the same bytes, a window of tasks at a time', async () => {
    // Task 0 has no records here; task 3's sample 0 is recorded twice (equal keys keep shard order).
    const rs = allRecords.filter((r) => r.task_index !== 0);
    const t1s2 = rs.find((r) => r.task_index === 1 && r.sample_index === 2)!;
    const shards = [
      [...rs.filter((r) => r.task_index >= 6), t1s2],
      rs.filter((r) => r.task_index < 4 && r !== t1s2),
      [...rs.filter((r) => r.task_index === 5), record(3, 0, 'failed', ' (again)')],
      [],
    ].map((s) => jsonl(shuffled(s)));
    const input = await setUpCell(shards);
    const { summary, beats } = await finalize(input);
    expect(beats).toBeGreaterThan(input.shards); // it went through the merge
    const got = await expectAsBefore(input, shards, summary);
    const generations = JSON.parse(got['generations.json']!) as string[][];
    expect(generations[0]).toEqual([]);
    expect(generations[3]).toEqual([
      record(3, 0, 'passed').solution,
      record(3, 0, 'failed', ' (again)').solution,
      record(3, 1, 'passed').solution,
      record(3, 2, 'passed').solution,
    ]);
    expect(JSON.parse(got['results.json']!).per_task[3]).toEqual({ task_id: 'HumanEval/3', n: 4, c: 3, s: 4 });
  });

  it('a cell without records: every task an empty list, nothing scored', async () => {
    const shards = ['', ''];
    const input = await setUpCell(shards);
    const { summary } = await finalize(input);
    const got = await expectAsBefore(input, shards, summary);
    expect(got['generations.json']).toBe(JSON.stringify(problems.map(() => [])));
    expect(got['samples.jsonl']).toBe('');
    expect(summary.droppedK).toEqual(['k=1: no tasks to score', 'k=2: no tasks to score', 'k=5: no tasks to score']);
  });

  it('a missing shard fails the activity and writes nothing', async () => {
    const input = await setUpCell([contiguous[0]!, null, contiguous[2]!, contiguous[3]!]);
    await expect(finalize(input)).rejects.toThrow(`records of shard 1 of cell ${input.cellId} are missing`);
    expect(await stored(input)).toEqual({ 'generations.json': null, 'references.json': null, 'samples.jsonl': null, 'results.json': null });
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('summarizeCell, now over the accumulator, gives what it gave, in any record order', () => {
    const base = { problems, k: K, cell: { cell: 'c' }, wallSeconds: 1.5, resultsKey: 'r' };
    for (const records of [allRecords, shuffled(allRecords), []]) {
      expect(JSON.stringify(summarizeCell({ ...base, records }))).toBe(JSON.stringify(oldSummarizeCell({ ...base, records })));
    }
  });
});
