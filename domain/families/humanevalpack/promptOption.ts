/**
 * bigcode's `--prompt` as a family option (the entry's `prompt` and evaluate.ts's `--prompt`), shared
 * by HumanEvalPack and HumanEvalExplain: the same formats, help and default; each family says which
 * values it refuses, and why, by name.
 */
import { z } from 'zod';
import { familyOptions, option } from '../familyOptions.js';
import { PACK_PROMPTS } from './prompts.js';

/** The prompt option; `refused` says why a value cannot be asked (null: it can). */
export function packPromptOption(refused: (prompt: string) => string | null) {
  const PromptSchema = z
    .string()
    .superRefine((prompt, ctx) => {
      const why = refused(prompt);
      if (why) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(prompt)}: ${why}` });
    })
    .pipe(z.enum(PACK_PROMPTS));
  return familyOptions({
    prompt: option(PromptSchema.default('instruct'), {
      help: "bigcode's --prompt: instruct, octocoder, starchat, codellama, wizardcoder, ... as bigcode names them (default instruct)",
      value: 'format',
    }),
  });
}
