/**
 * Batch mode's own overhead per N requests (default 10,000): the bookkeeping around a provider
 * batch, not the provider's time. On the shared stack's S3, against the scripted Batch API server
 * in front of a scripted LLM server (test/support), it times, wall and this process's CPU:
 * prepare (plan the requests, look them up in the cache, store the request sets), submit (hold
 * them in the in-flight ledgers, upload, create), the polls (each renews the hold), and collect
 * (read the output file, store every answer in the LLM cache, release the hold). It prints what a
 * batch's polling adds to its workflow's history for a few batch durations at the default back-off.
 *
 *   node bin/run.mjs scripts/bench/bench-batch-overhead.ts [--requests 10000] [--tasks 100]
 */
import { Command } from 'commander';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createBatchActivities } from '../../activities/llm/batch.js';
import { isFinalBatchState } from '../../domain/llm/batchLines.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import type { LlmEndpoint } from '../../domain/llm/request.js';
import { laidOut } from '../../infra/llm/llm.js';
import { planOf, storeRequestSets, uncachedOf } from '../../infra/llm/batchPlan.js';
import { directRequestBody } from '../../methods/direct/request.js';
import { testConfig, uniqueSuffix } from '../../test/support/config.js';
import { testBucket } from '../../test/support/s3.js';
import { startScriptedBatchServer } from '../../test/support/scripted-batch-server.js';
import { startScriptedLlmServer } from '../../test/support/scripted-llm-server.js';

const opts = new Command()
  .option('--requests <n>', 'requests in the batch', '10000')
  .option('--tasks <n>', 'tasks they are spread over (cache groups)', '100')
  .parse()
  .opts<{ requests: string; tasks: string }>();
const requests = Number(opts.requests);
const tasks = Number(opts.tasks);
const perTask = Math.ceil(requests / tasks);

const problem = (i: number) =>
  ({
    family: 'humaneval',
    task_id: `B/${i}`,
    prompt: `def f${i}(x):\n    """Task ${i}."""\n`,
    entry_point: `f${i}`,
    test: 'def check(f):\n    assert f(1) == 1\n',
    form: 'completion',
  }) as SweepProblem;

/** Wall ms and this process's CPU ms of `work`. */
async function timed<T>(what: string, work: () => Promise<T>): Promise<T> {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  const out = await work();
  const used = process.cpuUsage(cpu);
  console.log(
    `${what.padEnd(10)} wall ${(performance.now() - wall).toFixed(0).padStart(7)} ms  CPU ${((used.user + used.system) / 1000).toFixed(0).padStart(7)} ms`,
  );
  return out;
}

const { config } = testConfig();
const bucket = testBucket(config);
const llm = await startScriptedLlmServer(() => ({ content: '    return x\n' }), { keepRequests: false });
const server = await startScriptedBatchServer({ upstream: llm.url });
const endpoint: LlmEndpoint = {
  id: 'bench',
  baseUrl: server.url,
  model: `bench-${uniqueSuffix()}`,
  api: 'completions',
  requestTimeoutS: 60,
  batch: { maxRequests: 50_000, maxBytes: 200 * 1024 * 1024, retryRounds: 0, pollS: 0.2, maxPollS: 1 },
};
const real = createBatchActivities(bucket);
const act =
  <I, O>(fn: (input: I) => Promise<O>) =>
  (input: I): Promise<O> =>
    new MockActivityEnvironment().run(fn, input) as Promise<O>;
const prefix = `bench-batch/${uniqueSuffix()}/`;
console.log(`${requests} requests over ${tasks} tasks, one sample a request; node ${process.version}`);
try {
  const sets = await timed('prepare', async () => {
    const plan = Array.from({ length: tasks }, (_, t) =>
      laidOut(
        endpoint,
        Array.from({ length: Math.min(perTask, requests - t * perTask) }, (_, i) => i),
        (first, choices) =>
          directRequestBody(
            problem(t),
            'completions',
            { model: endpoint.model, temperature: 0.8, top_p: 0.95, max_tokens: 64 },
            first,
            choices,
          ),
      ),
    ).flatMap((calls) => planOf(endpoint, calls));
    return storeRequestSets(bucket, endpoint, await uncachedOf(bucket, endpoint, plan), prefix);
  });
  const set = sets[0]!;
  const { batchId } = await timed('submit', () =>
    act((i: Parameters<typeof real.submitBatch>[0]) => real.submitBatch(i))({
      endpoint,
      set,
      round: 1,
      sweepId: 'bench',
      cellId: 'bench',
      notBeforeS: Math.floor(Date.now() / 1000) - 60,
    }),
  );
  let polls = 0;
  // The scripted provider answers the lines upstream in this process meanwhile: its CPU is in this figure.
  await timed('wait+polls', async () => {
    for (;;) {
      polls++;
      if (
        isFinalBatchState(
          (await act((i: Parameters<typeof real.pollBatch>[0]) => real.pollBatch(i))({ endpoint, batchId: batchId!, set })).status,
        )
      )
        return;
      await new Promise((r) => setTimeout(r, 200));
    }
  });
  // What one poll costs us (renewing the hold included), without the scripted provider's work.
  await timed('one poll', () => act((i: Parameters<typeof real.pollBatch>[0]) => real.pollBatch(i))({ endpoint, batchId: batchId!, set }));
  const collected = await timed('collect', () =>
    act((i: Parameters<typeof real.collectBatch>[0]) => real.collectBatch(i))({ endpoint, batchId: batchId!, set, prefix }),
  );
  console.log(`polls ${polls} (the scripted provider's own time included in their wall); answers stored ${collected.samples}`);
  // Each poll in batchAnswersWorkflow: a durable timer (started, fired), the pollBatch activity
  // (scheduled, started, completed) and two workflow tasks (3 events each): 11 history events.
  const pollsFor = (batchS: number, pollS = 30, maxPollS = 600) => {
    let n = 0;
    for (let t = 0, w = pollS; t < batchS; t += w, w = Math.min(w * 2, maxPollS)) n++;
    return n;
  };
  for (const hours of [0.5, 2, 24])
    console.log(
      `a batch of ${hours} h at the default back-off (30 s doubling to 600 s): ${pollsFor(hours * 3600)} polls, ${11 * pollsFor(hours * 3600)} history events`,
    );
} finally {
  await server.close();
  await llm.close();
  bucket.s3.destroy();
}
