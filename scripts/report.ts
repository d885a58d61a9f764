/**
 * `tsx scripts/report.ts <sweep-id> [--out DIR]`: the HTML report of a finished sweep, built from its
 * results in S3 and written to DIR/report-<id>.html (the path is printed). Self-contained: open it
 * in any browser, offline.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { environmentHelp } from '../domain/config/env.js';
import { loadConfig } from '../infra/config.js';
import { sweepReportKey } from '../domain/report/model.js';
import { SweepIdSchema } from '../domain/sweep/config.js';
import { buildSweepReportHtml } from '../activities/storage/report.js';
import { putObject, s3ClientFor, s3Uri } from '../infra/s3.js';

function positiveInt(flag: string) {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${flag} must be a positive integer`);
    return n;
  };
}

new Command('report')
  .description('Write the HTML report of a finished sweep (config, pass@k, curves, cost, per-task outcomes, samples)')
  .argument('<sweep-id>', 'sweep id')
  .option('--out <dir>', 'directory to write report-<id>.html into', '.')
  .option('--max-tasks <n>', 'tasks per dataset in the samples drill-down (a stratified sample beyond)', positiveInt('--max-tasks'), 40)
  .option('--max-samples <n>', 'samples per task and cell in the drill-down', positiveInt('--max-samples'), 8)
  .option('--store', `also store the page in S3 at ${sweepReportKey('<id>')}`, false)
  .addHelpText('after', environmentHelp(['s3']))
  .action(async (sweepId: string, flags: { out: string; maxTasks: number; maxSamples: number; store: boolean }) => {
    const id = SweepIdSchema.safeParse(sweepId);
    if (!id.success) throw new Error(`sweep id ${JSON.stringify(sweepId)}: ${id.error.issues[0]!.message}`);
    const env = loadConfig(process.env);
    const s3 = s3ClientFor(env);
    const bucket = { s3, name: env.s3.bucket };
    try {
      const html = await buildSweepReportHtml(bucket, sweepId, { maxDrillTasks: flags.maxTasks, maxSamplesPerCell: flags.maxSamples });
      mkdirSync(flags.out, { recursive: true });
      const file = path.resolve(flags.out, `report-${sweepId}.html`);
      writeFileSync(`${file}.partial`, html);
      renameSync(`${file}.partial`, file);
      if (flags.store) {
        await putObject(bucket, sweepReportKey(sweepId), html, { contentType: 'text/html; charset=utf-8' });
        console.error(`stored: ${s3Uri(bucket.name, sweepReportKey(sweepId))}`);
      }
      console.log(file);
    } finally {
      s3.destroy();
    }
  })
  .parseAsync()
  .catch((err: Error) => {
    console.error(`report: ${err.message}`);
    process.exit(1);
  });
