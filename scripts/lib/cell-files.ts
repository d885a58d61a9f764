/**
 * `--output-dir`: a finished sweep's cell files on local disk too, as bigcode's
 * --save_generations_path and --metric_output_path write them: DIR/<cell>/generations.json,
 * references.json, results.json and samples.jsonl, copied byte for byte from S3; beside them the
 * peers' own files (domain/sweep/peerFiles.ts): bigcode's evaluation_results.json for every cell,
 * evalplus's eval_results.json for evalplus cells, BigCodeBench's eval_results.json and pass_at_k.json for its.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cellFileKey } from '../../domain/sweep/keys.js';
import { evalplusDate, peerFiles, type SampleOutcome } from '../../domain/sweep/peerFiles.js';
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
    const text: Partial<Record<(typeof FILES)[number], string>> = {};
    for (const file of FILES) {
      const key = cellFileKey(sweepId, cellId, file);
      const bytes = await getBytes(bucket, key);
      if (bytes === null) throw new Error(`--output-dir: s3://${bucket.name}/${key} is missing`);
      await writeFile(path.join(out, file), bytes);
      text[file] = Buffer.from(bytes).toString('utf8');
    }
    const samples = text['samples.jsonl']!.split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as SampleOutcome);
    const generations = JSON.parse(text['generations.json']!) as string[][];
    for (const [name, body] of Object.entries(peerFiles(cell, generations, samples, evalplusDate(new Date()))))
      await writeFile(path.join(out, name), body);
  }
  return root;
}
