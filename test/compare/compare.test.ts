/** Comparing cells: task matching, the metrics compared, the test chosen, Holm over pairs, flips, confounding. */
import { describe, expect, it } from 'vitest';
import { compareCells, matchTasks, TaskMismatchError, type ComparedCell, type ComparedTask } from '../../domain/compare/compare.js';
import { holmAdjust, mcnemarExact, pairedPermutationTest } from '../../domain/compare/stats.js';

function cell(ref: string, counts: Array<[string, number, number]>, over: Partial<ComparedCell> = {}): ComparedCell {
  return {
    ref,
    dataset: 'humaneval',
    model: ref.split('/')[1]!,
    method: 'direct',
    temperature: 0.2,
    nSamples: counts[0]![1],
    k: [1, 2],
    tasks: counts.map(([task_id, n, c]) => ({ task_id, n, c })),
    ...over,
  };
}
const ids = (n: number) => Array.from({ length: n }, (_, i) => `T/${i}`);

describe('matchTasks', () => {
  const a = cell('s/a', [
    ['T/0', 1, 1],
    ['T/1', 1, 0],
    ['T/2', 1, 1],
  ]);
  const b = cell('s/b', [
    ['T/0', 1, 1],
    ['T/1', 1, 1],
    ['T/3', 1, 0],
  ]);
  it('refuses cells scored on different tasks, naming the tasks each has that the others lack', () => {
    expect(() => matchTasks([a, b], false)).toThrow(TaskMismatchError);
    expect(() => matchTasks([a, b], false)).toThrow(
      /s\/a has 1 task\(s\) the others lack: T\/2\n {2}s\/b has 1 task\(s\) the others lack: T\/3/,
    );
    expect(() => matchTasks([a, b], false)).toThrow(/--shared-tasks/);
  });
  it('restricts to the shared tasks when asked, saying what it dropped', () => {
    expect(matchTasks([a, b], true)).toEqual({
      kind: 'shared',
      taskIds: ['T/0', 'T/1'],
      dropped: [
        { ref: 's/a', tasks: ['T/2'] },
        { ref: 's/b', tasks: ['T/3'] },
      ],
    });
  });
  it('a task without samples is not scored, hence not matched', () => {
    const c = cell('s/c', [
      ['T/0', 1, 1],
      ['T/1', 0, 0],
      ['T/2', 1, 1],
    ]);
    expect(() => matchTasks([a, c], false)).toThrow(/s\/a has 1 task\(s\) the others lack: T\/1/);
  });
});

describe('compareCells', () => {
  // One sample per task: A passes tasks 0-11, B passes 0-1 and 12-13 (10 flips for A, 2 for B).
  const n1 = (ref: string, passes: (i: number) => boolean) =>
    cell(
      ref,
      ids(20).map((id, i) => [id, 1, passes(i) ? 1 : 0] as [string, number, number]),
    );
  const A = n1('s/a', (i) => i < 12);
  const B = n1('s/b', (i) => i < 2 || i === 12 || i === 13);
  const C = n1('s/c', (i) => i < 12);

  it('one sample per task: McNemar exact on pass@1, the differences with both intervals, flips either way', () => {
    const cmp = compareCells([A, B]);
    expect(cmp.pairs).toHaveLength(1);
    const [pair] = cmp.pairs;
    expect(pair!.metrics.map((m) => m.metric)).toEqual(['pass@1']); // k=2 needs 2 samples
    const m = pair!.metrics[0]!;
    expect(m.test).toBe('mcnemar-exact');
    expect(m.p).toBe(mcnemarExact(10, 2));
    expect(m.pHolm).toBe(m.p);
    expect(m.diff).toBeCloseTo(12 / 20 - 4 / 20, 12);
    expect(m.normal!.low).toBeLessThan(m.diff);
    expect(m.bootstrap!.high).toBeGreaterThan(m.diff);
    expect(pair!.flips.aOnly.map((f) => f.task_id)).toEqual(ids(12).slice(2));
    expect(pair!.flips.bOnly).toEqual([
      { task_id: 'T/12', a: '0/1', b: '1/1' },
      { task_id: 'T/13', a: '0/1', b: '1/1' },
    ]);
    expect(pair!.confounded).toEqual([]);
  });

  it('success@k (ran without a runtime error) beside pass@k when both cells count it: where pass@1 ties, success can differ', () => {
    // 12 tasks: neither passes any; a ran without error on 2 of them, b on 10 (the 2 of a's among them).
    const tasks = (runs: number) => ids(12).map((task_id, i) => ({ task_id, n: 1, c: 0, s: i < runs ? 1 : 0 }));
    const none = ids(12).map((t): [string, number, number] => [t, 1, 0]);
    const [pair] = compareCells([cell('s/a', none, { tasks: tasks(2) }), cell('s/b', none, { tasks: tasks(10) })]).pairs;
    expect(pair!.metrics.map((m) => m.metric)).toEqual(['pass@1', 'success@1']);
    expect(pair!.metrics[0]).toMatchObject({ diff: 0, p: 1 });
    expect(pair!.metrics[1]).toMatchObject({ test: 'mcnemar-exact', a: 2 / 12, b: 10 / 12 });
    expect(pair!.metrics[1]!.p).toBe(mcnemarExact(0, 8));
    // A cell that does not count it (text-scored, or stored without s): pass@k only.
    const [plain] = compareCells([cell('s/a', none, { tasks: tasks(2) }), cell('s/c', none)]).pairs;
    expect(plain!.metrics.map((m) => m.metric)).toEqual(['pass@1']);
  });

  it('the same numbers on every run (the bootstrap has a fixed seed, which the comparison records)', () => {
    const one = compareCells([A, B]);
    expect(compareCells([A, B])).toEqual(one);
    expect(one.bootstrap).toEqual({ resamples: 10_000, seed: 29 });
    expect(compareCells([A, B], { bootstrap: { seed: 1, resamples: 500 } }).bootstrap).toEqual({ resamples: 500, seed: 1 });
  });

  it('three cells: three pairs, p-values Holm-adjusted over them', () => {
    const cmp = compareCells([A, B, C]);
    expect(cmp.pairs.map((p) => `${p.a} vs ${p.b}`)).toEqual(['s/a vs s/b', 's/a vs s/c', 's/b vs s/c']);
    const ps = cmp.pairs.map((p) => p.metrics[0]!.p);
    expect(ps[1]).toBe(1); // identical cells
    expect(cmp.pairs.map((p) => p.metrics[0]!.pHolm)).toEqual(holmAdjust(ps));
    expect(cmp.pairs[0]!.metrics[0]!.pHolm).toBeCloseTo(Math.min(1, 3 * ps[0]!), 12);
  });

  it('several samples per task: every k both can score, the permutation test on the per-task values', () => {
    const a = cell(
      's/a',
      ids(8).map((id, i) => [id, 4, i % 5] as [string, number, number]),
    );
    const b = cell(
      's/b',
      ids(8).map((id, i) => [id, 4, Math.max(0, (i % 5) - 1)] as [string, number, number]),
    );
    const pair = compareCells([a, b]).pairs[0]!;
    expect(pair.metrics.map((m) => m.metric)).toEqual(['pass@1', 'pass@2']);
    const diffs = a.tasks.map((t, i) => t.c / 4 - b.tasks[i]!.c / 4);
    expect(pair.metrics[0]!.test).toBe('permutation-exact');
    expect(pair.metrics[0]!.p).toBe(pairedPermutationTest(diffs).p);
    // Flips: tasks solved by one cell (a passing sample) and not at all by the other.
    expect(pair.flips.aOnly.map((f) => f.task_id)).toEqual(['T/1', 'T/6']);
    expect(pair.flips.bOnly).toEqual([]);
  });

  it("the family's other scores: named scores' pass@k, test-case accuracy", () => {
    const withScores = (ref: string, f: (i: number) => Partial<ComparedTask>) =>
      cell(
        ref,
        ids(6).map((id) => [id, 1, 0] as [string, number, number]),
        {},
      ).tasks.map((t, i) => ({ ...t, ...f(i) }));
    const a = {
      ...cell('s/a', [['x', 1, 0]]),
      tasks: withScores('s/a', (i) => ({ c: i % 2, scores: { base: 1, plus: i % 2 }, test_case_accuracy: 0.5 })),
    };
    const b = {
      ...cell('s/b', [['x', 1, 0]]),
      tasks: withScores('s/b', () => ({ c: 0, scores: { base: 0, plus: 0 }, test_case_accuracy: 0.25 })),
    };
    const pair = compareCells([a, b]).pairs[0]!;
    expect(pair.metrics.map((m) => m.metric)).toEqual(['pass@1', 'base pass@1', 'plus pass@1', 'test-case accuracy']);
    expect(pair.metrics.find((m) => m.metric === 'base pass@1')!.diff).toBe(1);
    const tca = pair.metrics.find((m) => m.metric === 'test-case accuracy')!;
    expect(tca.diff).toBeCloseTo(0.25, 12);
    expect(tca.test).toBe('permutation-exact');
  });

  it('says when two cells differ in more than one factor', () => {
    const other = { ...B, ref: 's/d', model: 'other', method: 'rag' };
    expect(compareCells([A, other]).pairs[0]!.confounded).toEqual(['model', 'method']);
  });

  it('refuses fewer than two cells and a cell named twice', () => {
    expect(() => compareCells([A])).toThrow(/at least two cells/);
    expect(() => compareCells([A, A])).toThrow(/s\/a is named twice/);
  });
});
