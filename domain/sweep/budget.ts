/**
 * Spend caps (`budget:` of a sweep config, for the whole sweep and per model) and the rule that
 * holds a sweep: its spend ledger adds up what each task's answers cost (reported by the shards), and
 * the sweep pauses when the next task, at the average cost of the tasks so far, would pass a cap.
 * Pure: the workflow, the CLIs and the config checks share it.
 */
import { z } from 'zod';
import { answersCost, type ModelPrice, type Price } from './price.js';
import { effectivePrice } from '../llm/batchMode.js';

export const BUDGET_KEYS = ['tokens', 'prompt_tokens', 'completion_tokens', 'money'] as const;
export type BudgetField = (typeof BUDGET_KEYS)[number];

export const BudgetSchema = z
  .strictObject({
    /** Prompt and completion tokens together. */
    tokens: z.int().min(1).optional(),
    prompt_tokens: z.int().min(1).optional(),
    completion_tokens: z.int().min(1).optional(),
    /** In the currency of the models' `price` (every model the cap covers needs one). */
    money: z.number().positive().optional(),
  })
  .refine((b) => BUDGET_KEYS.some((k) => b[k] !== undefined), {
    message: `give at least one of ${BUDGET_KEYS.join(', ')} (or leave budget out)`,
  });
export type Budget = z.infer<typeof BudgetSchema>;

/** A sweep's caps as its workflow carries them: the config paths name them in messages. */
export interface SweepBudgets {
  sweep?: Budget;
  /** By model id; `path` is the cap's place in the config, e.g. `models[1].budget`. */
  models: Record<string, { path: string; budget: Budget }>;
}

/** What a model's answers have cost so far, and over how many tasks (for the next task's estimate). */
export interface Spend {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  tasks: number;
  /** Of the tokens, those answered in provider batches (counted at the batch price); absent: none. */
  batchPromptTokens?: number;
  batchCompletionTokens?: number;
}
export const NO_SPEND: Spend = { calls: 0, promptTokens: 0, completionTokens: 0, tasks: 0 };

export function addSpend(a: Spend, b: Spend): Spend {
  return {
    calls: a.calls + b.calls,
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    tasks: a.tasks + b.tasks,
    ...batchSpend((a.batchPromptTokens ?? 0) + (b.batchPromptTokens ?? 0), (a.batchCompletionTokens ?? 0) + (b.batchCompletionTokens ?? 0)),
  };
}

/** The batch-answered token fields of a spend, present only when some tokens were. */
export function batchSpend(prompt: number, completion: number): Pick<Spend, 'batchPromptTokens' | 'batchCompletionTokens'> {
  return prompt > 0 || completion > 0 ? { batchPromptTokens: prompt, batchCompletionTokens: completion } : {};
}

/** Why a sweep holds: the cap reached, what was spent, and what the next task is expected to cost. */
export interface BudgetHold {
  /** The cap's field in the config, e.g. `budget.tokens` or `models[1].budget.money`. */
  field: string;
  limit: number;
  spent: number;
  nextTask: number;
  /** Set for money: the currency of the amounts. */
  currency?: string;
}

function amountOf(field: BudgetField, s: Spend, price: ModelPrice | undefined): number | null {
  switch (field) {
    case 'tokens':
      return s.promptTokens + s.completionTokens;
    case 'prompt_tokens':
      return s.promptTokens;
    case 'completion_tokens':
      return s.completionTokens;
    case 'money':
      return price ? answersCost(price, s).amount : null;
  }
}

/** One cap and what the models it covers come to (spent so far, or forecast). */
interface CapAmount {
  /** The cap's field in the config, e.g. `budget.tokens` or `models[1].budget.money`. */
  field: string;
  limit: number;
  amount: number;
  tasks: number;
  /** Set for money: the currency of the amounts. */
  currency?: string;
}

/** Every cap of `budgets` (the sweep's, then each model's, in config order) with its models' amount. */
function capAmounts(budgets: SweepBudgets, spentByModel: Record<string, Spend>, prices: Record<string, ModelPrice>): CapAmount[] {
  const out: CapAmount[] = [];
  const add = (path: string, budget: Budget, models: string[]) => {
    for (const field of BUDGET_KEYS) {
      const limit = budget[field];
      if (limit === undefined) continue;
      let amount = 0;
      let tasks = 0;
      for (const m of models) {
        const s = spentByModel[m] ?? NO_SPEND;
        amount += amountOf(field, s, prices[m]) ?? 0;
        tasks += s.tasks;
      }
      const currency = field === 'money' ? models.map((m) => prices[m]?.currency).find(Boolean) : undefined;
      out.push({ field: `${path}.${field}`, limit, amount, tasks, ...(currency ? { currency } : {}) });
    }
  };
  if (budgets.sweep) add('budget', budgets.sweep, [...new Set([...Object.keys(budgets.models), ...Object.keys(spentByModel)])]);
  for (const [model, { path, budget }] of Object.entries(budgets.models)) add(path, budget, [model]);
  return out;
}

/**
 * The first cap (the sweep's, then each model's in config order) that the next task would pass:
 * spent + the average cost of a task so far > the cap. Null when none would. Money is counted from
 * the models' prices; a model without one adds no money (the config refuses such a money cap).
 */
export function budgetHold(
  budgets: SweepBudgets,
  spentByModel: Record<string, Spend>,
  prices: Record<string, ModelPrice>,
): BudgetHold | null {
  for (const cap of capAmounts(budgets, spentByModel, prices)) {
    const nextTask = cap.tasks > 0 ? cap.amount / cap.tasks : 0;
    if (cap.amount + nextTask > cap.limit)
      return {
        field: cap.field,
        limit: cap.limit,
        spent: cap.amount,
        nextTask,
        ...(cap.currency ? { currency: cap.currency } : {}),
      };
  }
  return null;
}

/** A cap against what was spent (or is forecast): `field`, its `limit`, the `amount`. */
export interface CapUse {
  field: string;
  limit: number;
  amount: number;
  currency?: string;
}

/** Every cap against what its models come to in `spentByModel` (money at the prices). */
export function capUses(budgets: SweepBudgets, spentByModel: Record<string, Spend>, prices: Record<string, ModelPrice>): CapUse[] {
  return capAmounts(budgets, spentByModel, prices).map(({ field, limit, amount, currency }) => ({
    field,
    limit,
    amount,
    ...(currency ? { currency } : {}),
  }));
}

/**
 * What a finished sweep spent against each cap, one line each, saying when it passed one and why
 * that can happen: `budget.tokens: spent 1,064 of 250, over by 814 (...)`.
 */
export function describeSpentAgainstCaps(uses: readonly CapUse[], taskWindow: number): string[] {
  return uses.map((u) => {
    const spent = `${u.field}: spent ${amount(u.amount, u.currency, true)} of ${amount(u.limit, u.currency, true)}`;
    if (u.amount <= u.limit) return `${spent} (${Math.round((100 * u.amount) / u.limit)}%)`;
    return (
      `${spent}: OVER the cap by ${amount(u.amount - u.limit, u.currency, true)} ` +
      `(the tasks already started when it was reached finish, up to ${taskWindow} per running shard: docs/sweeps/cost.md#budgets)`
    );
  });
}

/**
 * Whether a newly computed hold replaces the current one: when the sweep starts or stops holding,
 * or when the caps changed while it holds (the reason then names the new caps). Otherwise the
 * reason stays as it was when the hold began (what was spent then).
 */
export function holdChanges(current: BudgetHold | null, next: BudgetHold | null, capsChanged: boolean): boolean {
  return (next === null) !== (current === null) || (capsChanged && next !== null);
}

function amount(v: number, currency: string | undefined, grouped = false): string {
  // Trailing zeros of decimals only: 1000 USD stays 1000 USD.
  if (currency) return `${v.toFixed(v >= 100 ? 0 : 4).replace(/\.(\d*?)0+$/, (_, kept: string) => (kept ? `.${kept}` : ''))} ${currency}`;
  return grouped ? Math.round(v).toLocaleString('en-US') : String(Math.round(v));
}

/** One line for people and the search attribute: `budget: budget.tokens 1052 of 1000 spent (a task costs ~105)`. */
export function describeHold(h: BudgetHold): string {
  return (
    `budget: ${h.field} ${amount(h.spent, h.currency)} of ${amount(h.limit, h.currency)} spent ` +
    `(a task costs ~${amount(h.nextTask, h.currency)})`
  );
}

/**
 * A config's caps against its models' prices: a money cap needs every model it covers priced, in
 * one currency. Messages name the field.
 */
export function budgetConfigChecks(
  sweepBudget: unknown,
  models: unknown[],
  add: (path: (string | number)[], message: string) => void,
): void {
  const record = (x: unknown): Record<string, unknown> | null =>
    x && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : null;
  const priceOf = (m: Record<string, unknown> | null) => record(m?.price);
  models.forEach((x, i) => {
    const m = record(x);
    const b = record(m?.budget);
    if (b?.money !== undefined && !priceOf(m))
      add(['models', i, 'budget', 'money'], `needs models[${i}].price: money is counted from the model's price per token`);
  });
  const b = record(sweepBudget);
  if (b?.money === undefined) return;
  const unpriced = models.flatMap((x, i) => (priceOf(record(x)) ? [] : [`models[${i}]`]));
  if (unpriced.length) {
    add(['budget', 'money'], `needs a price on every model (${unpriced.join(', ')} has none): money is counted from the prices`);
    return;
  }
  const currencies = [...new Set(models.map((x) => priceOf(record(x))?.currency).filter((c) => typeof c === 'string'))];
  if (currencies.length > 1)
    add(
      ['budget', 'money'],
      `the models are priced in ${currencies.join(' and ')}; a sweep's money cap needs one currency (cap each model instead)`,
    );
}

/** A config's caps as the sweep workflow takes them; null when it has none. */
export function sweepBudgetsOf(config: { budget?: Budget; models: ReadonlyArray<{ id: string; budget?: Budget }> }): SweepBudgets | null {
  const models: SweepBudgets['models'] = {};
  config.models.forEach((m, i) => {
    if (m.budget) models[m.id] = { path: `models[${i}].budget`, budget: m.budget };
  });
  if (!config.budget && !Object.keys(models).length) return null;
  return { ...(config.budget ? { sweep: config.budget } : {}), models };
}

/**
 * The models' prices by id: the live price, with the batch price beside it for a model in batch
 * mode (batchMode.ts), so each answer is counted at the price of how it was answered; null when no
 * model has one.
 */
export function pricesOf(
  models: ReadonlyArray<{ id: string; price?: Price; batch?: { price?: Price } }>,
): Record<string, ModelPrice> | null {
  const priced = models.filter((m) => m.price);
  return priced.length
    ? Object.fromEntries(priced.map((m) => [m.id, { ...m.price!, ...(m.batch ? { batch: effectivePrice(m)! } : {}) }]))
    : null;
}

/** The price a forecast counts a model's tokens at: its batch price in batch mode (most of its answers come from batches), else its price. */
export function forecastPrices(prices: Record<string, ModelPrice>): Record<string, Price> {
  return Object.fromEntries(Object.entries(prices).map(([id, { batch, ...live }]) => [id, batch ?? live]));
}

/** `budget.tokens 2000, models[1].budget.money 5` */
export function describeBudgets(b: SweepBudgets): string {
  const parts = (path: string, budget: Budget) =>
    BUDGET_KEYS.flatMap((k) => (budget[k] === undefined ? [] : [`${path}.${k} ${budget[k]}`]));
  return [...(b.sweep ? parts('budget', b.sweep) : []), ...Object.values(b.models).flatMap((m) => parts(m.path, m.budget))].join(', ');
}

/** A dry run's forecast by model: at most (every answer max_tokens long), and as expected (null: no figure for some model). */
export interface SpendForecastByModel {
  max: Record<string, Spend>;
  expected: Record<string, Spend> | null;
}

/**
 * What the caps will stop, said before the sweep starts: a warning per cap the forecast passes,
 * with about how far the sweep gets before it holds there.
 */
export function budgetForecastWarnings(
  budgets: SweepBudgets,
  forecast: SpendForecastByModel,
  prices: Record<string, ModelPrice>,
  taskWindow: number,
): string[] {
  const max = capUses(budgets, forecast.max, prices);
  const expected = forecast.expected ? capUses(budgets, forecast.expected, prices) : null;
  const out: string[] = [];
  max.forEach((m, i) => {
    if (m.amount <= m.limit) return;
    const e = expected?.[i];
    const cap = `${m.field} ${amount(m.limit, m.currency, true)}`;
    const upTo = `at most ${amount(m.amount, m.currency, true)}`;
    const after = (whole: number) => `after about ${Math.max(1, Math.floor((100 * m.limit) / whole))}% of its answers`;
    const resume = `raise it and run start-sweep again to resume; the tasks running then finish, up to ${taskWindow} per running shard`;
    if (e && e.amount > e.limit)
      out.push(
        `warning: ${cap}: the sweep is forecast to pass it (~${amount(e.amount, e.currency, true)} expected, ${upTo}): ` +
          `it will pause there, ${after(e.amount)} (${resume})`,
      );
    else if (e)
      out.push(
        `warning: ${cap}: below the forecast's maximum (${upTo}; ~${amount(e.amount, e.currency, true)} expected): ` +
          `if answers run longer than the cache's, the sweep pauses there (${resume})`,
      );
    else
      out.push(
        `warning: ${cap}: below the forecast's maximum (${upTo}; no expected figure: no earlier answers in the cache): ` +
          `the sweep may pause there, ${after(m.amount)} at the earliest (${resume})`,
      );
  });
  return out;
}
