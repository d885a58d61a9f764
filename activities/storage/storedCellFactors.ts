/**
 * A stored cell's factors (`cell` of each entry of a sweep's results.json, and of a cell's own
 * summary.json), as the report and compare read them back from S3.
 */
import { z } from 'zod';
import { StoredPromptTemplateSchema } from '../../domain/methods/storedPromptTemplate.js';

export const StoredCellFactorsSchema = z.looseObject({
  cell: z.string(),
  dataset: z.string(),
  model: z.string(),
  method: z.string(),
  temperature: z.number(),
  n_samples: z.number().int(),
  prompt: z.string().optional(),
  prompt_template: z.union([z.literal('default'), StoredPromptTemplateSchema]).optional(),
});
