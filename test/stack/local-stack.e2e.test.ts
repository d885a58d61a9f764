import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { parseConfig } from '../../domain/config/env.js';
import { getText, putObject, s3ClientFor } from '../../infra/s3.js';
import { stackDown, stackPaths, stackStatus, stackUp } from '../../stack/local-stack.js';
import { connectClient } from '../support/temporal.js';

// A second, private instance of the stack on other ports and another data folder, so stopping it
// cannot disturb the tests that use the main one.
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'explora-stack-'));
const env = {
  TEMPORAL_ADDRESS: '127.0.0.1:7433',
  EXPLORA_TEMPORAL_UI: 'http://127.0.0.1:8533',
  EXPLORA_S3_ENDPOINT: 'http://127.0.0.1:8433',
  // With an endpoint set, keys are given explicitly (unset, the AWS credential chain is used).
  EXPLORA_S3_ACCESS_KEY_ID: 'exploraadmin',
  EXPLORA_S3_SECRET_ACCESS_KEY: 'explora-local-secret',
  EXPLORA_S3_BUCKET: 'stacktest',
  EXPLORA_DATA_DIR: dataDir,
  EXPLORA_WEED_MASTER_PORT: '9433',
  EXPLORA_WEED_FILER_PORT: '8988',
  EXPLORA_WEED_VOLUME_PORT: '9440',
  EXPLORA_WEED_ADMIN_PORT: '9446',
  EXPLORA_STACK_MODEL: 'off',
};
const config = parseConfig(env);
const paths = stackPaths({ ...process.env, ...env });

afterAll(async () => {
  await stackDown(config, () => {}, paths);
  rmSync(dataDir, { recursive: true, force: true });
});

it('comes up, is idempotent, keeps S3 objects and workflows across a stop and a start, and stops cleanly', async () => {
  const first = await stackUp(config, () => {}, paths);
  expect(first.started.sort()).toEqual(['seaweedfs', 'temporal']);
  const second = await stackUp(config, () => {}, paths);
  expect(second.started).toEqual([]); // found running

  const s3 = s3ClientFor(config);
  const bucket = { s3, name: config.s3.bucket };
  await putObject(bucket, 'probe/hello.txt', 'survives');
  let temporal = await connectClient(config);
  // A workflow nobody serves stays Running: it must still be there after a restart.
  await temporal.client.workflow.start('noSuchWorkflow', { taskQueue: 'nobody', workflowId: 'survivor' });
  await temporal.close();

  await stackDown(config, () => {}, paths);
  expect(stackStatus(config, paths).every((s) => s.pid === undefined)).toBe(true);

  const again = await stackUp(config, () => {}, paths);
  expect(again.started.sort()).toEqual(['seaweedfs', 'temporal']);
  expect(await getText(bucket, 'probe/hello.txt')).toBe('survives');
  // The master starts without its earlier Raft state (local-stack.ts): it must still place new writes.
  await putObject(bucket, 'probe/after.txt', 'written after the restart');
  expect(await getText(bucket, 'probe/after.txt')).toBe('written after the restart');
  temporal = await connectClient(config);
  const described = await temporal.client.workflow.getHandle('survivor').describe();
  expect(described.status.name).toBe('RUNNING');
  await temporal.close();
  s3.destroy();
});

it('refuses to start when a port is taken by another process, naming the port', async () => {
  const squatter = net.createServer();
  await new Promise<void>((r) => squatter.listen(7533, '127.0.0.1', r));
  try {
    const other = parseConfig({ ...env, TEMPORAL_ADDRESS: '127.0.0.1:7533', EXPLORA_TEMPORAL_UI: 'http://127.0.0.1:8633' });
    const otherPaths = stackPaths({ ...process.env, ...env, EXPLORA_DATA_DIR: path.join(dataDir, 'other') });
    await expect(stackUp(other, () => {}, otherPaths)).rejects.toThrow(/port 7533 \(Temporal frontend\).*taken/);
  } finally {
    squatter.close();
  }
});
