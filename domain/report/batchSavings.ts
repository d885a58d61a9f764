/**
 * What batch mode saved, per cell that had answers from provider batches: those tokens at the
 * model's live price against what they cost at its batch price (the sweep's config names both).
 * Pure: the report lays it out (html.ts).
 */
import { z } from 'zod';
import { pricesOf } from '../sweep/budget.js';
import { PriceSchema, tokenCost, type Money } from '../sweep/price.js';
import type { ReportCell } from './model.js';

export interface BatchSaving {
  cell: ReportCell;
  promptTokens: number;
  completionTokens: number;
  /** Null when the config gives the model no price. */
  atLive: Money | null;
  atBatch: Money | null;
}

// The stored config was checked when the sweep started: only the prices are read here.
const StoredModelsSchema = z.looseObject({
  models: z.array(
    z.looseObject({ id: z.string(), price: PriceSchema.optional(), batch: z.looseObject({ price: PriceSchema.optional() }).optional() }),
  ),
});

/** The cells some of whose answers came from batches, with what those tokens cost at each price. */
export function batchSavings(config: unknown, cells: readonly ReportCell[]): BatchSaving[] {
  const parsed = StoredModelsSchema.safeParse(config);
  const prices = (parsed.success ? pricesOf(parsed.data.models) : null) ?? {};
  return cells.flatMap((cell) => {
    const prompt = cell.cost.batchPromptTokens ?? 0;
    const completion = cell.cost.batchCompletionTokens ?? 0;
    if (prompt === 0 && completion === 0) return [];
    const price = prices[cell.model];
    return [
      {
        cell,
        promptTokens: prompt,
        completionTokens: completion,
        atLive: price ? tokenCost(price, prompt, completion) : null,
        atBatch: price ? tokenCost(price.batch ?? price, prompt, completion) : null,
      },
    ];
  });
}
