import { z } from 'zod';

/**
 * What a dataset is: everything that determines its bytes. Two requests for the same name must
 * agree on all of it, or the second is refused.
 */
export const DatasetSpecSchema = z.object({
  format: z.literal('pbe-world'),
  /** Bumped whenever the generator's output for the same parameters would change. */
  generator_version: z.string(),
  name: z.string(),
  shard_size: z.number().int().positive(),
  params: z.record(z.string(), z.unknown()),
});
export type DatasetSpec = z.infer<typeof DatasetSpecSchema>;

export const StoredSpecSchema = DatasetSpecSchema.extend({ created_at: z.string(), spec_sha256: z.string() });
export type StoredSpec = z.infer<typeof StoredSpecSchema>;

export const ShardInfoSchema = z.object({
  key: z.string(),
  rows: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type ShardInfo = z.infer<typeof ShardInfoSchema>;

export const ManifestSchema = StoredSpecSchema.extend({
  total_rows: z.number().int().nonnegative(),
  total_bytes: z.number().int().nonnegative(),
  shards: z.array(ShardInfoSchema),
  completed_at: z.string(),
});
export type Manifest = z.infer<typeof ManifestSchema>;

/** Stable JSON: keys sorted at every level, so equal specs hash equally. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );
}

/** Names the fields on which two specs differ, for an error a person can act on. */
export function describeSpecDifferences(existing: DatasetSpec, requested: DatasetSpec): string[] {
  const out: string[] = [];
  const a = { ...existing.params, shard_size: existing.shard_size, generator_version: existing.generator_version };
  const b = { ...requested.params, shard_size: requested.shard_size, generator_version: requested.generator_version };
  for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    const x = JSON.stringify((a as Record<string, unknown>)[key]);
    const y = JSON.stringify((b as Record<string, unknown>)[key]);
    if (x !== y) out.push(`${key}: existing ${x ?? 'unset'}, requested ${y ?? 'unset'}`);
  }
  return out;
}
