/**
 * start-sweep and outages: following a sweep through a Temporal that stops answering for ~25 s
 * (past the SDK's own ~20 s of retries), it waits and says so, and ends with the results (it exited
 * 1, "Failed to get Workflow execution history"); a finished sweep started again needs no Temporal;
 * S3 down is named as such. The runs that need no Temporal go on while the outage lasts.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getText } from '../../infra/s3.js';
import { sweepResultsKey } from '../../domain/sweep/keys.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { sleep, waitUntil } from '../support/poll.js';
import { killHard, runTs, spawnTs } from '../support/processes.js';
import { startScriptedLlmServer } from '../support/scripted-llm-server.js';
import { startTcpProxy } from '../support/tcp-proxy.js';
import { HUMANEVAL_DATASETS_YAML, oneSampleDirectYaml, scriptedAnswers, scriptedModelYaml, scriptedSweepFixture } from './support.js';

const { config, env } = testConfig();
const TASKS = 4;
const fx = scriptedSweepFixture(config, 'temporal-outage', TASKS, 0);

describe('start-sweep through outages', () => {
  it('waits through a Temporal outage while following a sweep; a finished one needs no Temporal; S3 down is named', async () => {
    const llm = await startScriptedLlmServer(scriptedAnswers(fx.problems, new Map(), 2_000));
    const [host, port] = config.temporal.address.split(':');
    const proxy = await startTcpProxy({ host: host!, port: Number(port) });
    const id = `outage-${uniqueSuffix()}`;
    const file = path.join(fx.dir, `${id}.yaml`);
    writeFileSync(
      file,
      `id: ${id}\n${HUMANEVAL_DATASETS_YAML}models:\n${scriptedModelYaml('m', llm.url, 'scripted-completions', 'completions')}${oneSampleDirectYaml(TASKS)}`,
    );
    let sweep: ReturnType<typeof spawnTs> | undefined;
    // S3 nowhere: said naming the service and its address (the config alone, so from the start).
    const noS3 = runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], {
      ...env,
      EXPLORA_S3_ENDPOINT: 'http://127.0.0.1:1',
      EXPLORA_S3_ACCESS_KEY_ID: 'any',
      EXPLORA_S3_SECRET_ACCESS_KEY: 'any',
    });
    try {
      // The workers reach Temporal directly; start-sweep, following, through the proxy.
      const served = spawnTs('workers/main.ts', ['--queues', 'workflows,storage,sandbox,llm', '--sweep-config', file], env);
      let again: Promise<{ code: number | null; output: string }> | undefined;
      try {
        sweep = spawnTs('scripts/start-sweep.ts', ['--config', file, '--worker', 'external', '--no-progress'], {
          ...env,
          TEMPORAL_ADDRESS: proxy.address,
        });
        await waitUntil(() => llm.requests().length > 0 || sweep!.child.exitCode !== null, {
          timeoutMs: 120_000,
          what: () => `the first request:\n${sweep!.output()}`,
        });
        await proxy.down();
        // Finished (the workers carry it on through the outage): started again with Temporal
        // nowhere, it shows the stored results. Meanwhile, the follower waits.
        again = waitUntil(async () => (await getText(fx.bucket, sweepResultsKey(id))) !== null, {
          timeoutMs: 120_000,
          what: 'the sweep to finish',
        }).then(() => runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], { ...env, TEMPORAL_ADDRESS: '127.0.0.1:1' }));
        // Said once the SDK's own retries (~20 s) have given up, and it goes on waiting past that.
        await waitUntil(() => /Temporal at \S+ does not answer/.test(sweep!.output()) || sweep!.child.exitCode !== null, {
          timeoutMs: 60_000,
          what: () => `the outage to be said:\n${sweep!.output()}`,
        });
        // Past its next try (2 s on), still waiting.
        await sleep(3_000);
        expect(sweep.child.exitCode, sweep.output()).toBeNull();
        await proxy.up();
        const { code } = await sweep.exited;
        expect(code, sweep.output()).toBe(0);
        expect(sweep.output()).toMatch(/Temporal at \S+ answers again/);
        expect(sweep.output()).toMatch(/^results: s3:\/\//m);
        const finished = await again;
        expect(finished.code, finished.output).toBe(0);
        expect(finished.output).toMatch(/has finished: its stored results follow; nothing was started/);
      } finally {
        await again?.catch(() => {});
        served.child.kill('SIGTERM');
        await served.exited;
      }
      const refused = await noS3;
      expect(refused.code, refused.output).toBe(1);
      expect(refused.output).toContain('S3 at http://127.0.0.1:1 refused the connection: check EXPLORA_S3_ENDPOINT');
    } finally {
      await noS3.catch(() => {});
      if (sweep && sweep.child.exitCode === null) await killHard(sweep);
      await proxy.close();
      await llm.close();
    }
  });
});
