/** Reading a sweep's problems from S3, kept in memory per worker process (a sweep reads them often). */
import { decodeMaybeGzip } from './gzipText.js';
import { parseJsonl } from '../domain/datasets/jsonl.js';
import { SweepProblemSchema, type SweepProblem } from '../domain/datasets/problems.js';
import { getBytes, type Bucket } from './s3.js';

export { decodeMaybeGzip };

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
