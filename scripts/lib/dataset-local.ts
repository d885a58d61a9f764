/** `--local`: the same JSONL as the workflow writes, streamed to a file without Temporal or S3. */
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { generateLines } from '../../domain/pbe/generate.js';
import type { PbeParams } from '../../domain/pbe/params.js';
import { progressBar } from './progress.js';

export async function writeDatasetLocally(params: PbeParams, outFile: string, opts: { progress: boolean }): Promise<void> {
  // Written beside the target and renamed at the end: an interrupted run never leaves a file that
  // looks complete.
  const partial = `${outFile}.partial`;
  const out = createWriteStream(partial);
  const bar = progressBar('generating', opts.progress);
  let done = 0;
  try {
    for (const line of generateLines(params, 0, params.count)) {
      // Respect backpressure, so memory stays flat however large the dataset.
      if (!out.write(line)) await once(out, 'drain');
      if (++done % 1000 === 0) bar.update(done, params.count);
    }
    out.end();
    await once(out, 'finish');
    await rename(partial, outFile);
  } catch (err) {
    out.destroy();
    await rm(partial, { force: true });
    throw err;
  } finally {
    bar.update(done, params.count);
    bar.stop();
  }
  console.error(`wrote ${done} tasks to ${outFile}`);
}
