/** `tsx scripts/stack.ts up|down|status`: the local Temporal + SeaweedFS stack. */
import { Command } from 'commander';
import { parseConfig } from '../domain/config/env.js';
import { stackDown, stackPaths, stackStatus, stackUp } from '../stack/local-stack.js';

const program = new Command('stack').description('Start, stop or inspect the local stack (Temporal dev server + SeaweedFS S3)');
const log = (line: string) => console.error(`stack: ${line}`);

program
  .command('up')
  .description('start whatever is not running, wait until healthy (idempotent)')
  .action(async () => {
    const config = parseConfig(process.env);
    await stackUp(config, log);
    console.log(
      `ready: Temporal ${config.temporal.address} (Web UI ${config.temporal.uiUrl}), S3 ${config.s3.endpoint} bucket ${config.s3.bucket}, data in ${stackPaths().dataDir}`,
    );
  });
program
  .command('down')
  .description('stop the stack cleanly; data stays in the data folder')
  .action(async () => stackDown(parseConfig(process.env), log));
program
  .command('status')
  .description('print which services run')
  .action(() => {
    for (const s of stackStatus(parseConfig(process.env))) console.log(`${s.name}: ${s.pid ? `running (pid ${s.pid})` : 'stopped'}`);
  });

program.parseAsync().catch((err: Error) => {
  console.error(`stack: ${err.message}`);
  process.exit(1);
});
