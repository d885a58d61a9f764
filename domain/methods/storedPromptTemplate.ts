/**
 * A prompt template as results and traces store it, for reading them back (the sweep config's own
 * schema checks a template on the way in, with messages naming each field). Its own module so that
 * trace readers need not load the task families behind promptTemplate.ts.
 */
import { z } from 'zod';
import type { PromptTemplate } from './promptTemplate.js';

export const StoredPromptTemplateSchema = z.object({
  system: z.string().optional(),
  instruction: z.string().optional(),
  prefix: z.string().optional(),
  instruction_tokens: z.tuple([z.string(), z.string(), z.string()]).optional(),
});

// The stored shape and the config's type must stay one and the same.
StoredPromptTemplateSchema satisfies z.ZodType<PromptTemplate>;
