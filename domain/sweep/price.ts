/**
 * A model's price (`models[i].price` in the sweep config) and what tokens cost at it. One schema for
 * every user of money: the dry run's forecast and the budgets. Prices are per million tokens, as
 * providers publish them, in a currency the config names (money of different currencies is never
 * added up).
 */
import { z } from 'zod';

/** A currency's name as the config spells it: an ISO 4217 code (USD, EUR) or a unit of one's own (credits). */
const CurrencySchema = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_-]{0,15}$/, 'must be a currency code such as USD or EUR (1-16 letters, digits, _ -)');

export const PriceSchema = z.strictObject({
  input_per_mtok: z.number().min(0).max(1_000_000),
  output_per_mtok: z.number().min(0).max(1_000_000),
  // Named, never assumed: a forecast in the wrong currency is worse than none.
  currency: CurrencySchema,
});

export type Price = z.infer<typeof PriceSchema>;

export const PRICE_KEYS = ['input_per_mtok', 'output_per_mtok', 'currency'] as const;

/**
 * A model's prices as a sweep carries them: its live price, and, in batch mode, the price of the
 * tokens answered through the provider's Batch API (the same currency: the config checks it).
 */
export type ModelPrice = Price & { batch?: Price };

/** Tokens, of which some may have been answered in provider batches (`batch*`, absent: none). */
export interface AnsweredTokens {
  promptTokens: number;
  completionTokens: number;
  batchPromptTokens?: number;
  batchCompletionTokens?: number;
}

/**
 * What answers cost, each at the price of how it was answered: batch-answered tokens at the batch
 * price, the rest at the live price. A price without `batch` (a model not in batch mode, or a sweep
 * started before prices carried it) counts every token at itself.
 */
export function answersCost(price: ModelPrice, t: AnsweredTokens): Money {
  const batchPrompt = Math.min(t.batchPromptTokens ?? 0, t.promptTokens);
  const batchCompletion = Math.min(t.batchCompletionTokens ?? 0, t.completionTokens);
  if (!price.batch || (batchPrompt === 0 && batchCompletion === 0)) return tokenCost(price, t.promptTokens, t.completionTokens);
  const live = tokenCost(price, t.promptTokens - batchPrompt, t.completionTokens - batchCompletion);
  return { amount: live.amount + tokenCost(price.batch, batchPrompt, batchCompletion).amount, currency: price.currency };
}

/** An amount of money in one currency. */
export interface Money {
  amount: number;
  currency: string;
}

/** What `inputTokens` prompt tokens and `outputTokens` completion tokens cost at `price`. */
export function tokenCost(price: Price, inputTokens: number, outputTokens: number): Money {
  const amount = (inputTokens * price.input_per_mtok + outputTokens * price.output_per_mtok) / 1_000_000;
  return { amount, currency: price.currency };
}

/**
 * Amounts added up per currency, in the order each currency first appears; an empty list for none.
 * Amounts of different currencies stay apart (no exchange rates in a config).
 */
export function sumMoney(amounts: readonly Money[]): Money[] {
  const totals = new Map<string, number>();
  for (const m of amounts) totals.set(m.currency, (totals.get(m.currency) ?? 0) + m.amount);
  return [...totals].map(([currency, amount]) => ({ amount, currency }));
}

/**
 * `12.3456 USD` → "12.35 USD": two decimals, or as many as needed to show two significant digits
 * of a small amount (0.0042 USD), so a cheap sweep does not read as free.
 */
export function formatMoney(m: Money): string {
  const decimals = m.amount === 0 || m.amount >= 0.01 ? 2 : Math.min(8, 1 - Math.floor(Math.log10(m.amount)));
  const [whole, frac] = m.amount.toFixed(decimals).split('.');
  return `${whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${frac ? `.${frac}` : ''} ${m.currency}`;
}
