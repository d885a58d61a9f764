/**
 * `--output-dir`: a finished sweep's cell files on local disk too, as bigcode's
 * --save_generations_path and --metric_output_path write them: DIR/<cell>/generations.json,
 * references.json, results.json and samples.jsonl, copied byte for byte from S3.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cellFileKey } from '../../domain/sweep/keys.js';
import type { CellSummary } from '../../domain/sweep/results.js';
import { getBytes, type Bucket } from '../../infra/s3.js';

const FILES = ['generations.json', 'references.json', 'results.json', 'samples.jsonl'] as const;

/** Writes every cell's files under `dir`; returns the directory. A file missing in S3 is an error naming it. */
export async function writeCellFiles(bucket: Bucket, sweepId: string, cells: readonly CellSummary[], dir: string): Promise<string> {
  const root = path.resolve(dir);
  for (const cell of cells) {
    const cellId = String(cell.cell.cell);
    const out = path.join(root, cellId);
    await mkdir(out, { recursive: true });
    for (const file of FILES) {
      const key = cellFileKey(sweepId, cellId, file);
      const bytes = await getBytes(bucket, key);
      if (bytes === null) throw new Error(`--output-dir: s3://${bucket.name}/${key} is missing`);
      await writeFile(path.join(out, file), bytes);
    }
  }
  return root;
}
