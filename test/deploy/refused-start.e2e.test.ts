/**
 * A refused start writes nothing: start-sweep (full and --evaluate-only) and generate-dataset,
 * refused for a bad setting (a client certificate the TLS proxy refuses, a namespace that does not
 * exist, a Temporal address where nothing answers, S3 keys the store refuses, static or from an AWS
 * profile, a model endpoint where nothing answers), each say what to fix, and afterwards the bucket holds nothing under the sweep's or the
 * dataset's prefix and the namespace knows no workflow of that id.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetPrefix, datasetWorkflowId } from '../../domain/datasets/layout.js';
import { sweepPrefix, sweepWorkflowId } from '../../domain/sweep/keys.js';
import { listObjects } from '../../infra/s3.js';
import { connectTemporal } from '../../infra/temporal/connection.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { runTs } from '../support/processes.js';
import { unknownModelNames } from '../../scripts/lib/preflight.js';
import { testBucket } from '../support/s3.js';
import { startS3Gateway, type S3Gateway } from '../support/s3-gateway.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { makeTestPki, startTlsProxy, type TestPki, type TlsProxy } from '../support/tls.js';
import { HUMANEVAL, oneSampleDirectYaml, scriptedModelYaml } from '../sweep/support.js';

const { config, env: baseEnv } = testConfig();
const bucket = testBucket(config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-refused-'));
const identity = { name: 'refused', accessKey: `refused${uniqueSuffix().replace(/-/g, '')}`, secretKey: `secret-${uniqueSuffix()}` };
let server: ScriptedLlmServer;
let pki: TestPki;
let proxy: TlsProxy;
let gateway: S3Gateway;
let deadUrl: string;

beforeAll(async () => {
  server = await startScriptedLlmServer(() => ({ content: '    pass\n' }));
  pki = makeTestPki(path.join(dir, 'pki'));
  const [host, port] = config.temporal.address.split(':');
  proxy = await startTlsProxy(pki, { host: host!, port: Number(port) });
  gateway = await startS3Gateway(dir, [identity]);
  // A port that was free a moment ago: nothing answers there.
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  deadUrl = `http://127.0.0.1:${(probe.address() as net.AddressInfo).port}/v1`;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});
afterAll(async () => {
  await gateway?.close();
  await proxy?.close();
  await server?.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

function sweepFile(id: string, modelUrl = server.url): string {
  const file = path.join(dir, `${id}.yaml`);
  writeFileSync(
    file,
    `id: ${id}\ndatasets:\n  - name: he\n    family: humaneval\n    path: ${HUMANEVAL}\nmodels:\n${scriptedModelYaml('m', modelUrl, 'scripted', 'completions')}${oneSampleDirectYaml(2)}`,
  );
  return file;
}

async function keysUnder(prefix: string): Promise<string[]> {
  const out: string[] = [];
  for await (const o of listObjects(bucket, prefix)) out.push(o.key);
  return out;
}

async function workflowExists(workflowId: string): Promise<boolean> {
  const { client, close } = await connectTemporal(config);
  try {
    await client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  } finally {
    await close();
  }
}

/** What a refused start must leave: nothing under its prefix, no workflow of its id. */
async function expectNothingOf(prefix: string, workflowId: string, output: string): Promise<void> {
  expect(await keysUnder(prefix), output).toEqual([]);
  expect(await workflowExists(workflowId), output).toBe(false);
}

const tlsEnv = () => ({
  TEMPORAL_ADDRESS: `127.0.0.1:${proxy.port}`,
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.ca.cert,
  TEMPORAL_TLS_SERVER_NAME: pki.serverName,
  // A client certificate of another CA: the proxy refuses it.
  TEMPORAL_TLS_CLIENT_CERT_PATH: pki.rogueClient.cert,
  TEMPORAL_TLS_CLIENT_KEY_PATH: pki.rogueClient.key,
});

/** No keys in the environment: only the AWS profile file gives them. */
function profileEnv(profile: string): Record<string, string> {
  const credentials = path.join(dir, 'credentials');
  writeFileSync(credentials, `[wrong]\naws_access_key_id = ${identity.accessKey}\naws_secret_access_key = not-the-secret\n`, {
    mode: 0o600,
  });
  writeFileSync(path.join(dir, 'config'), '[profile wrong]\nregion = us-east-1\n');
  return {
    EXPLORA_S3_ENDPOINT: gateway.endpoint,
    EXPLORA_S3_ACCESS_KEY_ID: '',
    EXPLORA_S3_SECRET_ACCESS_KEY: '',
    AWS_ACCESS_KEY_ID: '',
    AWS_SECRET_ACCESS_KEY: '',
    AWS_SESSION_TOKEN: '',
    AWS_SHARED_CREDENTIALS_FILE: credentials,
    AWS_CONFIG_FILE: path.join(dir, 'config'),
    AWS_PROFILE: profile,
    AWS_EC2_METADATA_DISABLED: 'true',
  };
}

describe('a refused start writes nothing', () => {
  it('start-sweep, full and --evaluate-only: refused TLS, a missing namespace, refused S3 keys, a dead model endpoint', async () => {
    const generations = path.join(dir, 'generations.json');
    writeFileSync(generations, JSON.stringify([['    pass\n'], ['    pass\n']]));
    const cases: Array<{ what: string; env: Record<string, string>; args?: string[]; modelUrl?: string; says: RegExp }> = [
      { what: 'tls', env: tlsEnv(), says: /refused the client certificate of TEMPORAL_TLS_CLIENT_CERT_PATH/ },
      {
        what: 'namespace',
        env: { TEMPORAL_NAMESPACE: `explora-missing-${uniqueSuffix()}` },
        says: /namespace "explora-missing-[^"]+" \(from TEMPORAL_NAMESPACE\) does not exist/,
      },
      {
        what: 'address',
        env: { TEMPORAL_ADDRESS: '127.0.0.1:1' },
        says: /nothing answers at 127\.0\.0\.1:1 \(ECONNREFUSED\): check TEMPORAL_ADDRESS/,
      },
      {
        what: 'namespace-eval',
        env: { TEMPORAL_NAMESPACE: `explora-missing-${uniqueSuffix()}` },
        args: ['--evaluate-only', '--load-generations', generations],
        says: /namespace "explora-missing-[^"]+" \(from TEMPORAL_NAMESPACE\) does not exist/,
      },
      {
        what: 'static-keys',
        env: {
          EXPLORA_S3_ENDPOINT: config.s3.endpoint!,
          EXPLORA_S3_ACCESS_KEY_ID: identity.accessKey,
          EXPLORA_S3_SECRET_ACCESS_KEY: 'not-the-secret',
        },
        says: /refused the credentials from static keys from EXPLORA_S3_ACCESS_KEY_ID\/EXPLORA_S3_SECRET_ACCESS_KEY for bucket explora-test \(HTTP 403/,
      },
      {
        what: 'profile',
        env: profileEnv('wrong'),
        says: /refused the credentials from the AWS credential chain: profile wrong .* for bucket explora-test \(HTTP 403/,
      },
      {
        what: 'model',
        env: {},
        modelUrl: deadUrl,
        says: /models\[m\]\.base_url http:\/\/127\.0\.0\.1:\d+\/v1: nothing answers \(ECONNREFUSED\)/,
      },
    ];
    const runs = await Promise.all(
      cases.map(async (c) => {
        const id = `refused-${c.what}-${uniqueSuffix()}`;
        const file = sweepFile(id, c.modelUrl);
        const args = ['--config', file, '--id', id, '--worker', 'external', '--no-progress', ...(c.args ?? [])];
        const run = await runTs('scripts/start-sweep.ts', args, { ...baseEnv, ...c.env });
        return { c, id, run };
      }),
    );
    for (const { c, id, run } of runs) {
      expect(run.code, `${c.what}:\n${run.output}`).not.toBe(0);
      expect(run.output, c.what).toMatch(c.says);
      expect(run.output, c.what).not.toMatch(/Unknown\)/);
      await expectNothingOf(sweepPrefix(id), sweepWorkflowId(id), `${c.what}:\n${run.output}`);
    }
  });

  it('start-sweep: a model name its endpoint does not list is refused, naming it and the models served', async () => {
    const listing = await startScriptedLlmServer(() => ({ content: '    pass\n' }), { models: ['served-a', 'served-b'] });
    try {
      const id = `refused-model-name-${uniqueSuffix()}`;
      const file = sweepFile(id, listing.url);
      const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--worker', 'external', '--no-progress'], baseEnv);
      expect(run.code, run.output).toBe(1);
      expect(run.output).toContain(
        `models[0].model scripted (model m): ${listing.url} serves no model of that name; it serves served-a, served-b (GET ${listing.url}/models)`,
      );
      expect(run.output).toMatch(/nothing was started/);
      expect(listing.requests()).toEqual([]);
      await expectNothingOf(sweepPrefix(id), sweepWorkflowId(id), run.output);
      // A name it lists passes; so does any name at an endpoint that lists none.
      const model = { id: 'm', base_url: listing.url, model: 'served-b' };
      expect(await unknownModelNames([model])).toEqual([]);
      expect(await unknownModelNames([{ ...model, base_url: server.url, model: 'anything' }])).toEqual([]);
    } finally {
      await listing.close();
    }
  });

  it('generate-dataset: refused TLS, a missing namespace, refused S3 keys', async () => {
    const cases: Array<{ what: string; env: Record<string, string>; says: RegExp }> = [
      { what: 'tls', env: tlsEnv(), says: /refused the client certificate of TEMPORAL_TLS_CLIENT_CERT_PATH/ },
      { what: 'namespace', env: { TEMPORAL_NAMESPACE: `explora-missing-${uniqueSuffix()}` }, says: /does not exist on Temporal/ },
      { what: 'profile', env: profileEnv('wrong'), says: /refused the credentials from the AWS credential chain: profile wrong/ },
    ];
    const runs = await Promise.all(
      cases.map(async (c) => {
        const name = `refused-${c.what}-${uniqueSuffix()}`;
        const run = await runTs('scripts/generate-dataset.ts', ['--name', name, '--count', '3', '--no-progress'], { ...baseEnv, ...c.env });
        return { c, name, run };
      }),
    );
    for (const { c, name, run } of runs) {
      expect(run.code, `${c.what}:\n${run.output}`).not.toBe(0);
      expect(run.output, c.what).toMatch(c.says);
      await expectNothingOf(datasetPrefix(name), datasetWorkflowId(name), `${c.what}:\n${run.output}`);
    }
  });
});
