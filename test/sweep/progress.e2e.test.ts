/**
 * What a sweep's progress says when it cannot make progress: with --worker external and no worker
 * on a queue the sweep needs, a warning names the queues and the command that serves them; when
 * Temporal does not answer, the display says so instead of freezing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { sweepWorkflowId } from '../../domain/sweep/keys.js';
import { showSweepProgress } from '../../scripts/lib/sweep-view.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { waitUntil } from '../support/poll.js';
import { killHard, spawnTs } from '../support/processes.js';
import { HUMANEVAL_DATASETS_YAML, oneSampleDirectYaml, scriptedModelYaml } from './support.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-progress-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('progress that tells the truth', () => {
  it('--worker external with no worker: a warning names the unserved queues and the command that serves them', async () => {
    // Queues of their own: no worker of any other test serves them.
    const prefix = `lonely-${uniqueSuffix()}`;
    const { config, env } = testConfig({ EXPLORA_TASK_QUEUE_PREFIX: prefix });
    const id = `unserved-${uniqueSuffix()}`;
    const file = path.join(dir, `${id}.yaml`);
    writeFileSync(file, `id: ${id}\n${HUMANEVAL_DATASETS_YAML}models:\n${scriptedModelYaml('m', 'http://127.0.0.1:9/v1', 'x', 'completions')}${oneSampleDirectYaml(1)}`);
    const p = spawnTs('scripts/start-sweep.ts', ['--config', file, '--worker', 'external', '--no-progress'], env);
    try {
      const output = await waitUntil(() => (/no worker serves/.test(p.output()) ? p.output() : undefined), { timeoutMs: 60_000, intervalMs: 500, what: () => `the warning, in:\n${p.output()}` });
      expect(output).toContain(`no worker serves ${prefix}-workflows, ${prefix}-storage, ${prefix}-sandbox, ${prefix}-llm-`);
      expect(output).toMatch(/npm run worker -- --queues workflows,storage,sandbox,llm --sweep-config \S+\.yaml/);
    } finally {
      await killHard(p);
      const connection = await Connection.connect({ address: config.temporal.address });
      await new Client({ connection, namespace: config.temporal.namespace }).workflow.getHandle(sweepWorkflowId(id)).terminate('test done').catch(() => undefined);
      await connection.close();
    }
  });

  it('a Temporal that does not answer: the display says so, once, instead of freezing', async () => {
    const connection = Connection.lazy({ address: '127.0.0.1:1' });
    const client = new Client({ connection, namespace: 'default' });
    const said: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((line: unknown) => void said.push(String(line)));
    try {
      const view = showSweepProgress(client, 'nowhere', true);
      await waitUntil(() => said.some((l) => l.includes('cannot query its progress')), { timeoutMs: 20_000, intervalMs: 200, what: 'the unreachable notice' });
      await new Promise((r) => setTimeout(r, 2500));
      await view.stop();
      expect(said.filter((l) => l.includes('cannot query its progress'))).toHaveLength(1);
      expect(said[0]).toMatch(/^sweep nowhere: cannot query its progress \(.+\); retrying every second\. The sweep carries on wherever workers serve it\.$/);
    } finally {
      spy.mockRestore();
      await connection.close();
    }
  });
});
