/**
 * Comparing text-scored cells on their corpus metric (domain/compare/corpus.ts): the paired
 * bootstrap of BLEU against an independent Python computation from the texts (sacreBLEU's tokens,
 * TensorFlow's BLEU formula, NumPy's percentiles) fed the same resampled tasks; crafted cells where
 * one is clearly better or both are the same; PAL's votes; and the pairs that have no score in common.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { compareCells, IncomparableCellsError, type ComparedCell, type ComparedTask } from '../../domain/compare/compare.js';
import { pairedCorpusBootstrap, headlineFigure, type TaskStats } from '../../domain/compare/corpus.js';
import { bootstrapResampler, mcnemarExact } from '../../domain/compare/stats.js';
import { BIGCODE_BLEU, bigcodeBleuStats } from '../../domain/families/textScored.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';

const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const RESAMPLES = 2000;
const SEED = 11;
const BLEU = headlineFigure(BIGCODE_BLEU.figures, BIGCODE_BLEU.headline);

// 30 tasks: references, A's predictions close to them, B's further off. Deterministic.
const WORDS = 'return the sum of all values in a list sorted by key with its index reversed'.split(' ');
const references = Array.from({ length: 30 }, (_, i) =>
  Array.from({ length: 6 + (i % 7) }, (_, j) => WORDS[(i * 3 + j * 5) % WORDS.length]).join(' '),
);
const perturb = (s: string, every: number, shift: number) =>
  s
    .split(' ')
    .map((w, j) => (j % every === shift ? WORDS[(WORDS.indexOf(w) + 1) % WORDS.length] : w))
    .join(' ');
const predA = references.map((r, i) => (i % 4 === 0 ? r : perturb(r, 4, i % 3)));
const predB = references.map((r, i) => (i % 5 === 0 ? r : perturb(r, 2, i % 2)));
const statsOf = (preds: string[]): TaskStats[] => preds.map((p, i) => ({ samples: 1, stats: bigcodeBleuStats(p, references[i]!) }));

let reference: { a: number; b: number; diff: number; low: number; high: number; p: number };

beforeAll(() => {
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'inherit' });
  const draw = bootstrapResampler(SEED);
  const resamples = Array.from({ length: RESAMPLES }, () => Array.from(draw(references.length)));
  reference = JSON.parse(
    execFileSync(PYTHON, [path.join(PROJECT_ROOT, 'test/compare/corpus_reference.py')], {
      input: JSON.stringify({ references, a: predA, b: predB, resamples }),
      maxBuffer: 1 << 26,
    }).toString(),
  );
}, 600_000);

describe('paired bootstrap of a corpus metric', () => {
  it('matches an independent computation from the texts on the same resamples (BLEU, to 1e-9)', () => {
    const mine = pairedCorpusBootstrap(statsOf(predA), statsOf(predB), BLEU, { resamples: RESAMPLES, seed: SEED });
    expect(mine.a).toBeCloseTo(reference.a, 9);
    expect(mine.b).toBeCloseTo(reference.b, 9);
    expect(mine.diff).toBeCloseTo(reference.diff, 9);
    expect(mine.interval!.low).toBeCloseTo(reference.low, 9);
    expect(mine.interval!.high).toBeCloseTo(reference.high, 9);
    expect(mine.p).toBeCloseTo(reference.p, 12);
    // The data are made so that A is better, but not overwhelmingly: a p strictly inside (0, 1).
    expect(mine.diff).toBeGreaterThan(0);
  });

  it('identical cells: difference 0, interval [0, 0], p = 1', () => {
    const r = pairedCorpusBootstrap(statsOf(predA), statsOf(predA), BLEU, { resamples: 500 });
    expect(r.diff).toBe(0);
    expect(r.interval).toEqual({ low: 0, high: 0 });
    expect(r.p).toBe(1);
  });

  it('a clearly better cell: the interval excludes 0, p at its floor 1 / (R + 1)', () => {
    const garbage = references.map(() => 'nothing like it at all here');
    const r = pairedCorpusBootstrap(statsOf(references), statsOf(garbage), BLEU, { resamples: 999 });
    expect(r.a).toBeCloseTo(1, 12);
    expect(r.interval!.low).toBeGreaterThan(0.5);
    expect(r.p).toBe(1 / 1000);
    const reversed = pairedCorpusBootstrap(statsOf(garbage), statsOf(references), BLEU, { resamples: 999 });
    expect(reversed.interval!.high).toBeLessThan(-0.5);
    expect(reversed.p).toBe(1 / 1000);
  });
});

function textCell(ref: string, preds: string[], over: Partial<ComparedCell> = {}): ComparedCell {
  return {
    ref,
    dataset: 'conala',
    model: ref.split('/')[1]!,
    method: 'direct',
    temperature: 0.2,
    nSamples: 1,
    k: [1],
    corpusMetric: 'bleu',
    tasks: preds.map((p, i) => ({ task_id: `c/${i}`, n: 1, c: 0, s: 0, text: { samples: 1, stats: bigcodeBleuStats(p, references[i]!) } })),
    ...over,
  };
}

describe('compareCells on text-scored and PAL cells', () => {
  it('compares two text-scored cells on their metric only, never on their pass@k of zeros', () => {
    const cmp = compareCells([textCell('s/a', predA), textCell('s/b', predB)], { bootstrap: { resamples: RESAMPLES, seed: SEED } });
    const [m] = cmp.pairs[0]!.metrics;
    expect(cmp.pairs[0]!.metrics).toHaveLength(1);
    expect(m!.metric).toBe('bleu');
    expect(m!.test).toBe('paired-bootstrap');
    expect(m!.diff).toBeCloseTo(reference.diff, 9);
    expect(m!.p).toBeCloseTo(reference.p, 12);
    expect(m!.pHolm).toBe(m!.p);
  });

  it('Holm adjusts the bootstrap p over the pairs', () => {
    const cmp = compareCells([textCell('s/a', predA), textCell('s/b', predB), textCell('s/c', predA)], {
      bootstrap: { resamples: 500 },
    });
    const ps = cmp.pairs.map((p) => p.metrics[0]!);
    // a vs b and c vs b (c is a) have the same p, a vs c (identical) p = 1: Holm gives the two 3p.
    expect(ps[1]!.p).toBe(1);
    expect(ps[2]!.p).toBe(ps[0]!.p);
    expect(ps[0]!.pHolm).toBeCloseTo(Math.min(1, ps[0]!.p * 3), 12);
    expect(ps[2]!.pHolm).toBeCloseTo(Math.min(1, ps[0]!.p * 3), 12);
    expect(ps[1]!.pHolm).toBe(1);
  });

  it('refuses a run cell against a text-scored one, and two corpus metrics', () => {
    const run: ComparedCell = { ...textCell('s/run', predA), tasks: references.map((_, i) => ({ task_id: `c/${i}`, n: 1, c: 1 })) };
    delete run.corpusMetric;
    expect(() => compareCells([textCell('s/a', predA), run])).toThrow(IncomparableCellsError);
    expect(() => compareCells([textCell('s/a', predA), run])).toThrow(/s\/run is run \(pass@k\)/);
    const other = textCell('s/b', predB, { corpusMetric: 'exact-match' });
    expect(() => compareCells([textCell('s/a', predA), other])).toThrow(/scored by bleu, s\/b by exact-match/);
    expect(() => compareCells([textCell('s/a', predA), textCell('s/b', predB, { corpusMetric: 'nope' })])).toThrow(
      /nope, a metric no family has/,
    );
  });

  it('refuses a text-scored cell stored without per-task statistics', () => {
    const old = textCell('s/old', predB);
    old.tasks = old.tasks.map(({ text: _, ...t }) => t);
    expect(() => compareCells([textCell('s/a', predA), old])).toThrow(
      /s\/old is scored by bleu but its results.json has no per-task statistics/,
    );
  });

  it("PAL: majority-voting and greedy accuracy per task, by McNemar's exact test", () => {
    // 12 tasks of 3 samples. A's majority is right on tasks 0-9, B's on 0-1; greedy (first answer) the same way round.
    const pal = (ref: string, rightUpTo: number): ComparedCell => ({
      ...textCell(ref, []),
      dataset: 'pal-gsm8k',
      nSamples: 3,
      k: [1],
      tasks: Array.from({ length: 12 }, (_, i): ComparedTask => {
        const right = i < rightUpTo;
        return {
          task_id: `g/${i}`,
          n: 3,
          c: right ? 2 : 1,
          answers: [
            { answer: right ? '42' : '7', votes: 2, correct: right },
            { answer: right ? '7' : '42', votes: 1, correct: !right },
          ],
        };
      }),
    });
    const a = pal('s/a', 10);
    const b = pal('s/b', 2);
    delete a.corpusMetric;
    delete b.corpusMetric;
    const cmp = compareCells([a, b]);
    const byName = new Map(cmp.pairs[0]!.metrics.map((m) => [m.metric, m]));
    expect([...byName.keys()]).toEqual(['pass@1', 'majority-voting accuracy', 'greedy accuracy']);
    const mv = byName.get('majority-voting accuracy')!;
    expect(mv.a).toBeCloseTo(10 / 12, 12);
    expect(mv.b).toBeCloseTo(2 / 12, 12);
    expect(mv.test).toBe('mcnemar-exact');
    expect(mv.p).toBe(mcnemarExact(8, 0));
    // Results stored before `correct` was recorded: no vote rows, pass@k only.
    const old = {
      ...b,
      tasks: b.tasks.map((t) => ({
        ...t,
        answers: (t.answers as Array<{ answer: string; votes: number }>).map(({ answer, votes }) => ({ answer, votes })),
      })),
    };
    expect(compareCells([a, old]).pairs[0]!.metrics.map((m) => m.metric)).toEqual(['pass@1']);
  });
});
