/**
 * The S3 client's requests carry no checksum the API does not require: by default the SDK computes
 * a CRC32 of every PUT body (and the store verifies it), CPU a sweep pays every few samples
 * (docs/benchmarks.md, "Sweep overhead"). The request is caught before it is signed or sent, so
 * no store is needed.
 */
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../domain/config/env.js';
import { s3ClientFor } from '../../infra/s3.js';

class Caught extends Error {
  constructor(readonly headers: Record<string, string>) {
    super('caught before sending');
  }
}

/** The headers a PutObject of `body` would be sent with, checksums included. */
async function putHeaders(client: S3Client, body: string): Promise<Record<string, string>> {
  client.middlewareStack.add(
    () => (args) => {
      throw new Caught({ ...(args.request as { headers: Record<string, string> }).headers });
    },
    { step: 'finalizeRequest', priority: 'high', name: 'catchRequest' },
  );
  try {
    await client.send(new PutObjectCommand({ Bucket: 'b', Key: 'k', Body: body }));
  } catch (err) {
    if (err instanceof Caught) return err.headers;
    throw err;
  } finally {
    client.destroy();
  }
  throw new Error('the request was sent');
}

const checksumHeaders = (headers: Record<string, string>) => Object.keys(headers).filter((h) => /checksum/i.test(h));

describe('s3ClientFor', () => {
  const config = parseConfig({
    EXPLORA_S3_ENDPOINT: 'http://127.0.0.1:9',
    EXPLORA_S3_ACCESS_KEY_ID: 'key',
    EXPLORA_S3_SECRET_ACCESS_KEY: 'secret',
  });

  it("sends PUTs without the SDK's default CRC32", async () => {
    expect(checksumHeaders(await putHeaders(s3ClientFor(config), 'x'.repeat(20_000)))).toEqual([]);
  });

  it('(the SDK left to its defaults adds one, which is what the setting removes)', async () => {
    const defaults = new S3Client({
      endpoint: config.s3.endpoint,
      region: config.s3.region,
      forcePathStyle: true,
      credentials: { accessKeyId: 'key', secretAccessKey: 'secret' },
    });
    expect(checksumHeaders(await putHeaders(defaults, 'x'.repeat(20_000)))).not.toEqual([]);
  });

  it('checks response checksums only where the API requires them', async () => {
    const client = s3ClientFor(config);
    try {
      expect(await client.config.responseChecksumValidation()).toBe('WHEN_REQUIRED');
    } finally {
      client.destroy();
    }
  });
});
