/** Thin helpers over @aws-sdk/client-s3: the only module that talks to S3 directly. */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ServiceException,
} from '@aws-sdk/client-s3';
import type { ExploraConfig } from '../domain/config/env.js';

// The SDK warns on every start that a future release will need Node 22; we pin the SDK, so the
// warning is noise in every CLI's output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export function s3ClientFor(config: ExploraConfig): S3Client {
  const c = config.s3.credentials;
  return new S3Client({
    endpoint: config.s3.endpoint,
    region: config.s3.region,
    forcePathStyle: config.s3.forcePathStyle,
    // Without static keys the SDK's default chain finds them: AWS_* variables, AWS_PROFILE's shared
    // config and credentials files, web identity, container and instance roles.
    ...(c.kind === 'static' ? { credentials: { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey } } : {}),
    // Temporal owns the retries of activities; SDK retries would hide an outage inside one attempt.
    maxAttempts: 1,
    // Checksums only where the API requires them (the SDK's behaviour before 3.729): by default
    // the SDK adds a CRC32 to every PUT, which the store then verifies, and checks one on every
    // GET that carries it; a sweep makes a request every few samples, and that CPU lands on the
    // same cores as the programs. What travels is still covered by TCP's checksum and, off this
    // machine, by TLS's integrity check, as it was before the SDK's default changed.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** Where this configuration takes S3 credentials from, for messages. */
export function describeS3Credentials(config: ExploraConfig, env: Record<string, string | undefined> = process.env): string {
  const c = config.s3.credentials;
  if (c.kind === 'static') return `static keys from ${c.source}`;
  const where = [
    env.AWS_ACCESS_KEY_ID ? 'AWS_ACCESS_KEY_ID' : undefined,
    `profile ${env.AWS_PROFILE || 'default'} (${env.AWS_SHARED_CREDENTIALS_FILE || '~/.aws/credentials'}, ${env.AWS_CONFIG_FILE || '~/.aws/config'})`,
    env.AWS_WEB_IDENTITY_TOKEN_FILE ? `web identity ${env.AWS_WEB_IDENTITY_TOKEN_FILE}` : undefined,
    env.AWS_CONTAINER_CREDENTIALS_FULL_URI || env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI ? 'the container role' : 'the instance role',
  ].filter(Boolean);
  return `the AWS credential chain: ${where.join(', ')}`;
}

export class S3AccessError extends Error {}

/**
 * Checks, before any work starts, that credentials are found and the bucket answers to them: a
 * worker without credentials stops at once naming where it looked, rather than failing every
 * activity it picks up.
 */
export async function checkS3Access(config: ExploraConfig, s3: S3Client): Promise<void> {
  const from = describeS3Credentials(config);
  try {
    await s3.config.credentials();
  } catch (err) {
    throw new S3AccessError(
      `no S3 credentials: EXPLORA_S3_ACCESS_KEY_ID/EXPLORA_S3_SECRET_ACCESS_KEY are unset and ${from} gave none (${(err as Error).message.split('\n')[0]}); ` +
        'set the keys, AWS_PROFILE with a credentials file, or give the machine a role',
    );
  }
  try {
    await s3.send(new HeadBucketCommand({ Bucket: config.s3.bucket }));
  } catch (err) {
    const e = err as S3ServiceException & { $metadata?: { httpStatusCode?: number } };
    const status = e.$metadata?.httpStatusCode;
    if (status === 403 || status === 401 || /AccessDenied|InvalidAccessKeyId|SignatureDoesNotMatch|Forbidden/.test(e.name ?? '')) {
      // A HEAD answer has no body, so the SDK names its error "Unknown": the status is what is known.
      const said = e.name && e.name !== 'Unknown' ? `, ${e.name}` : '';
      throw new S3AccessError(
        `S3 ${config.s3.endpoint ?? 'aws'} refused the credentials from ${from} for bucket ${config.s3.bucket} (HTTP ${status ?? '?'}${said})`,
      );
    }
    // A missing bucket is created by those who need it; other errors show up where they happen.
    if (isNotFound(err)) return;
    const unreachable = unreachableS3(config, err);
    if (unreachable) throw new S3AccessError(unreachable);
    throw err;
  }
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH']);

/**
 * A connection to S3 that failed, said naming the service and its address (`connect ECONNREFUSED
 * 127.0.0.1:8333` alone leaves a user to guess what listens there); null for any other error.
 */
export function unreachableS3(config: Pick<ExploraConfig, 's3'>, err: unknown): string | null {
  let code: string | undefined;
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const c = (e as { code?: unknown }).code;
    if (typeof c === 'string' && CONNECTION_CODES.has(c)) {
      code = c;
      break;
    }
  }
  if (!code) return null;
  const endpoint = config.s3.endpoint ?? 'aws';
  const local = endpoint === 'http://127.0.0.1:8333' || endpoint === 'http://localhost:8333';
  const what = code === 'ECONNREFUSED' ? 'refused the connection' : `could not be reached (${code})`;
  return (
    `S3${local ? ' (SeaweedFS, the local stack)' : ''} at ${endpoint} ${what}: ` +
    (local ? 'start the stack (npm run stack:up)' : 'check EXPLORA_S3_ENDPOINT and that the store is up')
  );
}

export function isNotFound(err: unknown): boolean {
  const e = err as Partial<S3ServiceException> & { $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** An S3 location in one bucket; every function takes the client and bucket it works on. */
export interface Bucket {
  s3: S3Client;
  name: string;
}

export async function headMetadata(b: Bucket, key: string): Promise<Record<string, string> | null> {
  try {
    const out = await b.s3.send(new HeadObjectCommand({ Bucket: b.name, Key: key }));
    return out.Metadata ?? {};
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

export async function getText(b: Bucket, key: string): Promise<string | null> {
  try {
    const out = await b.s3.send(new GetObjectCommand({ Bucket: b.name, Key: key }));
    return (await out.Body?.transformToString('utf8')) ?? '';
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

export async function getBytes(b: Bucket, key: string): Promise<Uint8Array | null> {
  try {
    const out = await b.s3.send(new GetObjectCommand({ Bucket: b.name, Key: key }));
    return (await out.Body?.transformToByteArray()) ?? new Uint8Array();
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

export async function putObject(
  b: Bucket,
  key: string,
  body: string | Uint8Array,
  opts: { contentType?: string; metadata?: Record<string, string> } = {},
): Promise<void> {
  await b.s3.send(
    new PutObjectCommand({
      Bucket: b.name,
      Key: key,
      Body: body,
      ContentType: opts.contentType ?? 'application/octet-stream',
      Metadata: opts.metadata,
    }),
  );
}

/**
 * putObject for a content-addressed key (the key names the content's hash): an object already there
 * with the same length is that content, so it is not sent again. Returns whether it was written.
 */
export async function putObjectOnce(
  b: Bucket,
  key: string,
  body: string | Uint8Array,
  opts: { contentType?: string; metadata?: Record<string, string> } = {},
): Promise<boolean> {
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  try {
    const head = await b.s3.send(new HeadObjectCommand({ Bucket: b.name, Key: key }));
    if (head.ContentLength === length) return false;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  await putObject(b, key, body, opts);
  return true;
}

/**
 * Uploads a local file as one object, streamed from disk: memory does not grow with its size.
 * Its length is given: the SDK sends a stream in one request only when it knows the length.
 */
export async function putFile(
  b: Bucket,
  key: string,
  path: string,
  opts: { contentType?: string; metadata?: Record<string, string> } = {},
): Promise<void> {
  const { size } = await stat(path);
  const body = createReadStream(path);
  try {
    await b.s3.send(
      new PutObjectCommand({
        Bucket: b.name,
        Key: key,
        Body: body,
        ContentLength: size,
        ContentType: opts.contentType ?? 'application/octet-stream',
        Metadata: opts.metadata,
      }),
    );
  } finally {
    body.destroy();
  }
}

/** A conditional request lost its race: 412, or AWS's 409 when another write was in progress. */
function isPreconditionFailed(err: unknown): boolean {
  const e = err as Partial<S3ServiceException> & { $metadata?: { httpStatusCode?: number } };
  const status = e?.$metadata?.httpStatusCode;
  return e?.name === 'PreconditionFailed' || e?.name === 'ConditionalRequestConflict' || status === 412 || status === 409;
}

/** An object's text and its ETag (for a later compare-and-swap), or null when it does not exist. */
export async function getVersioned(b: Bucket, key: string): Promise<{ text: string; etag: string } | null> {
  try {
    const out = await b.s3.send(new GetObjectCommand({ Bucket: b.name, Key: key }));
    const text = (await out.Body?.transformToString('utf8')) ?? '';
    if (!out.ETag) throw new Error(`S3 returned ${key} without an ETag: compare-and-swap needs one`);
    return { text, etag: out.ETag };
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

/**
 * Writes the object only if it is still at version `etag` (or, with `etag` null, only if it does
 * not exist): S3's conditional writes. Returns the new ETag, or null when the condition failed.
 */
export async function putIfVersion(b: Bucket, key: string, body: string, etag: string | null): Promise<string | null> {
  try {
    const out = await b.s3.send(
      new PutObjectCommand({
        Bucket: b.name,
        Key: key,
        Body: body,
        ContentType: 'application/json',
        ...(etag === null ? { IfNoneMatch: '*' } : { IfMatch: etag }),
      }),
    );
    if (!out.ETag) throw new Error(`S3 stored ${key} without returning an ETag: compare-and-swap needs one`);
    return out.ETag;
  } catch (err) {
    if (isPreconditionFailed(err) || (etag !== null && isNotFound(err))) return null;
    throw err;
  }
}

/** Deletes the object only if it is still at version `etag`; false when it changed meanwhile. */
export async function deleteIfVersion(b: Bucket, key: string, etag: string): Promise<boolean> {
  try {
    await b.s3.send(new DeleteObjectCommand({ Bucket: b.name, Key: key, IfMatch: etag }));
    return true;
  } catch (err) {
    if (isPreconditionFailed(err) || isNotFound(err)) return false;
    throw err;
  }
}

/**
 * Whether the store honours conditional writes and deletes (a store that ignores the headers would
 * let two writers both win). Leaves nothing behind.
 */
export async function supportsConditionalWrites(
  b: Bucket,
  key = `_explora/probes/conditional-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`,
): Promise<boolean> {
  let etag: string | null = null;
  try {
    etag = await putIfVersion(b, key, 'first', null);
    if (etag === null) return false;
    const second = await putIfVersion(b, key, 'second', null);
    const staleDelete = await deleteIfVersion(b, key, '"0123456789abcdef0123456789abcdef"');
    return second === null && !staleDelete;
  } catch {
    return false;
  } finally {
    if (etag !== null) await b.s3.send(new DeleteObjectCommand({ Bucket: b.name, Key: key })).catch(() => undefined);
  }
}

/** Deletes an object; one already gone is fine. */
export async function deleteObject(b: Bucket, key: string): Promise<void> {
  try {
    await b.s3.send(new DeleteObjectCommand({ Bucket: b.name, Key: key }));
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

/** Every object under `prefix`, with its last-modified time (S3's clock) and size, page by page. */
export async function* listObjects(b: Bucket, prefix: string): AsyncGenerator<{ key: string; modifiedMs: number; bytes: number }> {
  let token: string | undefined;
  do {
    const out = await b.s3.send(new ListObjectsV2Command({ Bucket: b.name, Prefix: prefix, ContinuationToken: token }));
    for (const o of out.Contents ?? []) if (o.Key) yield { key: o.Key, modifiedMs: o.LastModified?.getTime() ?? 0, bytes: o.Size ?? 0 };
    token = out.IsTruncated ? out.NextContinuationToken : undefined;
  } while (token);
}

export async function* listKeys(b: Bucket, prefix: string): AsyncGenerator<string> {
  for await (const o of listObjects(b, prefix)) yield o.key;
}

export function s3Uri(bucket: string, key: string): string {
  return `s3://${bucket}/${key}`;
}
