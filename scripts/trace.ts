/**
 * `tsx scripts/trace.ts SWEEP_ID --cell CELL --task TASK [--sample N] [--summary]`: the stored trace
 * of one task of a multi-step method (ExploraCoder's plan, recommended APIs, every candidate with its
 * observation, selections, debug rounds and final code; self-repair's rounds). TASK is the task's
 * index in the sweep's dataset or its task_id. Prints JSON, or with --summary a readable outline.
 */
import { Command } from 'commander';
import { environmentHelp } from '../domain/config/env.js';
import { loadConfig } from '../infra/config.js';
import { findMethod, outlineTrace } from '../domain/methods/registry.js';
import { ExplorationTraceSchema, type ExplorationTrace } from '../domain/report/trace.js';
import { cellTraceKey, sweepResultsKey } from '../domain/sweep/keys.js';
import { getText, s3ClientFor, type Bucket } from '../infra/s3.js';

async function taskIndexOf(bucket: Bucket, sweepId: string, cell: string, task: string): Promise<number> {
  if (/^\d+$/.test(task)) return Number(task);
  const results = await getText(bucket, sweepResultsKey(sweepId));
  if (results === null) throw new Error(`sweep ${sweepId} has no results yet: give the task's index instead of its id`);
  const parsed = JSON.parse(results) as { cells: Array<{ resultsKey: string; cell: { cell: string } }> };
  const entry = parsed.cells.find((c) => c.cell.cell === cell);
  if (!entry) throw new Error(`sweep ${sweepId} has no cell ${cell} (cells: ${parsed.cells.map((c) => c.cell.cell).join(', ')})`);
  const detail = JSON.parse((await getText(bucket, entry.resultsKey)) ?? '{}') as { per_task?: Array<{ task_id: string }> };
  const index = detail.per_task?.findIndex((t) => t.task_id === task) ?? -1;
  if (index < 0) throw new Error(`cell ${cell} has no task ${task}`);
  return index;
}

function outline(trace: ExplorationTrace, sample: number | undefined): string {
  const lines = [`${trace.method} on ${trace.task_id ?? `task ${trace.task_index}`}`];
  if (trace.prompt_template) {
    const scope = findMethod(trace.method ?? '')?.promptTemplateScope;
    lines.push(`prompt template: ${JSON.stringify(trace.prompt_template)}${scope ? ` (shapes ${scope})` : ''}`);
  }
  if (trace.plan) lines.push('plan:', ...trace.plan.split('\n').map((l) => `  ${l}`));
  lines.push(...outlineTrace(trace.method ?? '', trace, sample));
  for (const f of trace.finals ?? []) {
    if (sample !== undefined && f.sample_index !== sample) continue;
    lines.push(`final, sample ${f.sample_index}:`, ...f.code.split('\n').map((l) => `    ${l}`));
  }
  if (trace.cost)
    lines.push(
      `cost beyond final answers: ${trace.cost.calls} calls, ${trace.cost.prompt_tokens}+${trace.cost.completion_tokens} tokens, ${trace.cost.sandbox_runs} sandbox runs`,
    );
  return lines.join('\n');
}

new Command('trace')
  .argument('<sweep-id>', 'sweep id')
  .requiredOption('--cell <cell>', 'cell id, e.g. pbe.my-model.exploracoder.t0.8')
  .requiredOption('--task <task>', "the task's index in the dataset, or its task_id")
  .option('--sample <n>', 'only this sample of the final answers / repairs', (v: string) => {
    if (!/^\d+$/.test(v)) throw new Error(`--sample ${v}: must be a sample index (0, 1, ...)`);
    return Number(v);
  })
  .option('--summary', 'a readable outline instead of JSON', false)
  .addHelpText('after', environmentHelp(['s3']))
  .action(async (sweepId: string, flags: { cell: string; task: string; sample?: number; summary: boolean }) => {
    const env = loadConfig(process.env);
    const bucket = { s3: s3ClientFor(env), name: env.s3.bucket };
    try {
      const index = await taskIndexOf(bucket, sweepId, flags.cell, flags.task);
      const key = cellTraceKey(sweepId, flags.cell, index);
      const text = await getText(bucket, key);
      if (text === null)
        throw new Error(
          `no trace at s3://${env.s3.bucket}/${key} (is ${flags.cell} a multi-step method's cell, and has task ${index} finished?)`,
        );
      const trace = ExplorationTraceSchema.parse(JSON.parse(text));
      if (flags.summary) console.log(outline(trace, flags.sample));
      else {
        const filtered =
          flags.sample === undefined
            ? trace
            : {
                ...trace,
                finals: trace.finals?.filter((f) => f.sample_index === flags.sample),
                repairs: trace.repairs?.filter((r) => r.sample_index === flags.sample),
              };
        console.log(JSON.stringify(filtered, null, 2));
      }
    } finally {
      bucket.s3.destroy();
    }
  })
  .parseAsync()
  .catch((err: Error) => {
    console.error(`trace: ${err.message}`);
    process.exit(1);
  });
