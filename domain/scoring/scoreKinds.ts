/**
 * Every score kind: the shared `text` and those the families declare (FamilyDefinition.scoreKinds),
 * found by a record's `score.kind` or a cell's `scores.kind`. What results, the report, the progress
 * view, compare and the peer files iterate instead of knowing any kind by name.
 */
import { z } from 'zod';
import { declaredScoreKinds } from '../families/registry.js';
import type { AnyScoreKind, CellKindScores, SampleScore } from './scoreKind.js';
import { TEXT_SCORES } from './textScoreKind.js';

let kinds: readonly AnyScoreKind[] | undefined;

/** Every kind, ordered as the report shows them (ScoreKind.report.order). */
export function scoreKinds(): readonly AnyScoreKind[] {
  kinds ??= [TEXT_SCORES, ...declaredScoreKinds().filter((k) => k !== TEXT_SCORES)].sort((a, b) => a.report.order - b.report.order);
  return kinds;
}

/** The kind of a record's score; throws naming it when no family declares it. */
export function kindOfSample(score: Pick<SampleScore, 'kind'>): AnyScoreKind {
  const kind = scoreKinds().find((k) => k.sampleKind === score.kind);
  if (!kind)
    throw new Error(`a sample's score of kind ${JSON.stringify(score.kind)}, which no family declares (FamilyDefinition.scoreKinds)`);
  return kind;
}

/** The kind of a cell's scores; throws naming it when no family declares it. */
export function kindOfCell(scores: Pick<CellKindScores, 'kind'>): AnyScoreKind {
  const kind = scoreKinds().find((k) => k.cellKind === scores.kind);
  if (!kind)
    throw new Error(`a cell's scores of kind ${JSON.stringify(scores.kind)}, which no family declares (FamilyDefinition.scoreKinds)`);
  return kind;
}

/** Whether a record's samples ran (pass@k counts them): those without a score, and those of a kind that runs. */
export const scoreRuns = (score: Pick<SampleScore, 'kind'> | undefined): boolean => score === undefined || kindOfSample(score).runs;

/** Parses a value by the schema of the kind `find` gives, reporting its issues at the value's path. */
function byKind(find: (value: { kind: string }) => AnyScoreKind, schemaOf: (kind: AnyScoreKind) => z.ZodType) {
  return z.looseObject({ kind: z.string() }).transform((value, ctx) => {
    let kind: AnyScoreKind;
    try {
      kind = find(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message, path: ['kind'] });
      return z.NEVER;
    }
    const parsed = schemaOf(kind).safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: 'custom', message: issue.message, path: issue.path });
      return z.NEVER;
    }
    return parsed.data as Record<string, unknown> & { kind: string };
  });
}

/** A record's `score`, validated by its kind's schema (ScoreKind.sampleSchema). */
export const SampleScoreSchema: z.ZodType<SampleScore, unknown> = byKind(kindOfSample, (k) => k.sampleSchema);

/** A stored cell's `scores`, validated by its kind's schema (ScoreKind.cellSchema). */
export const CellKindScoresSchema: z.ZodType<CellKindScores, unknown> = byKind(kindOfCell, (k) => k.cellSchema);

/** The fields every kind's tasks add to a line of results.json's `per_task` (ScoreKind.perTaskShape), for its readers. */
export function perTaskShape(): z.ZodRawShape {
  return Object.assign({}, ...scoreKinds().map((k) => k.perTaskShape)) as z.ZodRawShape;
}
