/**
 * The problems a sweep runs on, normalized from any HumanEval-format JSONL (PBE World included):
 * one row per task, with how its programs are assembled. A sweep's copy lives in S3 and activities
 * read it by key.
 */
import { z } from 'zod';

export const ProgramFormSchema = z.enum(['completion', 'full']);

export const SweepProblemSchema = z.object({
  task_id: z.string().min(1),
  prompt: z.string(),
  entry_point: z.string().min(1),
  test: z.string(),
  canonical_solution: z.string().optional(),
  /** completion: prompt + completion + test (HumanEval); full: completion is the whole function (PBE World). */
  form: ProgramFormSchema,
  /** PBE World only: the hidden pipeline's length, for pass rate by length. */
  pipeline_length: z.number().int().optional(),
});
export type SweepProblem = z.infer<typeof SweepProblemSchema>;

/** What a dataset row must have to be run; extra fields are ignored. */
export const DatasetRowSchema = z.looseObject({
  task_id: z.string().min(1),
  prompt: z.string(),
  entry_point: z.string().min(1),
  test: z.string(),
  canonical_solution: z.union([z.string(), z.array(z.string())]).optional(),
  canonical_pipeline: z.array(z.unknown()).optional(),
});

export function normalizeRow(row: z.infer<typeof DatasetRowSchema>, form: 'completion' | 'full'): SweepProblem {
  const canonical = Array.isArray(row.canonical_solution) ? row.canonical_solution[0] : row.canonical_solution;
  return {
    task_id: row.task_id,
    prompt: row.prompt,
    entry_point: row.entry_point,
    test: row.test,
    ...(canonical !== undefined ? { canonical_solution: canonical } : {}),
    form,
    ...(row.canonical_pipeline ? { pipeline_length: row.canonical_pipeline.length } : {}),
  };
}
