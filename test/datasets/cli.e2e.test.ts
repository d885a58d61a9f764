import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { runTs } from '../support/processes.js';
import { readDatasetParts, testBucket } from '../support/s3.js';

const { config, env } = testConfig();
const bucket = testBucket(config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-cli-'));
afterAll(() => {
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const flags = [
  '--count',
  '2345',
  '--seed',
  '99',
  '--alphabet',
  "ab'c",
  '--l-min',
  '2',
  '--l-max',
  '7',
  '--pipeline-min',
  '1',
  '--pipeline-max',
  '3',
  '--n-inputs',
  '12',
  '--num-examples',
  '4',
  '--num-tests',
  '5',
  '--split',
  'validation',
];

describe('scripts/generate-dataset.ts', () => {
  it('--local and the Temporal path write identical bytes; the remote run prints the S3 URI and the Web UI link', async () => {
    const out = path.join(dir, 'local.jsonl');
    const local = await runTs('scripts/generate-dataset.ts', [...flags, '--local', '--out', out, '--no-progress'], env);
    expect(local.code, local.output).toBe(0);
    expect(existsSync(`${out}.partial`)).toBe(false);

    const name = `cli-${uniqueSuffix()}`;
    const remote = await runTs('scripts/generate-dataset.ts', [...flags, '--name', name, '--shard-size', '500', '--no-progress'], env);
    expect(remote.code, remote.output).toBe(0);
    expect(remote.output).toContain(`s3://${config.s3.bucket}/datasets/${name}/`);
    expect(remote.output).toContain(`${config.temporal.uiUrl}/namespaces/${config.temporal.namespace}/workflows/explora-dataset%2F${name}`);

    const fromS3 = await readDatasetParts(bucket, name);
    const fromFile = readFileSync(out);
    expect(fromFile.toString('utf8').split('\n').length).toBe(2346);
    expect(fromS3.equals(fromFile)).toBe(true);
    const row = JSON.parse(fromFile.toString('utf8').split('\n')[0]!);
    expect(row.metadata).toMatchObject({ alphabet: ['a', 'b', "'", 'c'], split: 'validation', num_examples: 4, num_tests: 5 });
  });

  it.each([
    [['--num-examples', '10', '--num-tests', '10'], /--num-examples, --num-tests, --n-inputs/],
    [['--l-min', '6', '--l-max', '3'], /--l-min, --l-max/],
    [
      ['--alphabet-size', '2', '--alphabet', 'xy'],
      /--alphabet.*cannot be used with.*--alphabet-size|--alphabet-size.*cannot be used with.*--alphabet/,
    ],
    [['--alphabet-size', '1', '--l-min', '1', '--l-max', '2', '--n-inputs', '3'], /--n-inputs|--alphabet-size/],
    [['--count', 'many'], /--count must be an integer/],
    [['--local'], /--local needs --out/],
  ])('refuses %j with a message naming the flags', async (args, pattern) => {
    const res = await runTs('scripts/generate-dataset.ts', [...args, '--no-progress'], env);
    expect(res.code).not.toBe(0);
    expect(res.output).toMatch(pattern);
  });
});
