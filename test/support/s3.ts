import type { ExploraConfig } from '../../domain/config/env.js';
import { getBytes, listKeys, listObjects, s3ClientFor, type Bucket } from '../../infra/s3.js';

export function testBucket(config: ExploraConfig): Bucket {
  return { s3: s3ClientFor(config), name: config.s3.bucket };
}

/** The dataset's parts, in order, concatenated: what a reader of the whole JSONL gets. */
export async function readDatasetParts(b: Bucket, name: string): Promise<Buffer> {
  const keys: string[] = [];
  for await (const k of listKeys(b, `datasets/${name}/part-`)) keys.push(k);
  keys.sort();
  const parts = await Promise.all(keys.map((k) => getBytes(b, k)));
  return Buffer.concat(parts.map((p) => Buffer.from(p ?? new Uint8Array())));
}

/** Last-modified time of every object under a prefix, to prove a rerun rewrote nothing. */
export async function lastModifiedUnder(b: Bucket, prefix: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for await (const o of listObjects(b, prefix)) out.set(o.key, o.modifiedMs);
  return out;
}
