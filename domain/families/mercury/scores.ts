/**
 * Mercury's score kind, `mercury`: a sample's first run passes or fails as bigcode names it, and its
 * Beyond (beyond.ts) from the CPU time its entry point took against the task's references', timed
 * in the same sandbox run (harness.ts). A cell's figures are bigcode's compute_beyond_eval results:
 * pass@k and Beyond@k per difficulty and over all tasks, and the statuses counted per difficulty.
 * Two cells compare on each task's mean Beyond (a continuous value: the paired permutation test).
 */
import { z } from 'zod';
import { declareScoreKind } from '../../scoring/scoreKind.js';
import {
  MERCURY_DIFFICULTIES,
  MERCURY_KS,
  MERCURY_STATUSES,
  mercuryResults,
  type MercuryDifficulty,
  type MercuryResults,
  type MercuryStatus,
} from './beyond.js';

const StatusSchema = z.enum(MERCURY_STATUSES);

/** What a sample's score keeps (the family's TaskScore carries it as `mercury`). */
export const MercurySampleSchema = z.object({
  kind: z.literal('mercury'),
  difficulty: z.enum(MERCURY_DIFFICULTIES),
  status: StatusSchema,
  /** Seconds of CPU time in the entry point's calls over the test cases (least over the rounds); null when it failed. */
  runtime: z.number().nonnegative().nullable(),
  /** Rounds of timed runs that ran. */
  rounds: z.int().nonnegative(),
  /** The references that passed, of all (0 of n when the sample failed and they did not run). */
  references: z.object({ passed: z.int().nonnegative(), total: z.int().nonnegative() }),
  /** The fastest and slowest passing reference's runtime (seconds); null when none ran or passed. */
  range: z.tuple([z.number(), z.number()]).nullable(),
  /** null: no reference passed, so nothing to rank it against. */
  beyond: z.number().min(0).max(1).nullable(),
});
export type MercurySample = z.output<typeof MercurySampleSchema>;

const FiguresSchema = z.object({
  kind: z.literal('mercury'),
  /** bigcode's `<group>_pass@k` and `<group>_beyond@k`, in its order. */
  figures: z.record(z.string(), z.number()),
  errors: z.record(z.enum(MERCURY_DIFFICULTIES), z.record(StatusSchema, z.int())),
  unranked: z.int().nonnegative(),
  tasks: z.int().positive(),
});
type MercuryFigures = z.output<typeof FiguresSchema>;

/** A task's line of results.json `per_task` adds its difficulty and its samples' mean Beyond (null: unranked). */
const PerTaskSchema = z.object({ difficulty: z.enum(MERCURY_DIFFICULTIES), beyond: z.number().nullable() });
const perTask = (row: Record<string, unknown>) => row.mercury as z.output<typeof PerTaskSchema> | undefined;

interface MercuryTask {
  difficulty: MercuryDifficulty;
  beyond: Array<number | null>;
  statuses: Partial<Record<MercuryStatus, number>>;
}

const MAX_K = Math.max(...MERCURY_KS);

/** bigcode's results dict: the figures, then each difficulty's status counts. */
export function mercuryResultsJson(figures: Pick<MercuryResults, 'figures' | 'errors'>): Record<string, unknown> {
  return { ...figures.figures, ...figures.errors };
}

const meanBeyond = (task: MercuryTask, n: number): number | null => {
  const values = task.beyond.slice(0, n);
  return values.length > 0 && values.every((b) => typeof b === 'number')
    ? (values as number[]).reduce((a, b) => a + b, 0) / values.length
    : null;
};

export const MERCURY_SCORES = declareScoreKind<MercurySample, MercuryTask, null, MercuryFigures>({
  sampleKind: 'mercury',
  sampleSchema: MercurySampleSchema,
  recordScore: (score) => MercurySampleSchema.parse({ ...(score.mercury as object), kind: 'mercury' }),
  rowFields: (sample) => ({
    mercury_status: sample.status,
    runtime: sample.runtime,
    beyond: sample.beyond,
    reference_range: sample.range,
  }),
  runs: true,
  newCell: () => null,
  add: (_cell, task, sample, context) => {
    const t = task ?? { difficulty: sample.difficulty, beyond: [], statuses: {} };
    if (context.sampleIndex < MAX_K) t.beyond[context.sampleIndex] = sample.beyond;
    t.statuses[sample.status] = (t.statuses[sample.status] ?? 0) + 1;
    return t;
  },
  figures: (_cell, tasks) => {
    const scored = tasks.filter((t) => t.state !== undefined);
    if (scored.length === 0) return null;
    const results = mercuryResults(scored.map((t) => ({ ...t.state!, n: t.n, c: t.c })));
    return { kind: 'mercury', ...results, tasks: scored.length };
  },
  cellKind: 'mercury',
  cellSchema: FiguresSchema,
  perTaskJson: (task, n) => ({ mercury: { difficulty: task.difficulty, beyond: meanBeyond(task, Math.min(n, MAX_K)) } }),
  perTaskShape: { mercury: PerTaskSchema.optional() },
  resultsJson: (figures) => ({ bigcode: mercuryResultsJson(figures), unranked_tasks: figures.unranked }),
  // bigcode's file holds its keys alone; evaluate.ts's line leads with explora's pass@k.
  metricsLine: (figures, parts) =>
    parts.style === 'bigcode' ? mercuryResultsJson(figures) : { ...parts.passAtK, ...parts.alsoText, ...mercuryResultsJson(figures) },
  progressLine: (figures) =>
    `Beyond@1 ${figures.figures['Average_beyond@1']?.toFixed(4) ?? '–'}, pass@1 ${figures.figures['Average_pass@1']?.toFixed(4) ?? '–'}` +
    (figures.unranked ? ` (${figures.unranked} tasks unranked: no reference passed)` : ''),
  headline: (figures) => ({ name: 'Beyond@1', value: figures.figures['Average_beyond@1'] }),
  report: {
    order: 45,
    intro:
      "Mercury as bigcode reports it: <b>Beyond@1</b>, where a sample's runtime falls between the slowest (0) and the fastest (1) of the task's reference solutions (a failing sample: 0), averaged over tasks, with pass@1; runtimes are the CPU time of the solution's calls, the least of repeated rounds, measured with the references in the same run.",
    tableId: 'mercury-scores-table',
    headers: () => ['Beyond@1', 'pass@1', 'Easy', 'Medium', 'Hard', 'unranked'],
    rows: (figures, _ks, f) => [
      [
        { num: true, html: f.pct(figures.figures['Average_beyond@1']) },
        { num: true, html: f.pct(figures.figures['Average_pass@1']) },
        ...MERCURY_DIFFICULTIES.map((d) => ({ num: true, html: f.pct(figures.figures[`${d}_beyond@1`]) })),
        { num: true, html: f.int(figures.unranked) },
      ],
    ],
  },
  // Tasks unranked in either cell (no reference passed) leave the comparison out.
  compare: (a, b) =>
    [...a, ...b].every((t) => typeof perTask(t)?.beyond === 'number') ? [['Beyond (task mean)', (t) => perTask(t)!.beyond!] as const] : [],
  statistic: 'permutation',
});
