/**
 * Object storage with the AWS SDK's default credential chain: an S3 store (a SeaweedFS gateway
 * with an identity of its own) whose keys are only in an AWS profile file, none in the
 * environment. A sweep started and served with them completes; a worker without credentials, or
 * with refused ones, stops at once naming the problem, and the sweep waiting for it completes as
 * soon as a worker with credentials serves it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepResultsKey } from '../../domain/sweep/keys.js';
import { getText } from '../../infra/s3.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { waitUntil } from '../support/poll.js';
import { runTs, spawnTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { startS3Gateway, type S3Gateway } from '../support/s3-gateway.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { HUMANEVAL, oneSampleDirectYaml, scriptedModelYaml } from '../sweep/support.js';

const { config, env: baseEnv } = testConfig();
const bucket = testBucket(config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-s3-profile-'));
const rows = gunzipSync(readFileSync(HUMANEVAL))
  .toString('utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { prompt: string; canonical_solution: string });
const canonical = new Map(rows.map((r) => [r.prompt, r.canonical_solution]));
const identity = { name: 'research', accessKey: `research${uniqueSuffix().replace(/-/g, '')}`, secretKey: `secret-${uniqueSuffix()}` };
let server: ScriptedLlmServer;
let gateway: S3Gateway;

/** No keys in the environment (empty = unset), no instance metadata: only what the files give. */
function storageEnv(files: { credentials: string; config: string }, profile: string): Record<string, string> {
  return {
    ...baseEnv,
    EXPLORA_S3_ENDPOINT: gateway.endpoint,
    EXPLORA_S3_ACCESS_KEY_ID: '',
    EXPLORA_S3_SECRET_ACCESS_KEY: '',
    AWS_ACCESS_KEY_ID: '',
    AWS_SECRET_ACCESS_KEY: '',
    AWS_SESSION_TOKEN: '',
    AWS_SHARED_CREDENTIALS_FILE: files.credentials,
    AWS_CONFIG_FILE: files.config,
    AWS_PROFILE: profile,
    AWS_EC2_METADATA_DISABLED: 'true',
  };
}

beforeAll(async () => {
  server = await startScriptedLlmServer((req) => ({ content: canonical.get(String(req.body.prompt)) ?? '    pass\n' }), {
    applyStop: false,
  });
  gateway = await startS3Gateway(dir, [identity]);
});
afterAll(async () => {
  await gateway?.close();
  await server?.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe('S3 credentials from an AWS profile file', () => {
  it('a sweep completes with them; a worker without credentials stops naming the problem, and the sweep resumes once they are given', async () => {
    const files = { credentials: path.join(dir, 'credentials'), config: path.join(dir, 'config') };
    writeFileSync(
      files.credentials,
      `[explora-research]\naws_access_key_id = ${identity.accessKey}\naws_secret_access_key = ${identity.secretKey}\n\n[wrong]\naws_access_key_id = ${identity.accessKey}\naws_secret_access_key = not-the-secret\n`,
      { mode: 0o600 },
    );
    writeFileSync(files.config, '[profile explora-research]\nregion = us-east-1\n\n[profile wrong]\nregion = us-east-1\n');
    const withProfile = storageEnv(files, 'explora-research');
    const id = `s3-profile-${uniqueSuffix()}`;
    const sweepFile = path.join(dir, 'sweep.yaml');
    writeFileSync(
      sweepFile,
      `id: ${id}\ndatasets:\n  - name: he\n    family: humaneval\n    path: ${HUMANEVAL}\nmodels:\n${scriptedModelYaml('m', server.url, 'canonical', 'completions')}${oneSampleDirectYaml(3)}`,
    );

    // The CLI stores the sweep's inputs with the profile's keys and leaves it to the workers.
    const started = await runTs('scripts/start-sweep.ts', ['--config', sweepFile, '--worker', 'external', '--no-wait'], withProfile);
    expect(started.code, started.output).toBe(0);

    const [none, refused] = await Promise.all([
      // No profile file at all: the chain finds nothing.
      runTs(
        'workers/main.ts',
        ['--queues', 'workflows,storage,sandbox,llm', '--sweep-config', sweepFile],
        storageEnv({ credentials: path.join(dir, 'absent-credentials'), config: path.join(dir, 'absent-config') }, ''),
      ),
      runTs('workers/main.ts', ['--queues', 'storage'], storageEnv(files, 'wrong')),
    ]);
    expect(none.code).not.toBe(0);
    expect(none.output).toMatch(
      /no S3 credentials: EXPLORA_S3_ACCESS_KEY_ID\/EXPLORA_S3_SECRET_ACCESS_KEY are unset and the AWS credential chain: profile default \(.*absent-credentials/,
    );
    expect(refused.code).not.toBe(0);
    expect(refused.output).toMatch(
      new RegExp(
        `S3 ${gateway.endpoint.replaceAll('.', '\\.')} refused the credentials from the AWS credential chain: profile wrong .* for bucket ${bucket.name} \\(HTTP 403`,
      ),
    );
    expect(refused.output).not.toContain('(Unknown)'); // a HEAD answer has no body: the status is what is known
    // Nothing was done meanwhile, and nothing is lost: the sweep waits for a worker that can work.
    expect(await getText(bucket, sweepResultsKey(id))).toBeNull();

    const worker = spawnTs('workers/main.ts', ['--queues', 'workflows,storage,sandbox,llm', '--sweep-config', sweepFile], withProfile);
    try {
      await waitUntil(() => /worker: serving/.test(worker.output()) || worker.child.exitCode !== null, {
        timeoutMs: 60_000,
        what: () => `the worker to start:\n${worker.output()}`,
      });
      const done = await runTs('scripts/sweep-status.ts', [id, '--watch'], withProfile);
      expect(done.code, `${done.output}\nworker:\n${worker.output()}`).toBe(0);
    } finally {
      worker.child.kill('SIGINT');
      await worker.exited;
    }
    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!);
    expect(results.cells[0].tasks).toBe(3);
    expect(results.cells[0].passAtK['pass@1']).toBe(1);
  });
});
