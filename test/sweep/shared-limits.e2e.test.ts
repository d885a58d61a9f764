/**
 * Two worker processes serve one model: together they keep to the model's `concurrency` and
 * `requests_per_second` (each takes half), instead of each keeping to all of it. Real stack, real
 * worker processes, a scripted server that records what reached it.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorkerLeases } from '../../infra/llm/workerLeases.js';
import { getText } from '../../infra/s3.js';
import { llmTaskQueue, sweepResultsKey, sweepWorkflowId } from '../../domain/sweep/keys.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { waitUntil } from '../support/poll.js';
import { killHard, runTs, spawnTs, type Spawned } from '../support/processes.js';
import { activityWorkers, connectClient } from '../support/temporal.js';
import { expectedCounts, HUMANEVAL_DATASETS_YAML, oneSampleDirectYaml, scriptedSweepFixture } from './support.js';

const { config, env } = testConfig();
const TASKS = 24;
const ANSWER_MS = 300;
const CONCURRENCY = 2;
const RATE = 5;
const { bucket, dir, problems, server } = scriptedSweepFixture(config, 'shared-limits', TASKS, ANSWER_MS);

describe("a model's limits with two workers", () => {
  it('two worker processes together keep to the concurrency and the rate of the model', async () => {
    const id = `shared-limits-${uniqueSuffix()}`;
    const file = path.join(dir, `${id}.yaml`);
    writeFileSync(
      file,
      `id: ${id}
${HUMANEVAL_DATASETS_YAML}models:
  - id: shared
    base_url: ${server().url}
    model: scripted-completions
    api: completions
    concurrency: ${CONCURRENCY}
    requests_per_second: ${RATE}
    request_timeout_s: 10
${oneSampleDirectYaml(TASKS)}`,
    );
    const queue = llmTaskQueue(config.taskQueues.llm, 'shared');
    const workers: Spawned[] = [];
    const { client, close } = await connectClient(config);
    try {
      for (let i = 0; i < 2; i++) workers.push(spawnTs('workers/main.ts', ['--sweep-config', file, '--sandbox-concurrency', '2'], env));
      // Both hold their leases on the model's queue before the sweep starts, so each sees the other from its first request.
      const counter = new WorkerLeases(bucket, { refreshMs: 0 });
      await waitUntil(async () => (await counter.count(queue)) >= 2, {
        what: () => `both workers' leases on ${queue}:\n${workers.map((w) => w.output()).join('\n---\n')}`,
        timeoutMs: 90_000,
        intervalMs: 250,
      });
      const sweep = await runTs('scripts/start-sweep.ts', ['--config', file, '--worker', 'external', '--no-progress'], env);
      expect(sweep.code, sweep.output).toBe(0);
      // Both workers asked the model: the limits were kept by the two of them, not by one alone.
      expect((await activityWorkers(client, sweepWorkflowId(id), queue)).size).toBe(2);
    } finally {
      await Promise.all(workers.map(killHard));
      await close();
    }

    const requests = server().requests();
    expect(requests).toHaveLength(TASKS);
    expect(new Set(requests.map((r) => r.key)).size).toBe(TASKS);
    // Each worker keeps CONCURRENCY / 2 in flight: never more than CONCURRENCY at once (each alone
    // would have kept CONCURRENCY, 2 x CONCURRENCY together).
    expect(server().inFlight().max).toBeLessThanOrEqual(CONCURRENCY);
    // Each worker starts RATE / 2 per second: any stretch of requests took at least as long as
    // the rate allows, give or take two per worker (its first start, out of phase with the other's,
    // and one start late from a busy event loop, which its next booked start then follows closely).
    // Each worker on the whole rate, as before, would send ~2 x RATE per second.
    const times = requests.map((r) => r.time).sort((a, b) => a - b);
    for (let i = 0; i < times.length; i++) {
      for (let j = i + 1; j < times.length; j++)
        expect(j - i, `requests ${i}..${j} within ${times[j]! - times[i]!} ms`).toBeLessThanOrEqual(
          ((times[j]! - times[i]! + 50) / 1000) * RATE + 4,
        );
    }
    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!);
    const detail = JSON.parse((await getText(bucket, results.cells[0].resultsKey))!);
    expect(detail.per_task.map((t: { n: number; c: number }) => [t.n, t.c])).toEqual(expectedCounts(problems, 1).map((e) => [e.n, e.c]));
  });
});
