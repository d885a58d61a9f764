/**
 * Where a generated dataset lives in the bucket, and how it is cut into shards. Pure, so the
 * workflow (which plans shards) and the activities (which write them) agree by construction.
 */
import { z } from 'zod';

export const DatasetNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,99}$/, 'dataset names are 1-100 of a-z 0-9 . _ - and start with a letter or digit');

export const DEFAULT_SHARD_SIZE = 5_000;
/** part-NNNNN: five digits, so no dataset may need more shards than this. */
export const MAX_SHARDS = 100_000;

export const datasetPrefix = (name: string) => `datasets/${name}/`;
export const specKey = (name: string) => `${datasetPrefix(name)}spec.json`;
export const manifestKey = (name: string) => `${datasetPrefix(name)}manifest.json`;
export const shardKey = (name: string, shardIndex: number) => `${datasetPrefix(name)}part-${String(shardIndex).padStart(5, '0')}.jsonl`;

export function shardCount(count: number, shardSize: number): number {
  return Math.ceil(count / shardSize);
}

/** Task indices [start, end) of one shard. */
export function shardRange(shardIndex: number, shardSize: number, count: number): { start: number; end: number } {
  const start = shardIndex * shardSize;
  return { start, end: Math.min(count, start + shardSize) };
}

export const datasetWorkflowId = (name: string) => `explora-dataset/${name}`;
