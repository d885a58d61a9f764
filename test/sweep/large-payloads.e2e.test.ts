/**
 * Temporal payloads over EXPLORA_TEMPORAL_OFFLOAD_BYTES are kept in S3 and histories hold claims
 * (infra/temporal/payloadStorage.ts). Here every payload is offloaded (the variable at 0), so a whole
 * sweep runs through claims: its results must be the ones a sweep with inline payloads gives, and its
 * histories must hold references whose objects are in the bucket, under the hash they are named by.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { StorageDriverClaim, type Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBytes, getText, sha256Hex } from '../../infra/s3.js';
import { PAYLOAD_PREFIX, S3PayloadDriver } from '../../infra/temporal/payloadStorage.js';
import { sweepResultsKey } from '../../domain/sweep/keys.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { runTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { freePort, startS3Gateway, type S3Gateway } from '../support/s3-gateway.js';
import { connectClient } from '../support/temporal.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { expectedCounts, humanEvalProblems, HUMANEVAL, scriptedAnswers, SWEEP_SEED } from './support.js';

const { config, env } = testConfig({ EXPLORA_TEMPORAL_OFFLOAD_BYTES: '0' });
const bucket = testBucket(config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-payloads-'));
const N = 3;
const LIMIT = 3;
const problems = humanEvalProblems(LIMIT);
let server: ScriptedLlmServer;

beforeAll(async () => {
  server = await startScriptedLlmServer(scriptedAnswers(problems));
});
afterAll(async () => {
  await server.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const REFERENCE_TYPE = 'temporal.api.sdk.v1.ExternalStorageReference';
const text = (b: Uint8Array | null | undefined) => (b ? Buffer.from(b).toString('utf8') : undefined);

/** Every payload of a history event, wherever it sits in the event (inputs, results, details). */
type Found = { at: string; payload: proto.temporal.api.common.v1.IPayload };
function payloadsIn(value: unknown, at = '', out: Found[] = []): Found[] {
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return out;
  if ('metadata' in value && 'data' in value && (value as { metadata: unknown }).metadata) {
    out.push({ at, payload: value as proto.temporal.api.common.v1.IPayload });
    return out;
  }
  for (const [k, v] of Object.entries(value)) payloadsIn(v, /^\d+$/.test(k) ? at : `${at}.${k}`, out);
  return out;
}

describe('large payloads through S3 (EXPLORA_TEMPORAL_OFFLOAD_BYTES)', () => {
  it('a sweep with every payload offloaded gives the expected results; its histories hold claims of objects in the bucket', async () => {
    const id = `e2e-payloads-${uniqueSuffix()}`;
    const file = path.join(dir, `${id}.yaml`);
    writeFileSync(
      file,
      `id: ${id}\ndatasets:\n  - name: humaneval\n    family: humaneval\n    path: ${HUMANEVAL}\n` +
        `models:\n  - id: plain\n    base_url: ${server.url}\n    model: scripted-completions\n    api: completions\n` +
        `methods: [direct]\ntemperatures: [0.2]\nn_samples: ${N}\nk: [1]\nlimit: ${LIMIT}\nseed: ${SWEEP_SEED}\n`,
    );
    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
    expect(run.code, run.output).toBe(0);

    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!);
    expect(results.cells).toHaveLength(1);
    const perTask = JSON.parse((await getText(bucket, results.cells[0].resultsKey))!).per_task as Array<{
      n: number;
      c: number;
      s: number;
    }>;
    expect(perTask.map((t) => ({ n: t.n, c: t.c, s: t.s }))).toEqual(expectedCounts(problems, N));

    const references: Array<{ key: string; sha256: string }> = [];
    const inline = new Set<string>();
    const { client, close } = await connectClient(config);
    try {
      const ids: string[] = [];
      for await (const wf of client.workflow.list({ query: `WorkflowId STARTS_WITH 'explora-sweep/${id}'` })) ids.push(wf.workflowId);
      // The sweep, its cell and its shard at least.
      expect(ids.length).toBeGreaterThanOrEqual(3);
      for (const workflowId of ids) {
        const history = await client.workflow.getHandle(workflowId).fetchHistory();
        for (const { at, payload } of payloadsIn(history.events)) {
          if (text(payload.metadata?.messageType) !== REFERENCE_TYPE) {
            inline.add(at);
            continue;
          }
          const reference = JSON.parse(text(payload.data)!) as {
            driverName: string;
            claimData: { bucket: string; key: string; sha256: string };
          };
          expect(reference.driverName).toBe('explora-s3');
          expect(reference.claimData.bucket).toBe(config.s3.bucket);
          references.push(reference.claimData);
        }
      }
    } finally {
      await close();
    }
    // Threshold 0: every payload a workflow or activity sent went to S3; search attributes (the
    // server indexes them) and the SDK's own marker bookkeeping stay inline by design: a patch
    // marker's id, a local activity marker's `data` (its sequence number, attempt and times; its
    // `result` is the activity's payload, which goes to S3).
    expect(references.length).toBeGreaterThan(10);
    expect(
      [...inline].filter(
        (at) => !/searchAttributes\.indexedFields|^\.markerRecordedEventAttributes\.details\.(patch-data|data)\b/.test(at),
      ),
    ).toEqual([]);
    for (const claim of references) {
      expect(claim.key).toBe(`${PAYLOAD_PREFIX}${claim.sha256}`);
      const bytes = await getBytes(bucket, claim.key);
      expect(bytes, claim.key).not.toBeNull();
      expect(sha256Hex(bytes!)).toBe(claim.sha256);
      const payload = proto.temporal.api.common.v1.Payload.decode(bytes!);
      expect(text(payload.metadata.encoding)).toMatch(/^(json\/plain|binary\/null)$/);
    }
  });

  it('an S3 endpoint down when a payload is stored: the store waits for it (up to its retry delays), then the claim reads back', async () => {
    const identity = { name: 'payloads', accessKey: 'payloads-key', secretKey: 'payloads-secret-key' };
    const port = await freePort();
    // One attempt a request, as explora's own client (infra/s3.ts): the waits are the driver's.
    const clientAt = () =>
      new S3Client({
        endpoint: `http://127.0.0.1:${port}`,
        region: config.s3.region,
        forcePathStyle: true,
        credentials: { accessKeyId: identity.accessKey, secretAccessKey: identity.secretKey },
        maxAttempts: 1,
      });
    const s3 = clientAt();
    // Generous delays: the gateway takes a few seconds to start on a loaded machine.
    const driver = new S3PayloadDriver(() => s3, config.s3.bucket, [500, 1000, 2000, 4000, 8000, 8000]);
    const payload: Payload = {
      metadata: { encoding: new TextEncoder().encode('json/plain') },
      data: new TextEncoder().encode(`"${uniqueSuffix()}"`),
    };
    let gateway: S3Gateway | undefined;
    let storedAt = 0;
    const storing = driver.store({}, [payload]).finally(() => (storedAt = Date.now()));
    try {
      // Nothing listens on the port yet: the first attempts are refused.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(storedAt).toBe(0);
      gateway = await startS3Gateway(dir, [identity], { port });
      const [claim] = await storing;
      const [back] = await driver.retrieve({}, [claim!]);
      expect(text(back!.data)).toBe(text(payload.data));
    } finally {
      await storing.catch(() => undefined);
      s3.destroy();
      await gateway?.close();
    }
    // Without waits, the same outage fails the store at once, naming the refused connection.
    const impatientS3 = clientAt();
    const impatient = new S3PayloadDriver(() => impatientS3, config.s3.bucket, []);
    await expect(impatient.store({}, [payload])).rejects.toThrow(/ECONNREFUSED/);
    impatientS3.destroy();
  }, 90_000);

  it('the driver reads back what it stored, and refuses a missing object, a changed one and a claim it did not write, naming each', async () => {
    const driver = new S3PayloadDriver(() => bucket.s3, config.s3.bucket);
    const payload: Payload = {
      metadata: { encoding: new TextEncoder().encode('json/plain') },
      data: new TextEncoder().encode(JSON.stringify({ keys: Array.from({ length: 2000 }, (_, i) => `k-${uniqueSuffix()}-${i}`) })),
    };
    const [claim] = await driver.store({}, [payload]);
    const [back] = await driver.retrieve({}, [claim!]);
    expect(text(back!.data)).toBe(text(payload.data));
    expect(text(back!.metadata!.encoding)).toBe('json/plain');
    // Stored again (a retried task): the same claim.
    const [again] = await driver.store({}, [payload]);
    expect(again!.claimData).toEqual(claim!.claimData);

    const { key, sha256 } = claim!.claimData as { key: string; sha256: string };
    await bucket.s3.send(new PutObjectCommand({ Bucket: config.s3.bucket, Key: key, Body: 'not the payload' }));
    await expect(driver.retrieve({}, [claim!])).rejects.toThrow(`s3://${config.s3.bucket}/${key} does not hold what its claim names`);

    const missing = `${PAYLOAD_PREFIX}${'0'.repeat(64)}`;
    await expect(
      driver.retrieve({}, [new StorageDriverClaim({ bucket: config.s3.bucket, key: missing, sha256: '0'.repeat(64) })]),
    ).rejects.toThrow(`s3://${config.s3.bucket}/${missing} is gone`);
    await expect(driver.retrieve({}, [new StorageDriverClaim({ bucket: config.s3.bucket, key: 'elsewhere/x', sha256 })])).rejects.toThrow(
      /claim is not one explora wrote: .*elsewhere\/x/,
    );
  });
});
