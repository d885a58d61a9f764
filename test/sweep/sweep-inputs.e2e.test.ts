/**
 * A sweep's local inputs (dataset files, loaded generations) go to S3 by content, once: starting the
 * same sweep again finds them there and sends nothing; and a generations file's bad value is named
 * by its place.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSweepConfig } from '../../domain/sweep/config.js';
import { sweepPrefix } from '../../domain/sweep/keys.js';
import { putObjectOnce } from '../../infra/s3.js';
import { buildSweepInput, loadGenerations, queuesOf } from '../../scripts/lib/sweep-input.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { lastModifiedUnder, testBucket } from '../support/s3.js';
import { minimalSweepConfig } from '../support/sweep-config.js';

const { config: env } = testConfig();
const bucket = testBucket(env);
const PROBLEM = path.resolve('../shared/reference/humaneval/example_problem.jsonl');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'explora-inputs-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  bucket.s3.destroy();
});

describe('sweep inputs', () => {
  it('are uploaded once: a second start of the same sweep rewrites none of them', async () => {
    copyFileSync(PROBLEM, path.join(dir, 'problems.jsonl'));
    const configFile = path.join(dir, 'sweep.yaml');
    writeFileSync(configFile, '# the config is passed as a value; its file locates the dataset\n');
    const config = parseSweepConfig({ ...minimalSweepConfig(), datasets: [{ name: 'ex', family: 'humaneval', path: 'problems.jsonl' }] });
    const sweepId = `inputs-${uniqueSuffix()}`;
    const build = () => buildSweepInput(config, bucket, { sweepId, configFile, mode: 'full', generations: {}, queues: queuesOf(env) });
    const first = await build();
    const before = await lastModifiedUnder(bucket, `${sweepPrefix(sweepId)}inputs/`);
    expect(before.size).toBe(1);
    await new Promise((r) => setTimeout(r, 1100)); // S3's LastModified has one-second resolution
    const second = await build();
    expect(second.datasets[0]!.files).toEqual(first.datasets[0]!.files);
    expect(await lastModifiedUnder(bucket, `${sweepPrefix(sweepId)}inputs/`)).toEqual(before);
  });

  it('putObjectOnce writes a content-addressed key only when it is not there', async () => {
    const key = `test-put-once/${uniqueSuffix()}`;
    expect(await putObjectOnce(bucket, key, 'content')).toBe(true);
    expect(await putObjectOnce(bucket, key, 'content')).toBe(false);
    expect(await putObjectOnce(bucket, key, 'longer content')).toBe(true); // not the same bytes: written
  });
});

describe('--load-generations', () => {
  it("names a value that is not a generation by its place in bigcode's lists", () => {
    const file = path.join(dir, 'generations.json');
    writeFileSync(file, JSON.stringify([['a'], ['b', 3]]));
    expect(() => loadGenerations(file, 'ex', 2, 1)).toThrow(`--load-generations ${file}: [1][1] is a number, not a string`);
    writeFileSync(file, JSON.stringify([['a'], { b: 1 }]));
    expect(() => loadGenerations(file, 'ex', 2, 1)).toThrow(`--load-generations ${file}: [1] is an object, not a list of generations`);
    writeFileSync(file, JSON.stringify({ generations: [] }));
    expect(() => loadGenerations(file, 'ex', 2, 1)).toThrow("is an object, not bigcode's list");
    writeFileSync(file, JSON.stringify([['a'], ['b']]));
    expect(loadGenerations(file, 'ex', 2, 1)).toEqual([['a'], ['b']]);
  });
});
