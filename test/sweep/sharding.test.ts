import { describe, expect, it } from 'vitest';
import {
  cellTaskSlots,
  DEFAULT_SHARD_SAMPLES,
  generatedSamplesProblem,
  holdsSamples,
  holdsShard,
  MAX_GENERATED_SAMPLES_PER_TASK,
  MAX_TASKS_PER_SHARD,
  nextShardWindow,
  sampleSlices,
  shardTaskRange,
  tasksPerShard,
} from '../../domain/sweep/sharding.js';

/** `legacy`: a sweep input without shardSamples. */
const shards = (tasks: number, nSamples: number, legacy?: 'legacy') => {
  const shardSamples = legacy ? undefined : DEFAULT_SHARD_SAMPLES;
  const perShard = tasksPerShard({ tasks, nSamples, shardSamples, maxParallelShards: 8 });
  return { perShard, shards: Math.ceil(tasks / perShard) };
};

describe('tasks per shard', () => {
  it('a sweep started before shardSamples existed keeps its sharding: floor(200 / n), at least one task', () => {
    expect(shards(164, 1, 'legacy')).toEqual({ perShard: 200, shards: 1 });
    expect(shards(164, 5, 'legacy')).toEqual({ perShard: 40, shards: 5 });
    expect(shards(164, 122, 'legacy')).toEqual({ perShard: 1, shards: 164 });
    expect(shards(164, 6098, 'legacy')).toEqual({ perShard: 1, shards: 164 });
  });

  it('many samples a task: shards grow to ~2000 samples, while the cell keeps 8 shards to run at once', () => {
    // The bench's 20,000 samples: 16 tasks (1,952 samples) a shard instead of one.
    expect(shards(164, 122)).toEqual({ perShard: 16, shards: 11 });
    // MultiPL-E's n = 200: 10 tasks (2,000 samples) a shard.
    expect(shards(161, 200)).toEqual({ perShard: 10, shards: 17 });
    // n = 20 on HumanEval: 2000 / 20 = 100 tasks would leave 2 shards; 21 keep 8.
    expect(shards(164, 20)).toEqual({ perShard: 21, shards: 8 });
    // More samples than a shard's worth in one task: one task a shard, as before.
    expect(shards(164, 6098)).toEqual({ perShard: 1, shards: 164 });
  });

  it('never fewer tasks a shard than before, so small sweeps are sharded as they were', () => {
    for (const tasks of [1, 4, 40, 164, 1000, 100_000])
      for (const n of [1, 2, 3, 5, 10, 20, 50, 122, 200, 1000]) {
        const legacy = shards(tasks, n, 'legacy').perShard;
        const now = shards(tasks, n).perShard;
        expect(now, `${tasks} tasks, n = ${n}`).toBeGreaterThanOrEqual(legacy);
        expect(now, `${tasks} tasks, n = ${n}`).toBeLessThanOrEqual(Math.max(legacy, MAX_TASKS_PER_SHARD));
        // Parallelism: at least as many shards as 8, or as the legacy rule gave, whichever is fewer.
        expect(Math.ceil(tasks / now), `${tasks} tasks, n = ${n}`).toBeGreaterThanOrEqual(Math.min(8, Math.ceil(tasks / legacy), tasks));
      }
    expect(shards(4, 2)).toEqual({ perShard: 100, shards: 1 });
    expect(shards(100_000, 1)).toEqual({ perShard: 200, shards: 500 });
  });

  it("a shard's tasks: [k * perShard, ...), the last one cut at the cell's end", () => {
    expect(shardTaskRange(0, 16, 164)).toEqual({ start: 0, end: 16 });
    expect(shardTaskRange(10, 16, 164)).toEqual({ start: 160, end: 164 });
  });
});

describe('a stored shard holds its tasks', () => {
  const rows = (pairs: [number, number][]) => pairs.map(([task_index, sample_index]) => ({ task_index, sample_index }));
  it('exactly one record per task and sample of its range', () => {
    expect(
      holdsShard(
        rows([
          [2, 0],
          [2, 1],
          [3, 1],
          [3, 0],
        ]),
        { start: 2, end: 4 },
        2,
      ),
    ).toBe(true);
  });
  it('not a shard of another sharding, a short one, or one with a sample twice', () => {
    // Shard 0 of one task a shard, read as shard 0 of two tasks a shard.
    expect(holdsShard(rows([[0, 0]]), { start: 0, end: 2 }, 1)).toBe(false);
    const notTask2: [number, number][][] = [
      // Shard 1 of one task a shard (task 1), read as shard 1 of two (task 2 here), same size.
      [
        [1, 0],
        [1, 1],
      ],
      // A sample twice, and one beyond n.
      [
        [2, 0],
        [2, 0],
      ],
      [
        [2, 0],
        [2, 2],
      ],
    ];
    for (const pairs of notTask2) expect(holdsShard(rows(pairs), { start: 2, end: 3 }, 2), JSON.stringify(pairs)).toBe(false);
  });
});

describe('slices of a large shard, an activity each', () => {
  const widths = (slices: { start: number; end: number }[]) => slices.map((s) => s.end - s.start);

  it('a shard within its samples per activity, or of a sweep started before slices, is one slice of every sample', () => {
    expect(sampleSlices(122, 16, DEFAULT_SHARD_SAMPLES)).toEqual([{ start: 0, end: 122 }]);
    expect(sampleSlices(2000, 1, 2000)).toEqual([{ start: 0, end: 2000 }]);
    expect(sampleSlices(100_000, 1, undefined)).toEqual([{ start: 0, end: 100_000 }]);
  });

  it('a task of more samples is cut into as few even slices as hold about that many, covering [0, n) in order', () => {
    expect(sampleSlices(2001, 1, 2000)).toEqual([
      { start: 0, end: 1001 },
      { start: 1001, end: 2001 },
    ]);
    expect(widths(sampleSlices(100_000, 1, 2000))).toEqual(new Array(50).fill(2000));
    expect(widths(sampleSlices(10, 1, 4))).toEqual([4, 4, 2]);
    for (const [n, tasks, per] of [
      [7, 1, 3],
      [1000, 3, 250],
      [5, 4, 3],
      [100_001, 1, 2000],
    ] as const) {
      const slices = sampleSlices(n, tasks, per);
      expect(slices[0]!.start, `${n} ${tasks} ${per}`).toBe(0);
      expect(slices.at(-1)!.end).toBe(n);
      for (let i = 1; i < slices.length; i++) expect(slices[i]!.start).toBe(slices[i - 1]!.end);
      // Every slice non-empty, and none wider than an even share.
      for (const s of slices) {
        expect(s.end).toBeGreaterThan(s.start);
        expect(s.end - s.start).toBeLessThanOrEqual(Math.ceil(n / slices.length));
      }
      expect(slices.length).toBe(Math.min(n, Math.ceil((tasks * n) / per)));
    }
  });

  it("a slice's stored records are exactly its samples of each of the shard's tasks", () => {
    const rows = (pairs: [number, number][]) => pairs.map(([task_index, sample_index]) => ({ task_index, sample_index }));
    const slice = { start: 2, end: 4 };
    const tasks = { start: 5, end: 7 };
    const ok: [number, number][] = [
      [5, 2],
      [5, 3],
      [6, 3],
      [6, 2],
    ];
    expect(holdsSamples(rows(ok), tasks, slice)).toBe(true);
    // Another slice's samples, the same sample twice, a sample of another task, one short.
    expect(holdsSamples(rows(ok.map(([t, s]) => [t, s - 2])), tasks, slice)).toBe(false);
    expect(holdsSamples(rows([...ok.slice(0, 3), [6, 3]]), tasks, slice)).toBe(false);
    expect(holdsSamples(rows([...ok.slice(0, 3), [7, 2]]), tasks, slice)).toBe(false);
    expect(holdsSamples(rows(ok.slice(1)), tasks, slice)).toBe(false);
  });
});

describe('samples of one task a sweep may generate', () => {
  it('refuses more than MAX_GENERATED_SAMPLES_PER_TASK when a model is asked, naming n_samples, the limit and a way out', () => {
    expect(generatedSamplesProblem(MAX_GENERATED_SAMPLES_PER_TASK, 'full')).toBeNull();
    expect(generatedSamplesProblem(200, 'generation-only')).toBeNull();
    for (const mode of ['full', 'generation-only'] as const) {
      const problem = generatedSamplesProblem(MAX_GENERATED_SAMPLES_PER_TASK + 1, mode);
      expect(problem).toContain(`n_samples: ${MAX_GENERATED_SAMPLES_PER_TASK + 1}`);
      expect(problem).toContain(`${MAX_GENERATED_SAMPLES_PER_TASK} samples of one task`);
      expect(problem).toContain('--evaluate-only');
    }
  });

  it('loaded generations (evaluate-only) are not limited: they travel as one S3 key', () => {
    expect(generatedSamplesProblem(1_000_000, 'evaluate-only')).toBeNull();
  });
});

describe("a cell's task slots and its shards' task windows (issue 45)", () => {
  it('a shard is worth max(8, ceil(concurrency / shards)) tasks, so the concurrency can be reached', () => {
    expect(cellTaskSlots(undefined, 8)).toEqual({ base: 8, pool: 64 });
    expect(cellTaskSlots(4, 8)).toEqual({ base: 8, pool: 64 });
    expect(cellTaskSlots(64, 8)).toEqual({ base: 8, pool: 64 });
    expect(cellTaskSlots(256, 8)).toEqual({ base: 32, pool: 256 });
    expect(cellTaskSlots(100, 3)).toEqual({ base: 34, pool: 102 });
  });

  /** The windows a cell gives its shards when all start at once, none done: [window, ...] until one must wait. */
  const startsAtOnce = (shardTasks: number[], concurrency: number | undefined, maxParallelShards = 8) => {
    const slots = cellTaskSlots(concurrency, maxParallelShards);
    let free = slots.pool;
    const out: number[] = [];
    for (const t of shardTasks) {
      const w = nextShardWindow(t, free, slots, concurrency);
      if (w === 0) break;
      out.push(w);
      free -= w;
    }
    return out;
  };

  it('the windows of the shards generating at once never pass the pool: the bound of a pause or a budget', () => {
    // The bench: 11 shards of 16 tasks, concurrency 64: four shards take every task at once.
    expect(startsAtOnce([16, 16, 16, 16, 16], 64)).toEqual([16, 16, 16, 16]);
    // The default concurrency (4): 8 tasks a shard at most, as before.
    expect(startsAtOnce(Array(9).fill(21), 4)).toEqual(Array(8).fill(8));
    // One-task shards: one slot each (the cell starts at most maxParallelShards of them).
    expect(startsAtOnce([1, 1, 1], 64)).toEqual([1, 1, 1]);
    for (const c of [1, 4, 64, 100, 256]) {
      const windows = startsAtOnce(Array(40).fill(37), c);
      expect(windows.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(cellTaskSlots(c, 8).pool);
    }
  });

  it('a shard generating alone (the last ones of a cell) takes up to the concurrency, never less than 8 while it has them', () => {
    const slots = cellTaskSlots(64, 8);
    expect(nextShardWindow(200, slots.pool, slots, 64)).toBe(64);
    expect(nextShardWindow(4, slots.pool, slots, 64)).toBe(4);
    // Fewer slots free than the base: it waits (0), unless it has fewer tasks than that.
    expect(nextShardWindow(16, 7, slots, 64)).toBe(0);
    expect(nextShardWindow(5, 7, slots, 64)).toBe(5);
    expect(nextShardWindow(16, 12, slots, 64)).toBe(12);
  });
});
