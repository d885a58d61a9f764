/**
 * One way to score saved answers: for every family scripts/evaluate.ts reads, one saved set of
 * answers (bigcode's generations.json: each task's dataset solution, then another task's) is scored
 * through a sweep's activities (executeShard on saved generations, finalizeCell, the --output-dir
 * writer) and through evaluate.ts as a subprocess; the metrics, every sample's line, the cell's
 * files and the peers' files must be the same. Each family's answers are its own fixture, in its
 * folder (domain/families/<id>/fixtures.ts: small row sets of test/support/*-rows.ts).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxActivities } from '../../activities/sandbox/executeShard.js';
import { createSweepStorageActivities } from '../../activities/storage/sweepFiles.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { allFamilies, familyOf, type FamilyId } from '../../domain/families/registry.js';
import { cellFigures, cellScopeOf } from '../../domain/sweep/peerFiles.js';
import type { CellSummary } from '../../domain/sweep/results.js';
import { putObject } from '../../infra/s3.js';
import { SandboxPool } from '../../infra/sandbox/pool.js';
import { writeCellFiles } from '../../scripts/lib/cell-files.js';
import { loadEvaluateProblems } from '../../scripts/lib/evaluate-problems.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { onePathFixtureOf } from '../support/family-fixtures.js';
import { testBucket } from '../support/s3.js';
import { textOf } from '../support/stored-pins.js';
import { RUN_ENTRY } from '../support/processes.js';
import { concurrencyLimit } from '../support/concurrency.js';

const run = promisify(execFile);
const { config } = testConfig();
const bucket = testBucket(config);
const sandboxes = new SandboxPool();
const dir = mkdtempSync(path.join(tmpdir(), 'explora-one-path-'));
afterAll(async () => {
  await sandboxes.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const K = [1, 2];

/** A task's own answer: its dataset solution, else (text-scored tasks) the text it is compared with, else its prompt. */
function ownAnswer(problem: SweepProblem): string {
  const family = familyOf(problem);
  const checking = family.checking(problem);
  return family.referenceSolution(problem) ?? (checking.kind === 'text' ? checking.reference : problem.prompt);
}

/** The sweep's way: the problems stored as a sweep stores them, the shard on saved generations, the cell, its --output-dir files. */
async function throughSweep(
  family: FamilyId,
  problems: readonly SweepProblem[],
  generations: string[][],
  out: string,
  scope: Readonly<Record<string, unknown>>,
) {
  const sweepId = `one-path-${family}-${uniqueSuffix()}`;
  const cellId = `${family}.saved`;
  const datasetKey = `sweeps/${sweepId}/datasets/${family}.jsonl`;
  await putObject(bucket, datasetKey, problems.map((p) => JSON.stringify(p) + '\n').join(''));
  const savedKey = `sweeps/${sweepId}/inputs/generations.json`;
  await putObject(bucket, savedKey, JSON.stringify(generations));
  await new MockActivityEnvironment().run(createSandboxActivities(bucket, sandboxes).executeShard, {
    sweepId,
    cellId,
    shardIndex: 0,
    datasetKey,
    taskStart: 0,
    taskEnd: problems.length,
    nSamples: 2,
    timeoutS: 10,
    generations: { kind: 'saved' as const, key: savedKey },
    execute: true,
  });
  const summary = (await new MockActivityEnvironment().run(createSweepStorageActivities(bucket).finalizeCell, {
    sweepId,
    cellId,
    datasetKey,
    nSamples: 2,
    k: K,
    shards: 1,
    wallSeconds: 0,
    // The cell's scope, as workflows/sweepCell.ts spreads it into the cell's record (LiveCodeBench's window).
    cell: { dataset: family, n_samples: 2, cell: cellId, ...scope },
  })) as CellSummary;
  await writeCellFiles(bucket, sweepId, [summary], out);
  return { summary, files: path.join(out, cellId) };
}

async function throughEvaluate(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [RUN_ENTRY, path.resolve('scripts/evaluate.ts'), ...args], {
      timeout: 180_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const read = (folder: string, file: string) => readFileSync(path.join(folder, file), 'utf8');
const readJson = (folder: string, file: string) => JSON.parse(read(folder, file)) as Record<string, unknown>;

const READ = allFamilies()
  .filter((f) => f.evaluate.kind === 'reads')
  .map((f) => f.id);
const FIXTURES = new Map(await Promise.all(READ.map(async (family) => [family, await onePathFixtureOf(family)] as const)));

/** Families scored at once: each case waits on its evaluate.ts process and its sandbox runs (3 at a time on two cores). */
const slot = concurrencyLimit(3);

describe.concurrent('a saved set of answers scores the same through a sweep and through evaluate.ts', () => {
  it('every family evaluate.ts reads has a fixture in its folder', () => {
    expect([...FIXTURES.values()].filter((f) => typeof f === 'string')).toEqual([]);
  });

  it.each(READ.map((family) => [family]))('%s', (family) => slot(() => scoreBothWays(family)));
});

/** One family's saved answers scored through a sweep's activities and through evaluate.ts: the same metrics, lines and files. */
async function scoreBothWays(family: FamilyId): Promise<void> {
  const fixture = FIXTURES.get(family);
  if (typeof fixture !== 'object') throw new Error(fixture);
  const work = path.join(dir, family);
  mkdirSync(work, { recursive: true });
  const problemsFile = path.join(work, 'problems.jsonl');
  const text = textOf(fixture.text);
  writeFileSync(problemsFile, text);
  const options = fixture.options?.(mkdtempSync(path.join(dir, `${family}-`)));
  // The part of the file scored (LiveCodeBench's window): evaluate.ts's reading of the options, and a sweep's cell scope of the same entry.
  const loaded = loadEvaluateProblems({ text, source: problemsFile, family, options: options?.values ?? {} });
  const { problems } = loaded;
  const scope = loaded.cell ?? {};
  const generations =
    fixture.generations?.(problems) ?? problems.map((p, i) => [ownAnswer(p), ownAnswer(problems[(i + 1) % problems.length]!)]);
  const samplesFile = path.join(work, 'generations.json');
  writeFileSync(samplesFile, JSON.stringify(generations));
  const evaluateOut = path.join(work, 'evaluate');
  const args = [
    '--problems',
    problemsFile,
    '--samples',
    samplesFile,
    '--family',
    family,
    '--k',
    K.join(','),
    '--output-dir',
    evaluateOut,
    '--metric_output_path',
    path.join(work, 'metrics.json'),
  ];
  if (fixture.refusedNaming !== undefined) {
    // What the family needs is not in the sandbox here (as in CI): evaluate.ts refuses before anything runs, naming it.
    const refused = await throughEvaluate([...args, ...(options?.flags ?? [])]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(fixture.refusedNaming);
    return;
  }
  const [evaluated, sweep] = await Promise.all([
    throughEvaluate([...args, ...(options?.flags ?? [])]),
    throughSweep(family, problems, generations, path.join(work, 'sweep'), scope),
  ]);
  expect(evaluated.code, evaluated.stderr).toBe(0);
  // The metrics line is the cell's figures.
  expect(JSON.parse(evaluated.stdout.trim().split('\n').at(-1)!)).toEqual(cellFigures(sweep.summary, 'evaluate'));
  // Every sample's line, the saved programs and the references, byte for byte.
  for (const file of ['samples.jsonl', 'generations.json', 'references.json'])
    expect(read(evaluateOut, file), file).toBe(read(sweep.files, file));
  // The cell's results (but for the cell's id and the sweep's provenance).
  const { provenance: _p, cell: _c, ...sweepResults } = readJson(sweep.files, 'results.json');
  expect(readJson(evaluateOut, 'results.json')).toEqual(sweepResults);
  // The peers' files: bigcode's metrics of the task, evalplus's per-sample statuses and pass@k.
  expect(readJson(evaluateOut, 'evaluation_results.json')[family]).toEqual(readJson(sweep.files, 'evaluation_results.json')[family]);
  // ... and the part of the file they are over (LiveCodeBench's window), as evaluate.ts's --metric_output_path says it.
  const scopeIn = (json: Record<string, unknown>) => cellScopeOf(json.config as Record<string, unknown>);
  const metrics = readJson(work, 'metrics.json');
  expect(metrics[family]).toEqual(readJson(sweep.files, 'evaluation_results.json')[family]);
  expect(scopeIn(readJson(sweep.files, 'evaluation_results.json'))).toEqual(scopeIn(metrics));
  expect(scopeIn(metrics)).toEqual(scope);
  if (family === 'livecodebench') expect(Object.keys(scope)).toEqual(['release_window', 'release_after', 'release_before']);
  const evalplus = (folder: string) => {
    try {
      const { date: _d, ...rest } = readJson(folder, 'eval_results.json');
      return rest;
    } catch {
      return null;
    }
  };
  expect(evalplus(evaluateOut)).toEqual(evalplus(sweep.files));
  for (const file of fixture.peerFiles ?? []) expect(read(evaluateOut, file), file).not.toBe('');
}
