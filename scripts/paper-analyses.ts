/**
 * `tsx scripts/paper-analyses.ts SWEEP_ID [--cell CELL] [--json]`: the ExploraCoder paper's analyses
 * for every cell of a finished sweep (or one cell) from its stored traces and results: the cost per
 * task per stage (Table 6's units), the share of subtasks that needed debugging (p1) and still failed
 * after it (p2), and CoAE subtask success against final pass. Definitions: domain/report/paperAnalyses.ts
 * and docs/methods.md ("The paper's analyses"). Cells whose method writes no traces (direct, rag)
 * show zero traced tasks. The traces are read by activities/storage/paperAnalyses.ts, which the HTML
 * report's analyses section uses too.
 */
import { Command } from 'commander';
import { z } from 'zod';
import { environmentHelp } from '../domain/config/env.js';
import { loadConfig } from '../infra/config.js';
import { cellPaperAnalyses } from '../activities/storage/paperAnalyses.js';
import { formatPaperAnalyses } from '../domain/report/paperAnalyses.js';
import { sweepResultsKey } from '../domain/sweep/keys.js';
import { getText, s3ClientFor, type Bucket } from '../infra/s3.js';
import { issuesLine } from '../domain/datasets/issues.js';

const SweepResultsSchema = z
  .object({ cells: z.array(z.object({ resultsKey: z.string(), cell: z.object({ cell: z.string() }).passthrough() }).passthrough()) })
  .passthrough();
const CellResultsSchema = z
  .object({
    per_task: z.array(
      z.object({ task_id: z.string(), n: z.number().int().nonnegative(), c: z.number().int().nonnegative() }).passthrough(),
    ),
  })
  .passthrough();

async function readJson<T>(bucket: Bucket, key: string, schema: z.ZodType<T>, what: string): Promise<T> {
  const text = await getText(bucket, key);
  if (text === null) throw new Error(`${what}: nothing at s3://${bucket.name}/${key}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`${what}: s3://${bucket.name}/${key} is not JSON (${(err as Error).message})`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`${what}: s3://${bucket.name}/${key}: ${issuesLine(parsed.error, { root: '(root)' })}`);
  return parsed.data;
}

async function cellAnalyses(bucket: Bucket, sweepId: string, cell: string, resultsKey: string) {
  const results = await readJson(bucket, resultsKey, CellResultsSchema, `sweep ${sweepId} cell ${cell} results`);
  return cellPaperAnalyses(bucket, sweepId, cell, results.per_task);
}

new Command('paper-analyses')
  .argument('<sweep-id>', 'sweep id')
  .option('--cell <cell>', 'only this cell, e.g. pbe.qwen-0.5b.exploracoder-debug.t0.8')
  .option('--json', 'JSON instead of text tables', false)
  .addHelpText('after', environmentHelp(['s3']))
  .action(async (sweepId: string, flags: { cell?: string; json: boolean }) => {
    const env = loadConfig(process.env);
    const bucket = { s3: s3ClientFor(env), name: env.s3.bucket };
    try {
      const sweep = await readJson(bucket, sweepResultsKey(sweepId), SweepResultsSchema, `sweep ${sweepId} (has it finished?)`);
      const cells = flags.cell === undefined ? sweep.cells : sweep.cells.filter((c) => c.cell.cell === flags.cell);
      if (cells.length === 0)
        throw new Error(`sweep ${sweepId} has no cell ${flags.cell} (cells: ${sweep.cells.map((c) => c.cell.cell).join(', ')})`);
      const analyses = [];
      for (const c of cells) analyses.push({ cell: c.cell.cell, ...(await cellAnalyses(bucket, sweepId, c.cell.cell, c.resultsKey)) });
      if (flags.json) console.log(JSON.stringify({ sweep: sweepId, cells: analyses }, null, 2));
      else console.log(analyses.map(({ cell, ...a }) => formatPaperAnalyses(cell, a)).join('\n\n'));
    } finally {
      bucket.s3.destroy();
    }
  })
  .parseAsync()
  .catch((err: Error) => {
    console.error(`paper-analyses: ${err.message}`);
    process.exit(1);
  });
