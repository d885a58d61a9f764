/**
 * Temporal payloads too large for a history go to S3, and the history holds a claim instead: the
 * SDK's External Storage (the claim-check pattern) with a driver over explora's own S3 client.
 *
 * What is large: a task's answer keys when it asks for thousands of samples (~254 bytes a sample,
 * one activity's result), the shard's execution input that carries them on. Temporal refuses a
 * payload over 2 MiB; with this, the bound is the bucket's. Every process that talks to Temporal
 * (workers, start-sweep, sweep-status, the tests' clients) has the driver: one without it could not
 * read a claim.
 *
 * Objects are named by the hash of the payload they hold (`temporal-payloads/<sha256>`), so storing
 * is idempotent (a retried workflow task or activity stores the same object again, or finds it) and
 * a claim is checked against its hash when read. They are not deleted with their workflow: a claim
 * must stay readable for as long as the history that holds it (the namespace's retention).
 *
 * Why not `@temporalio/external-storage-s3`: its one release pins `@temporalio/common` 1.22.0, where
 * the SDK here is 1.24.0, and it brings a client adapter of its own where explora has one S3 client
 * with its credentials' diagnostics (infra/s3.ts).
 */
import {
  ExternalStorage,
  StorageDriverClaim,
  type Payload,
  type StorageDriver,
  type StorageDriverRetrieveContext,
  type StorageDriverStoreContext,
} from '@temporalio/common';
import proto from '@temporalio/proto';
import type { S3Client } from '@aws-sdk/client-s3';
import { z } from 'zod';
import type { ExploraConfig } from '../../domain/config/env.js';
import { getBytes, putObjectOnce, s3Uri, sha256Hex, type Bucket } from '../s3.js';

export const PAYLOAD_PREFIX = 'temporal-payloads/';

const ClaimSchema = z.object({
  bucket: z.string().min(1),
  key: z.string().startsWith(PAYLOAD_PREFIX),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
type Claim = z.infer<typeof ClaimSchema>;

/**
 * Waits between attempts at one S3 request (the client itself tries once: infra/s3.ts). A failed
 * store fails what it completes: a workflow task (retried by the server; its timeout is 10 s, so the
 * waits stay under it) or an activity's result, and then the whole activity runs again, a shard's
 * thousands of programs with it. So an S3 blip is waited out here first.
 */
export const S3_RETRY_DELAYS_MS: readonly number[] = [250, 500, 1000, 2000, 4000];

async function patiently<T>(attempt: () => Promise<T>, delaysMs: readonly number[], signal: AbortSignal | undefined): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      if (i >= delaysMs.length || signal?.aborted) throw err;
      await new Promise((resolve) => setTimeout(resolve, delaysMs[i]));
    }
  }
}

export class S3PayloadDriver implements StorageDriver {
  readonly name = 'explora-s3';
  readonly type = 'explora.s3';

  /** `s3` is asked for at the first payload stored or read, so a process that never meets a large payload makes no client. */
  constructor(
    private readonly s3: () => S3Client,
    private readonly bucket: string,
    private readonly retryDelaysMs: readonly number[] = S3_RETRY_DELAYS_MS,
  ) {}

  async store(context: StorageDriverStoreContext, payloads: Payload[]): Promise<StorageDriverClaim[]> {
    const bucket: Bucket = { s3: this.s3(), name: this.bucket };
    return Promise.all(
      payloads.map(async (payload) => {
        const bytes = proto.temporal.api.common.v1.Payload.encode(payload).finish();
        const sha256 = sha256Hex(bytes);
        const claim: Claim = { bucket: this.bucket, key: `${PAYLOAD_PREFIX}${sha256}`, sha256 };
        await patiently(() => putObjectOnce(bucket, claim.key, bytes), this.retryDelaysMs, context.abortSignal);
        return new StorageDriverClaim(claim);
      }),
    );
  }

  async retrieve(context: StorageDriverRetrieveContext, claims: StorageDriverClaim[]): Promise<Payload[]> {
    return Promise.all(
      claims.map(async ({ claimData }) => {
        const parsed = ClaimSchema.safeParse(claimData);
        if (!parsed.success) {
          throw new Error(
            `a Temporal payload's claim is not one explora wrote: ${JSON.stringify(claimData)} (${parsed.error.issues[0]!.message})`,
          );
        }
        const claim = parsed.data;
        const where = s3Uri(claim.bucket, claim.key);
        const bytes = await patiently(
          () => getBytes({ s3: this.s3(), name: claim.bucket }, claim.key),
          this.retryDelaysMs,
          context.abortSignal,
        );
        if (bytes === null) {
          throw new Error(
            `the Temporal payload ${where} is gone: a history still refers to it (was it deleted, or expired by a lifecycle rule shorter than the namespace's retention?)`,
          );
        }
        if (sha256Hex(bytes) !== claim.sha256)
          throw new Error(`the Temporal payload ${where} does not hold what its claim names (sha256 differs)`);
        return proto.temporal.api.common.v1.Payload.decode(bytes);
      }),
    );
  }
}

/** The External Storage every Temporal client and worker of explora is given; `close` destroys the S3 client if one was made. */
export function payloadStorageFor(config: ExploraConfig, makeS3: () => S3Client): { externalStorage: ExternalStorage; close: () => void } {
  let s3: S3Client | undefined;
  const driver = new S3PayloadDriver(() => (s3 ??= makeS3()), config.s3.bucket);
  return {
    externalStorage: new ExternalStorage({ drivers: [driver], payloadSizeThreshold: config.temporal.offloadBytes }),
    close: () => s3?.destroy(),
  };
}
