import { describe, expect, it } from 'vitest';
import { generateLines, generateTask, serializeTask } from '../../domain/pbe/generate.js';
import { resolvePbeParams } from '../../domain/pbe/params.js';
import { taskRng } from '../../domain/pbe/rng.js';
import { PARAM_SETS } from './support.js';

const N = 60;
const lines = (params: Parameters<typeof generateLines>[0], start: number, end: number) => [...generateLines(params, start, end)];

describe('determinism', () => {
  it.each(PARAM_SETS)('%s: same params and seed give identical lines', (_name, params) => {
    expect(lines(params, 0, N)).toEqual(lines({ ...params, alphabet: [...params.alphabet] }, 0, N));
  });

  it.each(PARAM_SETS)('%s: [0, N) equals [0, k) + [k, N) for any split point', (_name, params) => {
    const whole = lines(params, 0, N).join('');
    for (const k of [1, 17, N - 1]) {
      expect(lines(params, 0, k).join('') + lines(params, k, N).join('')).toBe(whole);
    }
  });

  it('any task can be generated alone, in any order', () => {
    const params = PARAM_SETS[0]![1];
    const sequential = lines(params, 0, N);
    for (let i = N - 1; i >= 0; i -= 7) expect(serializeTask(generateTask(params, i)) + '\n').toBe(sequential[i]);
  });

  it('count only bounds the indices; it does not change the rows', () => {
    const small = resolvePbeParams({ count: 10 });
    const large = resolvePbeParams({ count: 5000 });
    expect(lines(small, 0, 10)).toEqual(lines(large, 0, 10));
  });

  it('different seeds give different datasets', () => {
    const a = lines(resolvePbeParams({ seed: 1 }), 0, N);
    const b = lines(resolvePbeParams({ seed: 2 }), 0, N);
    const same = a.filter((line, i) => line === b[i]).length;
    // Small spaces can repeat a task by chance, but not most of them.
    expect(same).toBeLessThan(N / 4);
  });

  it('different indices give different tasks', () => {
    const params = PARAM_SETS[0]![1];
    const withoutId = lines(params, 0, N).map((line) => line.replace(/"task_id":"[^"]*"/, ''));
    expect(new Set(withoutId).size).toBeGreaterThan((3 * N) / 4);
  });

  it('lines are compact JSON with exactly one trailing newline', () => {
    for (const line of lines(PARAM_SETS[0]![1], 0, 5)) {
      expect(line.endsWith('\n')).toBe(true);
      expect(line.slice(0, -1)).not.toContain('\n');
      expect(JSON.stringify(JSON.parse(line))).toBe(line.slice(0, -1));
    }
  });

  it('rejects ranges outside [0, count]', () => {
    const params = resolvePbeParams({ count: 10 });
    expect(() => generateLines(params, -1, 5)).toThrow(RangeError);
    expect(() => generateLines(params, 5, 4)).toThrow(RangeError);
    expect(() => generateLines(params, 0, 11)).toThrow(RangeError);
    expect(lines(params, 10, 10)).toEqual([]);
  });

  it('per-task streams depend on both seed and index', () => {
    const first = (seed: number, index: number) => taskRng(seed, index).nextUint32();
    const values = new Set<number>();
    for (let seed = 0; seed < 20; seed++) for (let index = 0; index < 50; index++) values.add(first(seed, index));
    values.add(first(0, 2 ** 32)); // the high word of the index matters too
    expect(values.size).toBe(20 * 50 + 1);
    expect(first(3, 4)).toBe(first(3, 4));
  });
});
