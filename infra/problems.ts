/** Reading a sweep's problems from S3, kept in memory per worker process (a sweep reads them often). */
import { gunzipSync } from 'node:zlib';
import { parseJsonl } from '../domain/datasets/jsonl.js';
import { SweepProblemSchema, type SweepProblem } from '../domain/datasets/problems.js';
import { getBytes, type Bucket } from './s3.js';

export function decodeMaybeGzip(bytes: Uint8Array): string {
  const buf = Buffer.from(bytes);
  return (buf[0] === 0x1f && buf[1] === 0x8b ? gunzipSync(buf) : buf).toString('utf8');
}

const cache = new Map<string, Promise<SweepProblem[]>>();
const MAX_CACHED = 8;

export function loadProblems(bucket: Bucket, key: string): Promise<SweepProblem[]> {
  const id = `${bucket.name}/${key}`;
  let entry = cache.get(id);
  if (!entry) {
    entry = (async () => {
      const bytes = await getBytes(bucket, key);
      if (bytes === null) throw new Error(`problems ${key} are missing from bucket ${bucket.name}`);
      return parseJsonl(decodeMaybeGzip(bytes), SweepProblemSchema, key).map((r) => r.row);
    })();
    entry.catch(() => cache.delete(id));
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
    cache.set(id, entry);
  }
  return entry;
}
