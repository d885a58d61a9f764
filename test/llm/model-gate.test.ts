/**
 * A worker's share of a model's limits: the arithmetic, the gate that enforces it on real timers,
 * and the worker count read from the real Temporal server.
 */
import { Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { ModelGate } from '../../activities/modelGate.js';
import { QueueWorkers } from '../../activities/queueWorkers.js';
import { workerShare } from '../../domain/llm/share.js';
import { testConfig, uniqueSuffix } from '../support/config.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('workerShare', () => {
  it('splits concurrency (rounded down, at least 1) and the rate among the workers', () => {
    expect(workerShare({ concurrency: 8, requestsPerSecond: 10 }, 1)).toEqual({ concurrency: 8, spacingMs: 100 });
    expect(workerShare({ concurrency: 8, requestsPerSecond: 10 }, 3)).toEqual({ concurrency: 2, spacingMs: 300 });
    expect(workerShare({ concurrency: 2 }, 5)).toEqual({ concurrency: 1, spacingMs: 0 });
    expect(workerShare({}, 2)).toEqual({ concurrency: Number.POSITIVE_INFINITY, spacingMs: 0 });
    expect(() => workerShare({ concurrency: 2 }, 0)).toThrow(/workers must be a positive integer/);
  });
});

/** Runs `requests` requests of `holdMs` each through the gate at once; returns their start times and the most in flight. */
async function runThrough(gate: ModelGate, queue: string, limits: { concurrency?: number; requestsPerSecond?: number }, requests: number, holdMs: number) {
  let inFlight = 0;
  let most = 0;
  const starts: number[] = [];
  await Promise.all(
    Array.from({ length: requests }, async () => {
      const end = await gate.enter(queue, limits, { beat: () => {} });
      starts.push(Date.now());
      inFlight++;
      most = Math.max(most, inFlight);
      await sleep(holdMs);
      inFlight--;
      end();
    }),
  );
  return { starts: starts.sort((a, b) => a - b), most };
}

describe('ModelGate', () => {
  it("keeps this worker's requests in flight to its share of the model's concurrency", async () => {
    let workers = 1;
    const gate = new ModelGate(async () => workers, 50);
    expect((await runThrough(gate, 'q', { concurrency: 4 }, 12, 40)).most).toBe(4);
    workers = 2;
    expect((await runThrough(gate, 'q', { concurrency: 4 }, 12, 40)).most).toBe(2);
    workers = 3;
    expect((await runThrough(gate, 'q', { concurrency: 4 }, 6, 40)).most).toBe(1);
    expect(gate.inFlight('q')).toBe(0);
  });

  it("spaces this worker's request starts by its share of the model's rate", async () => {
    const gate = new ModelGate(async () => 2, 50);
    const { starts } = await runThrough(gate, 'q', { requestsPerSecond: 20 }, 6, 1);
    // 20/s over two workers: 10/s here, one start every 100 ms.
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(95);
    expect(starts.at(-1)! - starts[0]!).toBeLessThan(5 * 100 + 150);
  });

  it('beats while a request waits, and a cancelled wait takes no share', async () => {
    const gate = new ModelGate(async () => 1, 20);
    const first = await gate.enter('q', { concurrency: 1 }, { beat: () => {} });
    let beats = 0;
    const abort = new AbortController();
    const waiting = gate.enter('q', { concurrency: 1 }, { beat: () => beats++, signal: abort.signal });
    await sleep(150);
    expect(beats).toBeGreaterThanOrEqual(3);
    abort.abort(new Error('cancelled'));
    await expect(waiting).rejects.toThrow('cancelled');
    expect(gate.inFlight('q')).toBe(1);
    first();
    first(); // ending twice ends once
    expect(gate.inFlight('q')).toBe(0);
    const next = await gate.enter('q', { concurrency: 1 }, { beat: () => {} });
    expect(gate.inFlight('q')).toBe(1);
    next();
  });

  it('lets everything through at once without limits', async () => {
    const gate = new ModelGate(async () => 4, 50);
    expect((await runThrough(gate, 'q', {}, 10, 30)).most).toBe(10);
  });
});

describe('QueueWorkers', () => {
  it('counts the distinct workers polling an activity queue on the real server', async () => {
    const { config } = testConfig();
    const queue = `${config.taskQueues.llm}-count-${uniqueSuffix()}`;
    const connection = await NativeConnection.connect({ address: config.temporal.address });
    const second = await NativeConnection.connect({ address: config.temporal.address });
    const workers = await Promise.all(
      ['one', 'two'].map((name, i) =>
        Worker.create({ connection: i === 0 ? connection : second, namespace: config.temporal.namespace, taskQueue: queue, identity: `${name}-${uniqueSuffix()}`, activities: { noop: async () => null } }),
      ),
    );
    const running = workers.map((w) => w.run());
    try {
      const counter = new QueueWorkers(connection.workflowService, config.temporal.namespace, 0);
      let count = 0;
      for (const deadline = Date.now() + 20_000; Date.now() < deadline && count < 2; await sleep(200)) count = await counter.count(queue);
      expect(count).toBe(2);
      // A queue nobody polls: the one asking still counts itself.
      expect(await counter.count(`${queue}-empty`)).toBe(1);
      // Cached for the refresh interval: one describe per interval, whoever asks.
      const cached = new QueueWorkers(connection.workflowService, config.temporal.namespace, 60_000);
      const first = await cached.count(queue);
      expect(await Promise.all([cached.count(queue), cached.count(queue)])).toEqual([first, first]);
    } finally {
      for (const w of workers) w.shutdown();
      await Promise.all(running);
      await connection.close();
      await second.close();
    }
  });

  it('keeps the last count when the server cannot be asked', async () => {
    // A real connection to a port nothing listens on.
    const connection = Connection.lazy({ address: '127.0.0.1:9', connectTimeout: 1_000 });
    try {
      const counter = new QueueWorkers(connection.workflowService, 'default', 0);
      expect(await counter.count('q')).toBe(1);
    } finally {
      await connection.close();
    }
  });
});
