/**
 * Storage-queue activities of dataset generation. Each is idempotent: keys are deterministic and
 * every activity first looks at what S3 already holds, so a retry or a restarted workflow redoes
 * nothing that was finished.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  canonicalJson,
  describeSpecDifferences,
  ManifestSchema,
  StoredSpecSchema,
  type DatasetSpec,
  type Manifest,
  type ShardInfo,
} from '../../domain/datasets/manifest.js';
import { manifestKey, shardCount, shardKey, shardRange, specKey } from '../../domain/datasets/layout.js';
import { generateLines } from '../../domain/pbe/generate.js';
import type { PbeParams } from '../../domain/pbe/params.js';
import { mapLimit } from '../../infra/mapLimit.js';
import { getText, headMetadata, putObject, s3Uri, sha256Hex, type Bucket } from '../../infra/s3.js';

export const PBE_GENERATOR_VERSION = '1';

export interface DatasetRequest {
  name: string;
  params: PbeParams;
  shardSize: number;
}

export interface PreparedDataset {
  specSha256: string;
  numShards: number;
  /** Set when the dataset was already complete: nothing left to do. */
  summary: DatasetSummary | null;
}

export interface ShardRequest extends DatasetRequest {
  shardIndex: number;
  specSha256: string;
}

export interface ShardResult extends ShardInfo {
  shardIndex: number;
  reused: boolean;
}

export interface DatasetSummary {
  name: string;
  uri: string;
  manifestKey: string;
  rows: number;
  bytes: number;
  shards: number;
}

export const DATASET_CONFLICT = 'DatasetParamsConflict';

function specOf(req: DatasetRequest): DatasetSpec {
  return {
    format: 'pbe-world',
    generator_version: PBE_GENERATOR_VERSION,
    name: req.name,
    shard_size: req.shardSize,
    params: req.params as unknown as Record<string, unknown>,
  };
}

function summaryOf(bucket: string, m: Manifest): DatasetSummary {
  return {
    name: m.name,
    uri: s3Uri(bucket, manifestKey(m.name).replace(/manifest\.json$/, '')),
    manifestKey: manifestKey(m.name),
    rows: m.total_rows,
    bytes: m.total_bytes,
    shards: m.shards.length,
  };
}

export class DatasetConflictError extends Error {}

/**
 * Compares a request with the spec recorded for its name and returns the spec's hash. Throws
 * DatasetConflictError, naming the differing fields, when they disagree; with `record`, writes the
 * spec when the name is new.
 */
export async function checkDatasetSpec(bucket: Bucket, req: DatasetRequest, opts: { record?: boolean } = {}): Promise<string> {
  const spec = specOf(req);
  const specSha256 = sha256Hex(canonicalJson(spec));
  const existingText = await getText(bucket, specKey(req.name));
  if (existingText !== null) {
    const existing = StoredSpecSchema.parse(JSON.parse(existingText));
    if (existing.spec_sha256 !== specSha256) {
      throw new DatasetConflictError(
        `dataset "${req.name}" already exists with different parameters (${describeSpecDifferences(existing, spec).join('; ')}); ` +
          `choose another --name or repeat the original parameters`,
      );
    }
  } else if (opts.record) {
    const stored = { ...spec, created_at: new Date().toISOString(), spec_sha256: specSha256 };
    await putObject(bucket, specKey(req.name), JSON.stringify(stored, null, 2) + '\n', { contentType: 'application/json' });
  }
  return specSha256;
}

export function createDatasetActivities(bucket: Bucket) {
  async function readManifest(name: string): Promise<Manifest | null> {
    const text = await getText(bucket, manifestKey(name));
    return text === null ? null : ManifestSchema.parse(JSON.parse(text));
  }

  return {
    /**
     * Records the dataset's spec on first use and refuses a request for the same name with other
     * parameters (non-retryable: retrying cannot make them agree).
     */
    async prepareDataset(req: DatasetRequest): Promise<PreparedDataset> {
      let specSha256: string;
      try {
        specSha256 = await checkDatasetSpec(bucket, req, { record: true });
      } catch (err) {
        if (err instanceof DatasetConflictError) throw ApplicationFailure.nonRetryable(err.message, DATASET_CONFLICT);
        throw err;
      }
      const manifest = await readManifest(req.name);
      return {
        specSha256,
        numShards: shardCount(req.params.count, req.shardSize),
        summary: manifest && manifest.spec_sha256 === specSha256 ? summaryOf(bucket.name, manifest) : null,
      };
    },

    /** Writes one part-NNNNN.jsonl, unless a finished copy for the same spec is already there. */
    async generateShard(req: ShardRequest): Promise<ShardResult> {
      const key = shardKey(req.name, req.shardIndex);
      const meta = await headMetadata(bucket, key);
      if (meta && meta['spec-sha256'] === req.specSha256 && meta.sha256 && meta.rows && meta.bytes) {
        return { shardIndex: req.shardIndex, key, rows: Number(meta.rows), bytes: Number(meta.bytes), sha256: meta.sha256, reused: true };
      }
      const { start, end } = shardRange(req.shardIndex, req.shardSize, req.params.count);
      const lines: string[] = [];
      let i = start;
      for (const line of generateLines(req.params, start, end)) {
        lines.push(line);
        if (++i % 1000 === 0) Context.current().heartbeat(i - start);
      }
      const body = Buffer.from(lines.join(''), 'utf8');
      const sha256 = sha256Hex(body);
      await putObject(bucket, key, body, {
        contentType: 'application/x-ndjson',
        metadata: { 'spec-sha256': req.specSha256, sha256, rows: String(end - start), bytes: String(body.length) },
      });
      return { shardIndex: req.shardIndex, key, rows: end - start, bytes: body.length, sha256, reused: false };
    },

    /** Writes manifest.json from the shards' own metadata, so it needs no state from the workflow. */
    async finalizeDataset(req: DatasetRequest & { specSha256: string }): Promise<DatasetSummary> {
      const existing = await readManifest(req.name);
      if (existing && existing.spec_sha256 === req.specSha256) return summaryOf(bucket.name, existing);
      const specText = await getText(bucket, specKey(req.name));
      if (specText === null) throw new Error(`spec of dataset "${req.name}" vanished from the bucket before its manifest was written`);
      const spec = StoredSpecSchema.parse(JSON.parse(specText));
      const indices = Array.from({ length: shardCount(req.params.count, req.shardSize) }, (_, i) => i);
      let checked = 0;
      const shards = await mapLimit(indices, 16, async (i): Promise<ShardInfo> => {
        const key = shardKey(req.name, i);
        const meta = await headMetadata(bucket, key);
        if (!meta || meta['spec-sha256'] !== req.specSha256 || !meta.sha256) {
          throw new Error(`shard ${key} is missing or belongs to another spec; the workflow should have written it`);
        }
        if (++checked % 500 === 0) Context.current().heartbeat(checked);
        return { key, rows: Number(meta.rows), bytes: Number(meta.bytes), sha256: meta.sha256 };
      });
      const manifest: Manifest = {
        ...spec,
        total_rows: shards.reduce((a, s) => a + s.rows, 0),
        total_bytes: shards.reduce((a, s) => a + s.bytes, 0),
        shards,
        completed_at: new Date().toISOString(),
      };
      await putObject(bucket, manifestKey(req.name), JSON.stringify(manifest, null, 2) + '\n', { contentType: 'application/json' });
      return summaryOf(bucket.name, manifest);
    },
  };
}

export type DatasetActivities = ReturnType<typeof createDatasetActivities>;
