/**
 * A dataset named by an s3:// URI loads and runs (not only fails when missing): HumanEval uploaded
 * to the store, a sweep reads it from there, and every task answered with its canonical solution
 * passes.
 */
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepResultsKey } from '../../domain/sweep/keys.js';
import { getText, putObject } from '../../infra/s3.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { runTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { HUMANEVAL, oneSampleDirectYaml, scriptedModelYaml } from './support.js';

const { config, env } = testConfig();
const bucket = testBucket(config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-s3-dataset-'));
const rows = gunzipSync(readFileSync(HUMANEVAL))
  .toString('utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { prompt: string; canonical_solution: string });
const canonical = new Map(rows.map((r) => [r.prompt, r.canonical_solution]));
let server: ScriptedLlmServer;

beforeAll(async () => {
  server = await startScriptedLlmServer((req) => ({ content: canonical.get(String(req.body.prompt)) ?? '    pass\n' }), {
    applyStop: false,
  });
});
afterAll(async () => {
  await server.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe('an s3:// dataset', () => {
  it('is read from the store and runs: canonical answers all pass', async () => {
    const key = `test-inputs/${uniqueSuffix()}/HumanEval.jsonl.gz`;
    await putObject(bucket, key, readFileSync(HUMANEVAL));
    const id = `s3-dataset-${uniqueSuffix()}`;
    const file = path.join(dir, `${id}.yaml`);
    writeFileSync(
      file,
      `id: ${id}\ndatasets:\n  - name: he\n    family: humaneval\n    path: s3://${bucket.name}/${key}\nmodels:\n${scriptedModelYaml('m', server.url, 'canonical', 'completions')}${oneSampleDirectYaml(3)}`,
    );
    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
    expect(run.code, run.output).toBe(0);
    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!);
    expect(results.cells).toHaveLength(1);
    expect(results.cells[0].tasks).toBe(3);
    expect(results.cells[0].passAtK['pass@1']).toBe(1);
  });
});
