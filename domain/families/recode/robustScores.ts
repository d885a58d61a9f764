/**
 * ReCode's score kind, `recode`: a sample passes or fails as any run one (pass@k over the variants),
 * and a cell's figures are bigcode's process_results for the perturbed HumanEval tasks. Per
 * perturbation (bigcode's `perturbation_name`, in order of first appearance), over its HumanEval
 * tasks, each with its seeds' variants (in order of appearance) and each variant's results in sample order:
 * - `robust-pass-at-1`: per task, the share of sample positions i (over zip of the seeds' results,
 *   so the shortest seed's count) at which every seed's i-th sample passed, divided by the first
 *   seed's sample count; their mean over the tasks;
 * - `alt-robust-pass-at-1`: per task, the product over seeds of the seed's share passing; their mean.
 * bigcode's evaluation_results.json holds just these, keyed by perturbation. Beside them explora
 * reports ReCode's robust pass@k (RP_s@k of the paper: its pass@k estimator over n, the first
 * seed's sample count, and the positions robustly correct), for each k <= every task's n (as
 * compute_code_eval drops a k beyond n); at k = 1 it is robust-pass-at-1.
 *
 * A task holds each sample's outcome by position: the robust figures need them, not just counts
 * (a cell's memory is its tasks times their samples, one flag each). A variant none of whose
 * samples has a score (every request failed) is not in the figures: a fold sees a task by its scores.
 */
import { z } from 'zod';
import { passAtK } from '../../metrics/passAtK.js';
import { declareScoreKind } from '../../scoring/scoreKind.js';
import { RecodePayloadSchema } from './payload.js';

const RecodeSampleSchema = z.object({ kind: z.literal('recode') });

const BigcodeFiguresSchema = z.object({ 'robust-pass-at-1': z.number(), 'alt-robust-pass-at-1': z.number() });
type BigcodeFigures = z.output<typeof BigcodeFiguresSchema>;

const PerturbationSchema = z.object({
  name: z.string(),
  /** Its HumanEval tasks. */
  problems: z.int(),
  /** Its variants scored (a task under one seed each). */
  variants: z.int(),
  bigcode: BigcodeFiguresSchema,
  /** `robust-pass@<k>` for each k of the cell no greater than any task's sample count. */
  robustPassAtK: z.record(z.string(), z.number()),
});

const RecodeFiguresSchema = z.object({ kind: z.literal('recode'), byPerturbation: z.array(PerturbationSchema) });

/**
 * A variant's line of results.json `per_task` adds its HumanEval task, perturbation and seed, and
 * each sample's outcome by index ('1' passed, '0' not): what compare's robust rows group and read.
 */
const PerTaskSchema = z.object({
  perturbation: z.string(),
  problem: z.string(),
  seed: z.int(),
  passed: z.string().regex(/^[01]*$/),
});
type PerTask = z.output<typeof PerTaskSchema>;
const perTask = (row: Record<string, unknown>): PerTask | undefined => PerTaskSchema.safeParse(row.recode).data;

/**
 * compare's rows: per perturbation both cells have, robust pass@1 tested paired over the HumanEval
 * tasks (a task's value its share of sample positions at which all its variants pass, so 0 or 1 at
 * one sample per task: McNemar's then). Only when every row of both cells says its variant
 * (results.json of cells finalized before these lines exist: not compared).
 */
function robustComparisons(a: ReadonlyArray<Record<string, unknown>>, b: ReadonlyArray<Record<string, unknown>>) {
  if (![...a, ...b].every((t) => perTask(t))) return [];
  const perturbations = [...new Set(a.map((t) => perTask(t)!.perturbation))];
  return perturbations.map((name) => ({
    name: `robust pass@1 ${name}`,
    unitOf: (t: Record<string, unknown>) => (perTask(t)!.perturbation === name ? perTask(t)!.problem : null),
    value: (rows: ReadonlyArray<Record<string, unknown>>) =>
      // The rows in task order: the seeds in order of appearance, as bigcode reads them.
      robustPassAt1(rows.map((r) => [...perTask(r)!.passed].map((flag) => flag === '1'))),
  }));
}
export type RecodeFigures = z.output<typeof RecodeFiguresSchema>;

/** A variant: its HumanEval task, perturbation and seed, and each sample's outcome by its index. */
export interface RecodeVariant {
  perturbation: string;
  problem: string;
  seed: number;
  passed: boolean[];
}

/** A variant's results as bigcode lists them: one per sample, in order (a sample without a score failed). */
function resultsOf(variant: RecodeVariant, n: number): boolean[] {
  return Array.from({ length: Math.max(n, variant.passed.length) }, (_, i) => variant.passed[i] === true);
}

/**
 * A HumanEval task's robust outcome under one perturbation, from its seeds' results in order of
 * appearance: n, the first seed's sample count; c, the sample positions (over zip of the seeds'
 * results) at which every seed's sample passed; each position's term of bigcode's robust-pass-at-1
 * sum (1/n where robust, else 0), summed in its order by the callers so that the floats are its own.
 */
function robustPositions(seeds: readonly (readonly boolean[])[]): { n: number; c: number; terms: number[] } {
  const n = seeds[0]!.length;
  const positions = Math.min(...seeds.map((s) => s.length));
  const terms: number[] = [];
  let c = 0;
  for (let i = 0; i < positions; i++) {
    const all = seeds.every((s) => s[i]);
    if (all) c++;
    terms.push((all ? 1 : 0) / n);
  }
  return { n, c, terms };
}

/** A task's robust pass@1 under its perturbation: its share of robust positions (bigcode's per-task term). */
export function robustPassAt1(seeds: readonly (readonly boolean[])[]): number {
  return robustPositions(seeds).terms.reduce((sum, t) => sum + t, 0);
}

/** The figures of one perturbation's HumanEval tasks, each its seeds' results in order of appearance. */
function perturbationFigures(problems: ReadonlyArray<readonly boolean[][]>, ks: readonly number[]) {
  // Summed term by term in bigcode's order (its sum over a generator), so that the floats are its own.
  let robust = 0;
  let alt = 0;
  const counts: Array<{ n: number; c: number }> = [];
  for (const seeds of problems) {
    const { n, c, terms } = robustPositions(seeds);
    for (const term of terms) robust += term;
    alt += seeds.reduce((product, s) => product * (s.filter(Boolean).length / s.length), 1);
    counts.push({ n, c });
  }
  const bigcode: BigcodeFigures = { 'robust-pass-at-1': robust / problems.length, 'alt-robust-pass-at-1': alt / problems.length };
  const robustPassAtK = Object.fromEntries(
    ks
      .filter((k) => counts.every((t) => t.n >= k))
      .map((k) => [`robust-pass@${k}`, counts.reduce((sum, t) => sum + passAtK(t.n, t.c, k), 0) / counts.length]),
  );
  return { bigcode, robustPassAtK };
}

/** bigcode's process_results over the variants (in task order): per perturbation, its figures. */
export function recodeFigures(
  variants: ReadonlyArray<{ variant: RecodeVariant; n: number }>,
  ks: readonly number[],
): RecodeFigures['byPerturbation'] {
  const byPerturbation = new Map<string, Map<string, Map<number, boolean[]>>>();
  for (const { variant, n } of variants) {
    let problems = byPerturbation.get(variant.perturbation);
    if (!problems) byPerturbation.set(variant.perturbation, (problems = new Map()));
    let seeds = problems.get(variant.problem);
    if (!seeds) problems.set(variant.problem, (seeds = new Map()));
    if (seeds.has(variant.seed))
      throw new Error(`${variant.problem} under ${variant.perturbation} has seed ${variant.seed} twice (bigcode asserts each once)`);
    seeds.set(variant.seed, resultsOf(variant, n));
  }
  return [...byPerturbation].map(([name, problems]) => ({
    name,
    problems: problems.size,
    variants: [...problems.values()].reduce((sum, seeds) => sum + seeds.size, 0),
    ...perturbationFigures(
      [...problems.values()].map((seeds) => [...seeds.values()]),
      ks,
    ),
  }));
}

/** bigcode's results dict for the task: per perturbation, its two figures. */
export function recodeResults(figures: RecodeFigures): Record<string, BigcodeFigures> {
  return Object.fromEntries(figures.byPerturbation.map((p) => [p.name, p.bigcode]));
}

const fixed = (value: number) => value.toFixed(4);

export const RECODE_SCORES = declareScoreKind<z.output<typeof RecodeSampleSchema>, RecodeVariant, null, RecodeFigures>({
  sampleKind: 'recode',
  sampleSchema: RecodeSampleSchema,
  recordScore: () => ({ kind: 'recode' }),
  rowFields: () => ({}),
  runs: true,
  newCell: () => null,
  add: (_cell, task, _sample, context) => {
    const variant = task ?? variantOf(context.problem);
    variant.passed[context.sampleIndex] = context.passed;
    return variant;
  },
  figures: (_cell, tasks, k) => {
    const variants = tasks.flatMap((t) => (t.state ? [{ variant: t.state, n: t.n }] : []));
    return variants.length === 0 ? null : { kind: 'recode', byPerturbation: recodeFigures(variants, k) };
  },
  cellKind: 'recode',
  cellSchema: RecodeFiguresSchema,
  perTaskJson: (task, n) => ({
    recode: {
      perturbation: task.perturbation,
      problem: task.problem,
      seed: task.seed,
      passed: resultsOf(task, n)
        .map((p) => (p ? '1' : '0'))
        .join(''),
    } satisfies PerTask,
  }),
  perTaskShape: { recode: PerTaskSchema.optional() },
  compare: (a, b) => robustComparisons(a, b),
  resultsJson: (figures) => ({
    bigcode: recodeResults(figures),
    robust_pass_at_k: Object.fromEntries(figures.byPerturbation.map((p) => [p.name, p.robustPassAtK])),
    problems: Object.fromEntries(figures.byPerturbation.map((p) => [p.name, { problems: p.problems, variants: p.variants }])),
  }),
  // bigcode's file holds its keys alone; evaluate.ts's line leads with explora's pass@k and adds robust pass@k.
  metricsLine: (figures, parts) =>
    parts.style === 'bigcode'
      ? recodeResults(figures)
      : {
          ...parts.passAtK,
          ...parts.alsoText,
          ...Object.fromEntries(figures.byPerturbation.map((p) => [p.name, { ...p.bigcode, ...p.robustPassAtK }])),
        },
  progressLine: (figures) =>
    'robust-pass-at-1 ' + figures.byPerturbation.map((p) => `${p.name} ${fixed(p.bigcode['robust-pass-at-1'])}`).join(', '),
  report: {
    order: 45,
    intro:
      "ReCode as bigcode reports it, per perturbation: <b>robust pass@1</b>, the share of HumanEval tasks whose completions pass under every seed of the perturbation (per sample position), and bigcode's <b>alt</b>, the mean over tasks of the product of the seeds' pass rates.",
    tableId: 'recode-scores-table',
    headers: () => ['perturbation', 'tasks', 'variants', 'robust pass@1', 'alt robust pass@1'],
    rows: (figures, _ks, f) =>
      figures.byPerturbation.map((p) => [
        { html: f.esc(p.name) },
        { num: true, html: f.int(p.problems) },
        { num: true, html: f.int(p.variants) },
        { num: true, html: f.pct(p.bigcode['robust-pass-at-1']) },
        { num: true, html: f.pct(p.bigcode['alt-robust-pass-at-1']) },
      ]),
  },
});

/** A new variant's identity, from its problem's payload. */
function variantOf(problem: unknown): RecodeVariant {
  const { recode } = RecodePayloadSchema.parse(problem);
  return { perturbation: recode.perturbation_name, problem: recode.task_id, seed: recode.seed, passed: [] };
}
