/** `tsx scripts/stack.ts up|down|status`: the local Temporal + SeaweedFS stack. */
import { Command } from 'commander';
import { environmentHelp, parseConfig } from '../domain/config/env.js';
import { stackDown, stackPaths, stackStatus, stackUp } from '../stack/local-stack.js';

/** The stack's own variables, beside the Temporal and S3 ones every script reads (stack/local-stack.ts). */
const STACK_ENV = [
  ['EXPLORA_TOOLS_DIR', '.tools', 'where install-tools.sh put the binaries and the model'],
  ['EXPLORA_DATA_DIR', '.data', "the services' data and logs"],
  ['EXPLORA_WEED_MASTER_PORT', '9333', "SeaweedFS master's port (also _FILER_ 8888, _VOLUME_ 9340, _ADMIN_ 9346)"],
  ['EXPLORA_STACK_MODEL', 'on', 'off: no embedded model server'],
  ['EXPLORA_MODEL_PORT', '8090', "the embedded model server's port"],
  ['EXPLORA_MODEL_PATH', 'the installed GGUF', "the embedded model's weights"],
  ['EXPLORA_MODEL_SLOTS', '8', 'sequences the embedded model decodes together'],
] as const;

const program = new Command('stack')
  .description('Start, stop or inspect the local stack (Temporal dev server + SeaweedFS S3)')
  .addHelpText(
    'after',
    environmentHelp(['temporal', 's3']) +
      '\n' +
      STACK_ENV.map(([name, fallback, what]) => `  ${name.padEnd(30)} ${what} (default ${fallback})`).join('\n'),
  );
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
