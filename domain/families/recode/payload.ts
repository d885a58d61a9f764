/**
 * What a ReCode problem carries beyond the common core: which released row it is (the HumanEval
 * task, the perturbation and its seed: bigcode's reference fields, which its robust metric groups
 * by) and the whitespace bigcode's strip took off the prompt (the dataset's solution continues the
 * prompt as written). Apart from index.ts so that the score kind reads it without the family.
 */
import { z } from 'zod';

export const RecodePayloadSchema = z.object({
  recode: z.object({
    /** The row's task_id: the HumanEval task the variant perturbs. */
    task_id: z.string().min(1),
    perturbation_name: z.string().min(1),
    seed: z.int().min(0),
    /** The prompt's trailing whitespace, which bigcode's get_prompt strips (the dataset's solution follows it). */
    prompt_end: z.string(),
  }),
});
export type RecodePayload = z.output<typeof RecodePayloadSchema>;
