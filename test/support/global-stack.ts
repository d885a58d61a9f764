import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { Connection } from '@temporalio/client';
import { parseConfig, type ExploraConfig } from '../../domain/config/env.js';
import { isNotFound, s3ClientFor } from '../../infra/s3.js';
import { ensureBucket, ensureNamespace, modelBaseUrl, stackDown, stackPaths, stackUp } from '../../stack/local-stack.js';
import { TEST_BUCKET, TEST_ENV } from './config.js';

/** Whether Temporal, S3 and the embedded model (unless EXPLORA_STACK_MODEL=off) all answer. */
async function stackAnswers(config: ExploraConfig): Promise<boolean> {
  try {
    const connection = await Connection.connect({ address: config.temporal.address, connectTimeout: 2000 });
    await connection.workflowService.getSystemInfo({});
    await connection.close();
    const s3 = s3ClientFor(config);
    try {
      await s3.send(new HeadBucketCommand({ Bucket: config.s3.bucket }));
    } catch (err) {
      if (!isNotFound(err)) throw err;
    } finally {
      s3.destroy();
    }
    const model = modelBaseUrl(stackPaths());
    if (model && !(await fetch(`${model.replace(/\/v1$/, '')}/health`, { signal: AbortSignal.timeout(2000) })).ok) return false;
    return true;
  } catch {
    return false;
  }
}

/**
 * The end-to-end tests' stack: a stack that answers (e.g. one started from another clone) is used
 * as it is; otherwise this clone's is brought up, and down again afterwards if this started it.
 * Tests then run in a namespace and a bucket of their own (TEST_ENV, set by vitest.config.ts for
 * every test file and inherited by the processes they spawn), so the user's namespace and bucket
 * see none of their workflows and objects. What the stack runs is installed by the test command's
 * set-up (`npm run setup -- --tests`), checked by test-tools.ts before this runs.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const config = parseConfig({ ...process.env, ...TEST_ENV });
  const log = (line: string) => console.error(`[test stack] ${line}`);
  let started: string[] = [];
  if (await stackAnswers(config)) log(`using the running stack (Temporal ${config.temporal.address}, S3 ${config.s3.endpoint ?? 'aws'})`);
  else ({ started } = await stackUp(config, log));
  await ensureNamespace(config);
  await ensureBucket(config, TEST_BUCKET);
  log(`tests use Temporal namespace ${config.temporal.namespace} and bucket ${TEST_BUCKET}`);
  return async () => {
    if (started.length) await stackDown(config, log);
  };
}
