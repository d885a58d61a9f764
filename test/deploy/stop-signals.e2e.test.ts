/**
 * A stop signal drains, it does not kill: a worker (as `npm run worker` and the image run it: node
 * with tsx's loader) and start-sweep's in-process workers, stopped by SIGTERM or SIGINT, once or
 * twice 2 ms apart (one stop, said once) and once more a second later (said and ignored), while
 * LLM requests are in flight, start no request after it, let those in flight finish, remove their
 * leases and exit 0. The sweep they served then completes with every request sent exactly once:
 * nothing in flight was cut short and sent again. generate-dataset, stopped mid-run, detaches the
 * same way, and run again completes the dataset.
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

const { config, env } = testConfig();
const TASKS = 24;
const N = 2;
const fx = scriptedSweepFixture(config, 'stop-signals', TASKS, 1000);
const queue = llmTaskQueue(config.taskQueues.llm, 'm');

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

/**
 * `npm run worker`, as an operator runs it: npm passes the signal on and waits; the script's `exec`
 * makes node npm's child (without it, npm's `sh -c` took the SIGTERM and died, the worker never
 * seeing it).
 */
function spawnNpmWorker(args: string[]): Spawned {
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

/** A sweep on the scripted server; `model` names its requests (and so its cache) apart from the other test's. */
function sweepFile(id: string, model: string): string {
  const file = path.join(fx.dir, `${id}.yaml`);
  writeFileSync(
    file,
    `id: ${id}
datasets:
  - name: humaneval
    family: humaneval
    path: ${HUMANEVAL}
models:
${scriptedModelYaml('m', fx.server().url, model, 'completions')}methods: [direct]
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

async function keysOf(prefix: string): Promise<string[]> {
  const out: string[] = [];
  for await (const o of listObjects(fx.bucket, prefix)) out.push(o.key);
  return out;
}

/** The leases on the model's queue held by the process `pid`. */
async function leasesOf(pid: number): Promise<string[]> {
  const out: string[] = [];
  for await (const o of listObjects(fx.bucket, `llm-workers/${queue}/`)) if (o.key.includes(`-${pid}-`)) out.push(o.key);
  return out;
}

/**
 * Waits for the process's lease and for one of its LLM requests in flight, then signals it as the
 * variant says. Twice: 2 ms apart (the kernel may merge the two into one when the process is not
 * scheduled in between), then once more when it has said it is stopping and a request is still in
 * flight, so that a signal certainly arrives mid-stop.
 */
async function stopUnderLoad(
  p: Spawned,
  v: Variant,
  stopping: RegExp,
): Promise<{ exit: { code: number | null; signal: NodeJS.Signals | null }; again: boolean }> {
  let pid = 0;
  await waitUntil(
    async () => {
      pid = workerPid(p, v) ?? 0;
      return p.child.exitCode !== null || (pid > 0 && (await leasesOf(pid)).length > 0);
    },
    { timeoutMs: 90_000, what: () => `a lease of ${pid}:\n${p.output()}` },
  );
  const before = fx.server().requests().length;
  await waitUntil(() => p.child.exitCode !== null || (fx.server().inFlight().now > 0 && fx.server().requests().length > before), {
    timeoutMs: 60_000,
    what: () => `an LLM request in flight:\n${p.output()}`,
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
    // Later, while it is still stopping (not once it has stopped and exits): said, and ignored.
    await sleep(Math.max(0, firstAt + SAME_STOP_MS + 50 - Date.now()));
    if (p.child.exitCode === null && !/stopped on SIG/.test(p.output())) again = p.child.kill(v.signal);
  }
  const exit = await p.exited;
  expect(await leasesOf(pid), p.output()).toEqual([]);
  return { exit, again };
}

async function expectCompleteAndExactlyOnce(id: string, file: string, model: string): Promise<void> {
  const base = spawnTs('workers/main.ts', ['--queues', 'llm', '--sweep-config', file], env);
  try {
    const done = await runTs('scripts/sweep-status.ts', [id, '--watch'], env);
    expect(done.code, `${done.output}\n${base.output()}`).toBe(0);
  } finally {
    base.child.kill('SIGTERM');
    await base.exited;
  }
  const results = JSON.parse((await getText(fx.bucket, sweepResultsKey(id)))!);
  expect(results.cells).toHaveLength(1);
  expect(results.cells[0].tasks).toBe(TASKS);
  const expected = expectedCounts(fx.problems, N);
  const pass1 = expected.reduce((sum, c) => sum + c.c / c.n, 0) / TASKS;
  expect(results.cells[0].passAtK['pass@1']).toBeCloseTo(pass1, 6);
  // Every request once: the ones in flight at each stop were answered and kept, not sent again.
  const byKey = new Map<string, number>();
  for (const r of fx.server().requests()) if (r.body.model === model) byKey.set(r.key, (byKey.get(r.key) ?? 0) + 1);
  const counts = [...byKey.values()];
  expect(counts.length).toBe(TASKS * N);
  expect(
    counts.every((c) => c === 1),
    JSON.stringify(counts),
  ).toBe(true);
}

describe('stop signals drain', () => {
  it('a worker stopped by SIGTERM or SIGINT, once or twice 2 ms apart, under load (and through npm run worker): requests in flight finish, lease removed, exit 0', async () => {
    const id = `stop-worker-${uniqueSuffix()}`;
    const model = `stop-worker-${uniqueSuffix()}`;
    const file = sweepFile(id, model);
    const others = spawnTs('workers/main.ts', ['--queues', 'workflows,storage,sandbox'], env);
    try {
      const started = await runTs('scripts/start-sweep.ts', ['--config', file, '--worker', 'external', '--no-wait'], env);
      expect(started.code, started.output).toBe(0);
      let mid = 0;
      for (const v of [...VARIANTS, { signal: 'SIGTERM', times: 1, via: 'npm' } as const]) {
        const args = ['--queues', 'llm', '--sweep-config', file];
        const worker = v.via === 'npm' ? spawnNpmWorker(args) : spawnTs('workers/main.ts', args, env);
        try {
          const { exit, again } = await stopUnderLoad(worker, v, /worker: SIG\w+: stopping/);
          expect(exit, `${v.signal} x${v.times}:\n${worker.output()}`).toEqual({ code: 0, signal: null });
          expect(worker.output()).toMatch(new RegExp(`worker: ${v.signal}: stopping: no new tasks; [1-9]\\d* activit`));
          expect(worker.output()).toMatch(
            new RegExp(`worker: stopped on ${v.signal}: tasks in flight done or handed back, leases removed`),
          );
          if (again) mid++;
          if (again)
            expect(worker.output()).toMatch(new RegExp(`worker: ${v.signal} ignored: already stopping \\(on ${v.signal}\\), waiting for`));
        } finally {
          if (worker.child.exitCode === null) await killHard(worker);
        }
      }
      // A signal reached it mid-stop at least once (the repeated ones were not all merged).
      expect(mid).toBeGreaterThan(0);
      await expectCompleteAndExactlyOnce(id, file, model);
    } finally {
      others.child.kill('SIGTERM');
      await others.exited;
    }
  });

  it('start-sweep with in-process workers, stopped by Ctrl-C (SIGINT twice) under load: detaches, its workers drain, lease removed, exit 0', async () => {
    const id = `stop-sweep-${uniqueSuffix()}`;
    const model = `stop-sweep-${uniqueSuffix()}`;
    const file = sweepFile(id, model);
    let mid = 0;
    // Ctrl-C's SIGINT, doubled as a terminal's Ctrl-C reaches it: SIGTERM reaches the same handler
    // (onStopSignals, unit-tested), and the worker above stops on each of them for real.
    for (const v of VARIANTS.filter((variant) => variant.signal === 'SIGINT')) {
      const sweep = spawnTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
      try {
        const { exit, again } = await stopUnderLoad(sweep, v, /start-sweep: SIG\w+: detaching/);
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
    const others = spawnTs('workers/main.ts', ['--queues', 'workflows,storage,sandbox'], env);
    try {
      await expectCompleteAndExactlyOnce(id, file, model);
    } finally {
      others.child.kill('SIGTERM');
      await others.exited;
    }
  });

  it('generate-dataset with in-process workers, SIGTERM twice mid-run: detaches, its workers drain, exit 0; run again, it completes', async () => {
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
      await sleep(2);
      first.child.kill('SIGTERM');
      expect(await first.exited, first.output()).toEqual({ code: 0, signal: null });
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
