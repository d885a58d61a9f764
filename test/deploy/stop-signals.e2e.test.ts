/**
 * A stop signal drains, it does not kill: a worker (as `npm run worker` and the image run it: node
 * with tsx's loader) and start-sweep's in-process workers, stopped by SIGTERM or SIGINT, once or
 * twice 2 ms apart (one stop, said once) and once more while stopping (said and ignored), while
 * LLM requests are in flight, start no request after it, let those in flight finish, remove their
 * leases and exit 0. The sweep they served then completes with every request sent exactly once:
 * nothing in flight was cut short and sent again. generate-dataset, stopped mid-run, detaches the
 * same way, and run again completes the dataset.
 *
 * The three cases only wait (on answers, drains, process starts), so they run at once, each on task
 * queues of its own; the worker's variants too, each serving a model (a queue) of its own.
 */
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { datasetPrefix } from '../../domain/datasets/layout.js';
import { llmTaskQueue, sweepResultsKey } from '../../domain/sweep/keys.js';
import { getText, listObjects } from '../../infra/s3.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { SAME_STOP_MS } from '../../infra/stopSignals.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { sleep, waitUntil } from '../support/poll.js';
import { killHard, runTs, spawnTs, type Spawned } from '../support/processes.js';
import { expectedCounts, HUMANEVAL, scriptedModelYaml, scriptedSweepFixture, SWEEP_SEED } from '../sweep/support.js';

const TASKS = 8;
const N = 2;
/** Models whose process has stopped: their answers come at once (the rest of the sweep proves nothing more about the stop). */
const stopped = new Set<string>();
/**
 * Until then 1.5 s each: long enough for a signal to land while one is in flight and for the stop
 * to be still waiting for it 350 ms later, with room for a loaded machine's late timers.
 */
const ANSWER_MS = 1500;
const fx = scriptedSweepFixture(testConfig().config, 'stop-signals', TASKS, (req) => (stopped.has(String(req.body.model)) ? 0 : ANSWER_MS));

type Variant = { signal: NodeJS.Signals; times: 1 | 2; via?: 'npm' };
/**
 * Each signal doubled: the first of the two is a stop like a single one (the second, 2 ms later, is
 * taken silently), so a single signal needs no run of its own. SIGTERM and SIGINT reach one and the
 * same handler in every process (onStopSignals; test/deploy/stop-signals.test.ts).
 */
const VARIANTS: Variant[] = [
  { signal: 'SIGTERM', times: 2 },
  { signal: 'SIGINT', times: 2 },
];

/** The model (its id in the config, its name in requests) a variant's worker serves. */
interface Served {
  /** Model id: the worker serves the queue `<prefix>-llm-<id>`. */
  id: string;
  /** Model name in its requests: tells its requests apart on the shared scripted server. */
  model: string;
  queue: string;
}

/**
 * `npm run worker`, as an operator runs it: npm passes the signal on and waits; the script's `exec`
 * makes node npm's child (without it, npm's `sh -c` took the SIGTERM and died, the worker never
 * seeing it).
 */
function spawnNpmWorker(args: string[], env: Record<string, string>): Spawned {
  const child = spawn('npm', ['run', '--silent', 'worker', '--', ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => out, exited };
}

/** The node process serving: the spawned one, or (through npm) its only child. */
function workerPid(p: Spawned, v: Variant): number | undefined {
  if (v.via !== 'npm') return p.child.pid!;
  try {
    const kids = execFileSync('pgrep', ['-P', String(p.child.pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
    return kids.length === 1 ? kids[0] : undefined;
  } catch {
    return undefined;
  }
}

/** A sweep of the given models on the scripted server (a worker given it serves their queues). */
function sweepFile(id: string, models: readonly Served[], name = id): string {
  const file = path.join(fx.dir, `${name}.yaml`);
  writeFileSync(
    file,
    `id: ${id}
datasets:
  - name: humaneval
    family: humaneval
    path: ${HUMANEVAL}
models:
${models.map((m) => scriptedModelYaml(m.id, fx.server().url, m.model, 'completions')).join('')}methods: [direct]
temperatures: [0.5]
n_samples: ${N}
k: [1]
limit: ${TASKS}
timeout_s: 5
seed: ${SWEEP_SEED}
`,
  );
  return file;
}

function served(prefix: string, id: string): Served {
  return { id, model: `stop-${id}-${uniqueSuffix()}`, queue: llmTaskQueue(prefix, id) };
}

async function keysOf(prefix: string): Promise<string[]> {
  const out: string[] = [];
  for await (const o of listObjects(fx.bucket, prefix)) out.push(o.key);
  return out;
}

/** The leases on the model's queue held by the process `pid`. */
async function leasesOf(queue: string, pid: number): Promise<string[]> {
  const out: string[] = [];
  for await (const o of listObjects(fx.bucket, `llm-workers/${queue}/`)) if (o.key.includes(`-${pid}-`)) out.push(o.key);
  return out;
}

const requestsOf = (model: string) =>
  fx
    .server()
    .requests()
    .filter((r) => r.body.model === model);

/**
 * Waits for the process's lease and for one of its LLM requests in flight, then signals it as the
 * variant says. Twice: 2 ms apart (the kernel may merge the two into one when the process is not
 * scheduled in between), then once more when it has said it is stopping and a request is still in
 * flight, so that a signal certainly arrives mid-stop. Its model's answers are quick from then on.
 */
async function stopUnderLoad(
  p: Spawned,
  v: Variant,
  stopping: RegExp,
  m: Served,
): Promise<{ exit: { code: number | null; signal: NodeJS.Signals | null }; again: boolean }> {
  let pid = 0;
  await waitUntil(
    async () => {
      pid = workerPid(p, v) ?? 0;
      return p.child.exitCode !== null || (pid > 0 && (await leasesOf(m.queue, pid)).length > 0);
    },
    // (the cases' processes start at once: on a loaded machine a start took over a minute)
    { timeoutMs: 180_000, what: () => `a lease of ${pid}:\n${p.output()}` },
  );
  // A request sent a moment ago (not one about to be answered): the stop waits for its answer.
  const justSent = () => requestsOf(m.model).some((r) => r.answeredAt === undefined && Date.now() - r.time < ANSWER_MS / 3);
  await waitUntil(() => p.child.exitCode !== null || justSent(), {
    timeoutMs: 60_000,
    intervalMs: 50,
    what: () => `an LLM request just sent:\n${p.output()}`,
  });
  expect(p.child.exitCode, p.output()).toBeNull();
  p.child.kill(v.signal);
  const firstAt = Date.now();
  let again = false;
  if (v.times === 2) {
    // 2 ms later: the same stop (as npm's relay of a terminal's Ctrl-C), taken silently.
    await sleep(2);
    p.child.kill(v.signal);
    await waitUntil(() => stopping.test(p.output()) || p.child.exitCode !== null, {
      timeoutMs: 30_000,
      what: () => `the stop to begin:\n${p.output()}`,
    });
    // Later, while it is certainly still stopping: a request of its is unanswered, and the stop
    // waits for that answer. (Its output is no proof: what it printed last may still be in the pipe,
    // and a signal after its stop is done is not ignored aloud.)
    await sleep(Math.max(0, firstAt + SAME_STOP_MS + 50 - Date.now()));
    const unanswered = requestsOf(m.model).some((r) => r.answeredAt === undefined);
    if (p.child.exitCode === null && unanswered) again = p.child.kill(v.signal);
  }
  const exit = await p.exited;
  stopped.add(m.model);
  expect(await leasesOf(m.queue, pid), p.output()).toEqual([]);
  return { exit, again };
}

/**
 * start-sweep, run again, serves the sweep to its end with workers of its own (as the detach message
 * says): its results, and every request sent once.
 */
async function expectCompleteAndExactlyOnce(id: string, file: string, models: readonly Served[], env: Record<string, string>) {
  const done = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
  expect(done.code, done.output).toBe(0);
  const results = JSON.parse((await getText(fx.bucket, sweepResultsKey(id)))!);
  expect(results.cells).toHaveLength(models.length);
  const expected = expectedCounts(fx.problems, N);
  const pass1 = expected.reduce((sum, c) => sum + c.c / c.n, 0) / TASKS;
  for (const cell of results.cells) {
    expect(cell.tasks).toBe(TASKS);
    expect(cell.passAtK['pass@1']).toBeCloseTo(pass1, 6);
  }
  // Every request once: the ones in flight at each stop were answered and kept, not sent again.
  for (const m of models) {
    const byKey = new Map<string, number>();
    for (const r of requestsOf(m.model)) byKey.set(r.key, (byKey.get(r.key) ?? 0) + 1);
    const counts = [...byKey.values()];
    expect(counts.length, m.id).toBe(TASKS * N);
    expect(
      counts.every((c) => c === 1),
      `${m.id}: ${JSON.stringify(counts)}`,
    ).toBe(true);
  }
}

describe.concurrent('stop signals drain', () => {
  it('a worker stopped by SIGTERM or SIGINT, once or twice 2 ms apart, under load (and through npm run worker): requests in flight finish, lease removed, exit 0', async () => {
    const { config, env } = testConfig();
    const id = `stop-worker-${uniqueSuffix()}`;
    const variants = [...VARIANTS, { signal: 'SIGTERM', times: 1, via: 'npm' } as const].map((v, i) => ({
      v,
      m: served(config.taskQueues.llm, `w${i}`),
    }));
    const models = variants.map((x) => x.m);
    const file = sweepFile(id, models);
    const others = spawnTs('workers/main.ts', ['--queues', 'workflows,storage,sandbox'], env);
    try {
      const starting = runTs('scripts/start-sweep.ts', ['--config', file, '--worker', 'external', '--no-wait'], env);
      // Each variant's worker serves its own model's queue (a config of that model alone), all at once.
      const outcomes = await Promise.all(
        variants.map(async ({ v, m }) => {
          const args = ['--queues', 'llm', '--sweep-config', sweepFile(id, [m], `${id}-${m.id}`)];
          const worker = v.via === 'npm' ? spawnNpmWorker(args, env) : spawnTs('workers/main.ts', args, env);
          try {
            const { exit, again } = await stopUnderLoad(worker, v, /worker: SIG\w+: stopping/, m);
            expect(exit, `${v.signal} x${v.times}:\n${worker.output()}`).toEqual({ code: 0, signal: null });
            expect(worker.output()).toMatch(new RegExp(`worker: ${v.signal}: stopping: no new tasks; [1-9]\\d* activit`));
            expect(worker.output()).toMatch(
              new RegExp(`worker: stopped on ${v.signal}: tasks in flight done or handed back, leases removed`),
            );
            if (again)
              expect(worker.output()).toMatch(
                new RegExp(`worker: ${v.signal} ignored: already stopping \\(on ${v.signal}\\), waiting for`),
              );
            return again;
          } finally {
            if (worker.child.exitCode === null) await killHard(worker);
          }
        }),
      );
      const started = await starting;
      expect(started.code, started.output).toBe(0);
      // A signal reached a worker mid-stop at least once (the repeated ones were not all merged).
      expect(outcomes.filter(Boolean).length).toBeGreaterThan(0);
      await expectCompleteAndExactlyOnce(id, file, models, env);
    } finally {
      others.child.kill('SIGTERM');
      await others.exited;
    }
  });

  it('start-sweep with in-process workers, stopped by Ctrl-C (SIGINT twice) under load: detaches, its workers drain, lease removed, exit 0', async () => {
    const { config, env } = testConfig();
    const id = `stop-sweep-${uniqueSuffix()}`;
    const m = served(config.taskQueues.llm, 'm');
    const file = sweepFile(id, [m]);
    let mid = 0;
    // Ctrl-C's SIGINT, doubled as a terminal's Ctrl-C reaches it: SIGTERM reaches the same handler
    // (onStopSignals, unit-tested), and the worker above stops on each of them for real.
    for (const v of VARIANTS.filter((variant) => variant.signal === 'SIGINT')) {
      const sweep = spawnTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
      try {
        const { exit, again } = await stopUnderLoad(sweep, v, /start-sweep: SIG\w+: detaching/, m);
        expect(exit, `${v.signal} x${v.times}:\n${sweep.output()}`).toEqual({ code: 0, signal: null });
        expect(sweep.output()).toMatch(new RegExp(`start-sweep: ${v.signal}: detaching; stopping the in-process workers`));
        expect(sweep.output()).toMatch(/detached from sweep/);
        expect(sweep.output()).toMatch(new RegExp(`in-process workers stopped on ${v.signal}`));
        if (again) mid++;
        if (again) expect(sweep.output()).toMatch(new RegExp(`start-sweep: ${v.signal} ignored: already stopping`));
      } finally {
        if (sweep.child.exitCode === null) await killHard(sweep);
      }
    }
    expect(mid).toBeGreaterThan(0);
    await expectCompleteAndExactlyOnce(id, file, [m], env);
  });

  it('generate-dataset with in-process workers, SIGTERM twice mid-run: detaches, its workers drain, exit 0; run again, it completes', async () => {
    const { env } = testConfig();
    const name = `stop-dataset-${uniqueSuffix()}`;
    // 20 shards: many still to do when the first part is written and the stop comes.
    const args = ['--name', name, '--count', '20000', '--shard-size', '1000', '--concurrency', '2', '--no-progress'];
    const first = spawnTs('scripts/generate-dataset.ts', args, env);
    try {
      await waitUntil(() => /workflow explora-dataset\//.test(first.output()) || first.child.exitCode !== null, {
        timeoutMs: 90_000,
        what: () => first.output(),
      });
      // Shards in flight: the first part is written, the dataset is not complete.
      await waitUntil(async () => first.child.exitCode !== null || (await keysOf(datasetPrefix(name))).some((k) => /part-/.test(k)), {
        timeoutMs: 90_000,
        what: () => first.output(),
      });
      expect(first.child.exitCode, first.output()).toBeNull();
      first.child.kill('SIGTERM');
      const stoppedAt = Date.now();
      await sleep(2);
      first.child.kill('SIGTERM');
      expect(await first.exited, first.output()).toEqual({ code: 0, signal: null });
      // Back once its shards in flight are done: not held by a progress query the stopping workers
      // leave unanswered (that took 30 s).
      expect(Date.now() - stoppedAt, first.output()).toBeLessThan(20_000);
      expect(first.output()).toMatch(/generate-dataset: SIGTERM: detaching; stopping the in-process workers/);
      expect(first.output()).toMatch(/detached from workflow explora-dataset\//);
    } finally {
      if (first.child.exitCode === null) await killHard(first);
    }
    const again = await runTs('scripts/generate-dataset.ts', args, env);
    expect(again.code, again.output).toBe(0);
    expect(again.output).toMatch(new RegExp(`dataset ${name}: 20000 tasks in 20 shards`));
  });
});
