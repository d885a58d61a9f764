/**
 * One way to score saved answers: for every family scripts/evaluate.ts reads, one saved set of
 * answers (bigcode's generations.json: each task's dataset solution, then another task's) is scored
 * through a sweep's activities (executeShard on saved generations, finalizeCell, the --output-dir
 * writer) and through evaluate.ts as a subprocess; the metrics, every sample's line, the cell's
 * files and the peers' files must be the same. Small row sets (test/support/*-rows.ts).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxActivities } from '../../activities/sandbox/executeShard.js';
import { createSweepStorageActivities } from '../../activities/storage/sweepFiles.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { allFamilies, familyOf, type FamilyId } from '../../domain/families/registry.js';
import type { EvaluateOptionValues } from '../../domain/families/types.js';
import { cellFigures } from '../../domain/sweep/peerFiles.js';
import type { CellSummary } from '../../domain/sweep/results.js';
import { putObject } from '../../infra/s3.js';
import { SandboxPool } from '../../infra/sandbox/pool.js';
import { writeCellFiles } from '../../scripts/lib/cell-files.js';
import { loadEvaluateProblems } from '../../scripts/lib/evaluate-problems.js';
import { appsJsonl, APPS_TASKS } from '../support/apps-rows.js';
import { COMPLEXITY_ROWS, jsonl as classificationJsonl } from '../support/classification-rows.js';
import { CODE_TO_TEXT_ROWS, codeToTextJsonl } from '../support/code-to-text-rows.js';
import { TEXT_TO_TEXT_ROWS } from '../support/text-to-text-rows.js';
import { INSTRUCT_ROWS, STARCHAT_TOKENS } from '../support/instruct-humaneval-rows.js';
import { jsonl as repairJsonl, PARITY_BUGS, PYTHON_BUGS_ROWS, QUIXBUGS_ROWS } from '../support/repair-rows.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { DS1000_TASKS, ds1000Jsonl } from '../support/ds1000-rows.js';
import { LCB_TASKS, lcbJsonl } from '../support/livecodebench-rows.js';
import { HUMANEVAL_PLUS_TASKS, jsonl as evalplusJsonl } from '../support/evalplus-rows.js';
import { addRow, COMPLETIONS, jsonl as multiplEJsonl } from '../support/multiple-rows.js';
import { CONALA_ROWS, CONCODE_ROWS, jsonl, SPIDER_ROWS } from '../support/oneline-rows.js';
import { BIGCODE_SAVED_GENERATIONS, GSM8K_ROWS, palJsonl } from '../support/pal-rows.js';
import { FIM_ROWS, fimJsonl } from '../support/santacoder-fim-rows.js';
import { makeSpiderDatabases } from '../support/spider-db.js';
import { testBucket } from '../support/s3.js';
import { TORCHDATA_ROWS, torchDataJsonl } from '../support/torchdata-rows.js';

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
const humanEvalLines = () =>
  gunzipSync(readFileSync(path.resolve('../shared/reference/humaneval/HumanEval.jsonl.gz')))
    .toString('utf8')
    .split('\n')
    .slice(0, 3)
    .join('\n') + '\n';
const mbppLines = () => readFileSync(path.resolve('../shared/reference/mbpp/mbpp.jsonl'), 'utf8').split('\n').slice(0, 3).join('\n') + '\n';

interface Fixture {
  /** The problems file's text. */
  text: string;
  /** The family's options, as evaluate.ts's flags and as loadEvaluateProblems takes them. */
  flags?: string[];
  options?: EvaluateOptionValues;
  /** Each task's saved answers; absent: its own dataset solution, then the next task's. */
  generations?(problems: readonly SweepProblem[]): string[][];
}

/** A fixture per family evaluate.ts reads (a family without one fails the test). */
function fixtureOf(family: FamilyId): Fixture | undefined {
  switch (family) {
    case 'humaneval':
    case 'pbe-world':
      return { text: humanEvalLines() };
    case 'mbpp':
      return { text: mbppLines() };
    case 'evalplus':
      return { text: evalplusJsonl(HUMANEVAL_PLUS_TASKS.slice(0, 2)) };
    case 'apps':
      return { text: appsJsonl(APPS_TASKS.slice(0, 2)) };
    case 'ds1000':
      return { text: ds1000Jsonl(DS1000_TASKS.slice(0, 2)) };
    case 'multipl-e':
      return {
        text: multiplEJsonl([addRow('js', 1), addRow('js', 2)]),
        generations: (problems) => problems.map((p) => [p.prompt + COMPLETIONS.js.right, p.prompt + COMPLETIONS.js.wrong]),
      };
    case 'torchdata':
      return { text: torchDataJsonl(TORCHDATA_ROWS.slice(0, 2)) };
    case 'pal':
      return {
        text: palJsonl(GSM8K_ROWS.slice(0, 2)),
        generations: () => [
          [BIGCODE_SAVED_GENERATIONS[0]!, BIGCODE_SAVED_GENERATIONS[1]!],
          [BIGCODE_SAVED_GENERATIONS[1]!, 'print(solution())'],
        ],
      };
    case 'classification':
      return { text: classificationJsonl(COMPLEXITY_ROWS) };
    case 'conala':
      return { text: jsonl(CONALA_ROWS) };
    case 'concode':
      return { text: jsonl(CONCODE_ROWS) };
    case 'spider': {
      const databases = makeSpiderDatabases(mkdtempSync(path.join(dir, 'spider-')));
      // The rows of the one database made here.
      return {
        text: jsonl(SPIDER_ROWS.filter((r) => r.db_id === 'concert_singer')),
        flags: ['--spider-databases', databases],
        options: { spiderDatabases: databases },
      };
    }
    case 'code-to-text':
      return { text: codeToTextJsonl(CODE_TO_TEXT_ROWS.python) };
    case 'santacoder-fim':
      return { text: fimJsonl(FIM_ROWS) };
    case 'text-to-text':
      return { text: jsonl(TEXT_TO_TEXT_ROWS.da_en), flags: ['--subset', 'da_en'], options: { subset: 'da_en' } };
    case 'livecodebench':
      // No dataset solution: each task's own samples (one passes, one fails).
      return { text: lcbJsonl(LCB_TASKS.slice(2, 4)), generations: () => LCB_TASKS.slice(2, 4).map((t) => t.samples.map((s) => s.code)) };
    case 'quixbugs':
      return { text: repairJsonl(QUIXBUGS_ROWS) };
    case 'parity':
      return {
        text: repairJsonl(PARITY_BUGS.slice(0, 2)),
        generations: (problems) => problems.map((p) => [ownAnswer(p), 'def parity(b1,b2,b3,b4):\n    return 0']),
      };
    case 'python-bugs':
      return { text: repairJsonl(PYTHON_BUGS_ROWS) };
    case 'instruct-wizard-humaneval':
      return { text: humanEvalLines() };
    case 'instruct-humaneval':
      return {
        text: repairJsonl(INSTRUCT_ROWS),
        flags: ['--instruction-tokens', STARCHAT_TOKENS.join(',')],
        options: { instructionTokens: STARCHAT_TOKENS.join(',') },
      };
    default:
      return undefined;
  }
}

/** A task's own answer: its dataset solution, else (text-scored tasks) the text it is compared with, else its prompt. */
function ownAnswer(problem: SweepProblem): string {
  const family = familyOf(problem);
  const checking = family.checking(problem);
  return family.referenceSolution(problem) ?? (checking.kind === 'text' ? checking.reference : problem.prompt);
}

/** The sweep's way: the problems stored as a sweep stores them, the shard on saved generations, the cell, its --output-dir files. */
async function throughSweep(family: FamilyId, problems: readonly SweepProblem[], generations: string[][], out: string) {
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
    cell: { dataset: family, n_samples: 2, cell: cellId },
  })) as CellSummary;
  await writeCellFiles(bucket, sweepId, [summary], out);
  return { summary, files: path.join(out, cellId) };
}

async function throughEvaluate(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', path.resolve('scripts/evaluate.ts'), ...args], {
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

describe('a saved set of answers scores the same through a sweep and through evaluate.ts', () => {
  it('every family evaluate.ts reads has a fixture here', () => {
    expect(READ.filter((id) => fixtureOf(id) === undefined)).toEqual([]);
  });

  it.each(READ.map((family) => [family]))('%s', async (family) => {
    const fixture = fixtureOf(family)!;
    const work = path.join(dir, family);
    mkdirSync(work, { recursive: true });
    const problemsFile = path.join(work, 'problems.jsonl');
    writeFileSync(problemsFile, fixture.text);
    const { problems } = loadEvaluateProblems({ text: fixture.text, source: problemsFile, family, options: fixture.options ?? {} });
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
    ];
    if (family === 'torchdata') {
      // torchdata is not in the sandbox here (as in CI): evaluate.ts refuses before anything runs, naming it.
      const refused = await throughEvaluate([...args, ...(fixture.flags ?? [])]);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain('torchdata');
      return;
    }
    const [evaluated, sweep] = await Promise.all([
      throughEvaluate([...args, ...(fixture.flags ?? [])]),
      throughSweep(family, problems, generations, path.join(work, 'sweep')),
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
    const evalplus = (folder: string) => {
      try {
        const { date: _d, ...rest } = readJson(folder, 'eval_results.json');
        return rest;
      } catch {
        return null;
      }
    };
    expect(evalplus(evaluateOut)).toEqual(evalplus(sweep.files));
    if (family === 'evalplus') expect(evalplus(evaluateOut)).not.toBeNull();
  });
});
