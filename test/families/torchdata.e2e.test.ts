/**
 * TorchDataEval where torchdata is missing (as in CI, which does not install torch): a sweep naming
 * its tasks is refused before anything is stored, scripts/check-references.ts and scripts/evaluate.ts
 * before anything runs,
 * both naming the module and `bash scripts/install-torchdata.sh`. The rows are the release's format
 * (test/support/torchdata-rows.ts); evaluate.ts recognises them by their ids.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startScriptedLlmServer } from '../support/scripted-llm-server.js';
import { sweepConfigKey } from '../../domain/sweep/keys.js';
import { getText } from '../../infra/s3.js';
import { resolvePythonExecutable } from '../../infra/sandbox/python.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { RUN_ENTRY, runTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { TORCHDATA_ROWS, torchDataJsonl } from '../support/torchdata-rows.js';

const run = promisify(execFile);

describe('TorchDataEval without torchdata in the sandbox', () => {
  const { config, env } = testConfig();
  const bucket = testBucket(config);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-torchdata-'));
  let bare: string;

  beforeAll(() => {
    writeFileSync(path.join(dir, 'real_torchdata_eval_v3.jsonl'), torchDataJsonl(TORCHDATA_ROWS));
    writeFileSync(
      path.join(dir, 'torchdata-api-docs.jsonl'),
      JSON.stringify({
        import_path: 'torchdata.datapipes.iter.Header',
        name: 'Header',
        signature: 'Header(source_datapipe, limit=10)',
        description: 'Yields elements from the source DataPipe from the start, up to the specfied limit (functional name: ``header``).',
      }) + '\n',
    );
    // A Python with nothing installed stands for a sandbox where install-torchdata.sh never ran.
    bare = path.join(dir, 'bare-venv');
    execFileSync(resolvePythonExecutable(), ['-m', 'venv', '--without-pip', bare]);
  });
  afterAll(() => {
    bucket.s3.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a sweep is refused before it starts, naming the module and the install command', async () => {
    const id = `torchdata-missing-${uniqueSuffix()}`;
    const file = path.join(dir, 'sweep.yaml');
    // An endpoint that answers: start-sweep checks the model before anything else is refused.
    const llm = await startScriptedLlmServer(() => ({ content: '' }));
    onTestFinished(() => llm.close());
    writeFileSync(
      file,
      `id: ${id}\ndatasets:\n  - name: torchdata\n    family: torchdata\n    path: real_torchdata_eval_v3.jsonl\n    api_docs: torchdata-api-docs.jsonl\n` +
        `models:\n  - id: m\n    base_url: ${llm.url}\n    model: m\nmethods: [direct, exploracoder]\ntemperatures: [0]\nn_samples: 1\nk: [1]\n`,
    );
    const python = path.join(bare, 'bin', 'python');
    const result = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], { ...env, EXPLORA_PYTHON: python });
    expect(result.code).not.toBe(0);
    expect(result.output).toContain(
      `datasets[torchdata] (family torchdata): ${TORCHDATA_ROWS.length} TorchDataEval task(s) need the Python module torchdata.datapipes, which the sandbox's Python (${python}) lacks; install it with: bash scripts/install-torchdata.sh`,
    );
    expect(await getText(bucket, sweepConfigKey(id))).toBeNull();

    // scripts/check-references.ts refuses the same way, before running any reference.
    const check = await runTs('scripts/check-references.ts', ['--config', file], { ...env, EXPLORA_PYTHON: python });
    expect(check.code).toBe(2);
    expect(check.output).toContain(
      'check-references: datasets[torchdata] (family torchdata): 2 TorchDataEval task(s) need the Python module torchdata.datapipes',
    );
    expect(check.output).toContain('install it with: bash scripts/install-torchdata.sh');
    expect(check.output).not.toContain('references pass');
  });

  it('evaluate.ts recognises the rows and refuses with exit 2, naming the install command', async () => {
    const samples = path.join(dir, 'samples.jsonl');
    writeFileSync(samples, TORCHDATA_ROWS.map((r) => JSON.stringify({ task_id: r.task_id, completion: ' dp.header(4)' }) + '\n').join(''));
    const refused = await run(
      process.execPath,
      [
        RUN_ENTRY,
        'scripts/evaluate.ts',
        '--problems',
        path.join(dir, 'real_torchdata_eval_v3.jsonl'),
        '--samples',
        samples,
        '--python',
        path.join(bare, 'bin', 'python'),
      ],
      { timeout: 120_000 },
    ).catch((e: { code: number; stderr: string }) => e);
    expect('code' in refused ? refused.code : 0).toBe(2);
    expect('stderr' in refused ? refused.stderr : '').toContain('TorchDataEval task(s) need the Python module torchdata.datapipes');
    expect('stderr' in refused ? refused.stderr : '').toContain('install it with: bash scripts/install-torchdata.sh');
  });
});
