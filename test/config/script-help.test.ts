/** Every script that reads the environment says which variables in its `--help`, with their defaults. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ENV_DOC, type EnvGroup } from '../../domain/config/env.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/** What each script reads: Temporal (connection, queues), S3 (datasets, results), the sandbox's interpreter. */
const READS: Record<string, readonly EnvGroup[]> = {
  'start-sweep': ['temporal', 's3', 'sandbox'],
  'sweep-status': ['temporal', 's3'],
  'generate-dataset': ['temporal', 's3'],
  trace: ['s3'],
  'paper-analyses': ['s3'],
  report: ['s3'],
  'check-references': ['s3', 'sandbox'],
  stack: ['temporal', 's3'],
};

describe('--help lists the environment a script reads', () => {
  for (const [script, groups] of Object.entries(READS)) {
    it(script, async () => {
      const { stdout } = await run(process.execPath, ['bin/run.mjs', `scripts/${script}.ts`, '--help'], { cwd: ROOT });
      const section = stdout.slice(stdout.indexOf('\nEnvironment'));
      expect(section.length).toBeGreaterThan(1);
      for (const [name, , , group] of ENV_DOC) {
        if (groups.includes(group))
          expect(section, `${script} --help names ${name}`).toMatch(new RegExp(`^  ${name} +\\S.*\\(default `, 'm'));
        else expect(section, `${script} --help does not name ${name}, which it does not read`).not.toContain(`  ${name} `);
      }
    });
  }
});
