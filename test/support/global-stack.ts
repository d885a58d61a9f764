import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseConfig } from '../../domain/config/env.js';
import { ensureBucket, PROJECT_ROOT, stackDown, stackUp } from '../../stack/local-stack.js';
import { TEST_BUCKET } from './config.js';

export default async function setup(): Promise<() => Promise<void>> {
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-tools.sh')], { stdio: 'inherit' });
  const config = parseConfig(process.env);
  const log = (line: string) => console.error(`[test stack] ${line}`);
  const { started } = await stackUp(config, log);
  await ensureBucket(config, TEST_BUCKET);
  return async () => {
    if (started.length) await stackDown(config, log);
  };
}
