/**
 * A score kind names the paired statistic its cells are compared by (ScoreKind.statistic), and
 * compare uses it: the throwaway Words family's length ratio (test/support/words-length-ratio.ts),
 * plugged in with its registry line, declares the permutation test, so ratios of 0 and 1 are not
 * tested by McNemar's as pass@1's same 0/1 values are; the shared text kind declares the corpus
 * bootstrap, which comparedBy reads from a cell's summary `scores.kind`.
 */
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';

vi.mock('../../domain/families/ids.js', async (importOriginal) => {
  const ids = await importOriginal<typeof import('../../domain/families/ids.js')>();
  const FAMILY_IDS = [...ids.FAMILY_IDS, 'words'] as const;
  return { ...ids, FAMILY_IDS, FamilyIdSchema: z.enum(FAMILY_IDS) };
});
vi.mock('../../domain/families/registry.js', async (importOriginal) => {
  const registry = await importOriginal<typeof import('../../domain/families/registry.js')>();
  const { wordsWithLengthRatio } = await import('../support/words-length-ratio.js');
  return { ...registry, ...registry.createRegistry({ ...registry.FAMILIES, words: wordsWithLengthRatio as never }) };
});

const { compareCells, comparedBy } = await import('../../domain/compare/compare.js');
const { kindOfCell } = await import('../../domain/scoring/scoreKinds.js');
const { mcnemarExact, pairedPermutationTest } = await import('../../domain/compare/stats.js');
type ComparedCell = import('../../domain/compare/compare.js').ComparedCell;

// One sample per task; A passes tasks 0-7, B tasks 0-1; the ratio is 1 where the task passed, else 0.
const TASKS = 10;
function wordsCell(ref: string, passedUpTo: number): ComparedCell {
  return {
    ref,
    dataset: 'words',
    model: ref.split('/')[1]!,
    method: 'direct',
    temperature: 0.2,
    nSamples: 1,
    k: [1],
    tasks: Array.from({ length: TASKS }, (_, i) => {
      const passed = i < passedUpTo ? 1 : 0;
      return { task_id: `w/${i}`, n: 1, c: passed, s: 1, length_ratio: passed };
    }),
  };
}

describe('the paired statistic a score kind declares', () => {
  it('is the one compare tests its rows by', () => {
    expect(kindOfCell({ kind: 'length_ratio' }).statistic).toBe('permutation');
    const cmp = compareCells([wordsCell('s/a', 8), wordsCell('s/b', 2)]);
    const byName = new Map(cmp.pairs[0]!.metrics.map((m) => [m.metric, m]));
    expect([...byName.keys()]).toEqual(['pass@1', 'success@1', 'length ratio']);
    // The same 0/1 values per task: pass@1 (no kind's) by McNemar, the length ratio by the permutation test its kind names.
    const diffs = Array.from({ length: TASKS }, (_, i) => (i >= 2 && i < 8 ? 1 : 0));
    expect(byName.get('pass@1')).toMatchObject({ test: 'mcnemar-exact', p: mcnemarExact(6, 0) });
    expect(byName.get('length ratio')).toMatchObject({ test: 'permutation-exact', p: pairedPermutationTest(diffs).p, diff: 0.6 });
    expect(byName.get('length ratio')!.p).not.toBe(byName.get('pass@1')!.p);
  });

  it("is read from a cell's summary scores by their kind: the corpus metric for a text cell, nothing for the others", () => {
    const text = { kind: 'text', metric: 'bleu', headline: 'bleu', samplesScored: 'first', samples: 3, figures: { bleu: 0.2 } };
    expect(kindOfCell(text).statistic).toBe('corpus-bootstrap');
    expect(comparedBy(text)).toEqual({ corpusMetric: 'bleu' });
    expect(comparedBy({ kind: 'length_ratio', meanRatio: 1, tasks: 3 })).toEqual({});
    expect(comparedBy(undefined)).toEqual({});
    expect(() => comparedBy({ kind: 'nope' })).toThrow(/scores of kind "nope", which no family declares/);
  });
});
