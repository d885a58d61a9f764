/** `npm run temporal -- ...` runs the Temporal CLI the stack installed, or says how to install it. */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

describe('npm run temporal', () => {
  it("runs the installed CLI with the user's arguments", async () => {
    const { stdout } = await run('bash', [path.join(ROOT, 'scripts/temporal.sh'), '--version'], { cwd: ROOT });
    expect(stdout).toMatch(/temporal version \d+\.\d+/);
  });

  it('names what is missing and the command that installs it', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'explora-no-tools-'));
    const failed = await run('bash', [path.join(ROOT, 'scripts/temporal.sh'), 'workflow', 'list'], {
      env: { ...process.env, EXPLORA_TOOLS_DIR: empty },
    }).catch((err: { code: number; stderr: string }) => err);
    expect(failed).toMatchObject({ code: 2 });
    expect((failed as { stderr: string }).stderr).toContain(`${empty}/py/bin/temporal is not installed; run 'npm run setup'`);
  });
});
