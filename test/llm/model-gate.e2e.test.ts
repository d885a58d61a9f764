/**
 * A worker's share of a model's limits: the arithmetic, the gate that enforces it on real timers,
 * and the worker count from leases in the real S3 store.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { LlmRanks, ModelGate } from '../../infra/llm/modelGate.js';
import { WorkerLeases } from '../../infra/llm/workerLeases.js';
import { listObjects } from '../../infra/s3.js';
import { workerShare } from '../../domain/llm/share.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { sleep } from '../support/poll.js';
import { testBucket } from '../support/s3.js';

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
async function runThrough(
  gate: ModelGate,
  queue: string,
  limits: { concurrency?: number; requestsPerSecond?: number },
  requests: number,
  holdMs: number,
) {
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
    // 20/s over two workers: 10/s here, the i-th start at least i x 100 ms after the first. The gate
    // books each start from its own clock; the first may itself begin a few ms late on a busy event
    // loop (294 ms for the third once), so the bound allows 15 ms of that.
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[0]!).toBeGreaterThanOrEqual(i * 100 - 15);
    expect(starts.at(-1)! - starts[0]!).toBeLessThan(5 * 100 + 400); // not twice the spacing (1,000 ms)
  });

  it('serves waiting requests in arrival order, and each beats while it waits', async () => {
    const gate = new ModelGate(async () => 1, 20);
    const order: number[] = [];
    const beats = new Map<number, number>();
    await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        await sleep(i * 2); // arrive in order 0..7
        const end = await gate.enter('q', { concurrency: 1 }, { beat: () => beats.set(i, (beats.get(i) ?? 0) + 1) });
        order.push(i);
        await sleep(30);
        end();
      }),
    );
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // The last waited ~7 x 30 ms, woken only when its turn came: it still beat every ~20 ms.
    expect(beats.get(7) ?? 0).toBeGreaterThanOrEqual(5);
  });

  it('serves a lower rank first, whenever it came; a rank in arrival order; unranked last', async () => {
    const gate = new ModelGate(async () => 1, 20);
    const order: string[] = [];
    const holder = await gate.enter('q', { concurrency: 1 }, { beat: () => {} });
    const waiting = (
      [
        ['unranked', undefined],
        ['b1', 2],
        ['a1', 1],
        ['b2', 2],
        ['a2', 1],
      ] as const
    ).map(async ([name, rank], i) => {
      await sleep(i * 3); // arrive in the order listed, all while the slot is held
      const end = await gate.enter('q', { concurrency: 1 }, { beat: () => {}, ...(rank === undefined ? {} : { rank }) });
      order.push(name);
      await sleep(5);
      end();
    });
    await sleep(40);
    holder();
    await Promise.all(waiting);
    expect(order).toEqual(['a1', 'a2', 'b1', 'b2', 'unranked']);
  });

  it('LlmRanks: a workflow keeps the rank it first got; the oldest ids are forgotten past the limit', () => {
    const ranks = new LlmRanks(2);
    expect([ranks.of('shard-0'), ranks.of('shard-1'), ranks.of('shard-0')]).toEqual([0, 1, 0]);
    expect(ranks.of('shard-2')).toBe(2);
    // shard-0 was the oldest kept: asking again, it ranks as new.
    expect(ranks.of('shard-0')).toBe(3);
    expect(ranks.of('shard-2')).toBe(2);
  });

  it('a cancelled wait takes no share and gives its booked start back', async () => {
    const gate = new ModelGate(async () => 1, 20);
    const first = await gate.enter('q', { concurrency: 1 }, { beat: () => {} });
    const abort = new AbortController();
    const waiting = gate.enter('q', { concurrency: 1 }, { beat: () => {}, signal: abort.signal });
    await sleep(50);
    abort.abort(new Error('cancelled'));
    await expect(waiting).rejects.toThrow('cancelled');
    expect(gate.inFlight('q')).toBe(1);
    first();
    first(); // ending twice ends once
    expect(gate.inFlight('q')).toBe(0);

    // Rate: a start booked 1 s ahead, then cancelled, is not waited for by the next request.
    const rated = new ModelGate(async () => 1, 20);
    (await rated.enter('r', { requestsPerSecond: 1 }, { beat: () => {} }))();
    const cancel = new AbortController();
    const booked = rated.enter('r', { requestsPerSecond: 1 }, { beat: () => {}, signal: cancel.signal });
    await sleep(20);
    cancel.abort(new Error('cancelled'));
    await expect(booked).rejects.toThrow('cancelled');
    const t = Date.now();
    (await rated.enter('r', { requestsPerSecond: 1 }, { beat: () => {} }))();
    expect(Date.now() - t).toBeLessThan(1_100);
  });

  it('lets everything through at once without limits', async () => {
    const gate = new ModelGate(async () => 4, 50);
    expect((await runThrough(gate, 'q', {}, 10, 30)).most).toBe(10);
  });
});

describe('WorkerLeases', () => {
  const { config } = testConfig();
  const bucket = testBucket(config);

  it('counts the workers holding a live lease on a queue in the real S3 store', async () => {
    const queue = `leases-${uniqueSuffix()}`;
    const one = new WorkerLeases(bucket, { identity: 'one', refreshMs: 0 });
    const two = new WorkerLeases(bucket, { identity: 'two', refreshMs: 0 });
    try {
      await one.join(queue);
      expect(await one.count(queue)).toBe(1);
      await two.join(queue);
      expect(await one.count(queue)).toBe(2);
      expect(await two.count(queue)).toBe(2);
      expect(await one.count(`${queue}-other`)).toBe(1); // nobody there: the one asking counts
      await two.leave();
      expect(await one.count(queue)).toBe(1);
    } finally {
      await one.leave();
      await two.leave();
    }
  });

  it('a lease not renewed lapses; a count is reused for the refresh interval', async () => {
    const queue = `leases-${uniqueSuffix()}`;
    const killed = new WorkerLeases(bucket, { identity: 'killed', renewMs: 60_000 });
    const alive = new WorkerLeases(bucket, { identity: 'alive', ttlMs: 2_000, renewMs: 500, refreshMs: 0 });
    const cached = new WorkerLeases(bucket, { refreshMs: 60_000 });
    try {
      await killed.join(queue);
      await alive.join(queue);
      expect(await alive.count(queue)).toBe(2);
      expect(await cached.count(queue)).toBe(2);
      await sleep(3_000); // killed never renews; alive does, every 0.5 s
      expect(await alive.count(queue)).toBe(1);
      expect(await cached.count(queue)).toBe(2); // still the count from 3 s ago
    } finally {
      await killed.leave();
      await alive.leave();
    }
  });

  it('a lease long past its TTL is deleted by a worker that counts the queue; a live one and a recently lapsed one stay', async () => {
    const queue = `leases-${uniqueSuffix()}`;
    const gone = new WorkerLeases(bucket, { identity: 'gone', renewMs: 60_000 });
    const lapsed = new WorkerLeases(bucket, { identity: 'lapsed', renewMs: 60_000 });
    // Margins of 2 s on every side: S3 dates a lease to the second (LastModified), and a loaded
    // 2-core machine delays timers and S3 calls.
    const counter = new WorkerLeases(bucket, { identity: 'counter', ttlMs: 2_000, removeAfterMs: 6_000, renewMs: 500, refreshMs: 0 });
    const keys = async () => {
      const out: string[] = [];
      for await (const o of listObjects(bucket, `llm-workers/${queue}/`)) out.push(o.key.split('/').pop()!);
      return out.sort();
    };
    try {
      await gone.join(queue);
      await sleep(4_500);
      await lapsed.join(queue);
      await counter.join(queue);
      await sleep(4_000); // gone: 8.5 s old, past removeAfterMs; lapsed: 4 s old, past the TTL only
      expect(await counter.count(queue)).toBe(1);
      expect(await keys()).toEqual(['counter', 'lapsed']);
    } finally {
      await gone.leave();
      await lapsed.leave();
      await counter.leave();
    }
  });

  it('keeps the last count when S3 cannot be listed', async () => {
    const dead = new S3Client({
      endpoint: 'http://127.0.0.1:9',
      region: 'us-east-1',
      forcePathStyle: true,
      maxAttempts: 1,
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    try {
      const leases = new WorkerLeases({ s3: dead, name: 'none' }, { refreshMs: 0 });
      expect(await leases.count('q')).toBe(1);
    } finally {
      dead.destroy();
    }
  });
});
