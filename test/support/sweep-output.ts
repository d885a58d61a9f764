/**
 * What the families' end-to-end sweeps share: the scripted server as a completions model and a chat
 * model in the sweep's YAML, start-sweep.ts run with --output-dir, the sweep's results read back,
 * and each cell's files in the folder checked against those stored in S3.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { cellFileKey, sweepResultsKey } from '../../domain/sweep/keys.js';
import { getText, type Bucket } from '../../infra/s3.js';
import { runTs } from './processes.js';

/** The `models:` of a sweep YAML: the scripted server as `base` (completions) and, unless told not, `chat`. */
export function scriptedModelsYaml(url: string, { chat = true }: { chat?: boolean } = {}): string {
  return (
    `models:\n  - id: base\n    base_url: ${url}\n    model: scripted-base\n    api: completions\n` +
    (chat ? `  - id: chat\n    base_url: ${url}\n    model: scripted-chat\n` : '')
  );
}

/** The files every cell writes to --output-dir, as they are stored in S3. */
export const CELL_FILES = ['generations.json', 'references.json', 'results.json', 'samples.jsonl'] as const;

/**
 * Writes the sweep's YAML to `<dir>/sweep.yaml` and runs start-sweep.ts on it with --output-dir
 * `<dir>/out` (and `flags`): its exit code and output, the folder, and (when it exited 0) the
 * sweep's results as stored.
 */
export async function sweepWithOutputDir(input: {
  dir: string;
  id: string;
  yaml: string;
  env: Record<string, string>;
  bucket: Bucket;
  flags?: string[];
}): Promise<{ code: number | null; output: string; outDir: string; results: { cells: any[] } }> {
  const file = path.join(input.dir, 'sweep.yaml');
  writeFileSync(file, input.yaml);
  const outDir = path.join(input.dir, 'out');
  const run = await runTs(
    'scripts/start-sweep.ts',
    ['--config', file, '--no-progress', ...(input.flags ?? []), '--output-dir', outDir],
    input.env,
  );
  expect(run.code, run.output).toBe(0);
  const results = JSON.parse((await getText(input.bucket, sweepResultsKey(input.id)))!);
  return { code: run.code, output: run.output, outDir, results };
}

/** Each of a cell's files in --output-dir is, byte for byte, the one stored in S3. */
export async function expectCellFilesAsStored(bucket: Bucket, sweepId: string, outDir: string, cellId: string): Promise<void> {
  for (const f of CELL_FILES)
    expect(readFileSync(path.join(outDir, cellId, f), 'utf8'), `${cellId}/${f}`).toBe(
      await getText(bucket, cellFileKey(sweepId, cellId, f)),
    );
}

/** A cell's JSON file in --output-dir (evaluation_results.json, references.json, results.json), parsed. */
export function outputJson(outDir: string, cellId: string, name: string): any {
  return JSON.parse(readFileSync(path.join(outDir, cellId, name), 'utf8'));
}
