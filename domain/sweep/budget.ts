/**
 * Spend caps (`budget:` of a sweep config, for the whole sweep and per model) and the rule that
 * holds a sweep: its spend ledger adds up what each task's answers cost (reported by the shards), and
 * the sweep pauses when the next task, at the average cost of the tasks so far, would pass a cap.
 * Pure: the workflow, the CLIs and the config checks share it.
 */
import { z } from 'zod';
import { tokenCost, type Price } from './price.js';

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
}
export const NO_SPEND: Spend = { calls: 0, promptTokens: 0, completionTokens: 0, tasks: 0 };

export function addSpend(a: Spend, b: Spend): Spend {
  return {
    calls: a.calls + b.calls,
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    tasks: a.tasks + b.tasks,
  };
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

function amountOf(field: BudgetField, s: Spend, price: Price | undefined): number | null {
  switch (field) {
    case 'tokens':
      return s.promptTokens + s.completionTokens;
    case 'prompt_tokens':
      return s.promptTokens;
    case 'completion_tokens':
      return s.completionTokens;
    case 'money':
      return price ? tokenCost(price, s.promptTokens, s.completionTokens).amount : null;
  }
}

/**
 * The first cap (the sweep's, then each model's in config order) that the next task would pass:
 * spent + the average cost of a task so far > the cap. Null when none would. Money is counted from
 * the models' prices; a model without one adds no money (the config refuses such a money cap).
 */
export function budgetHold(budgets: SweepBudgets, spentByModel: Record<string, Spend>, prices: Record<string, Price>): BudgetHold | null {
  const check = (path: string, budget: Budget, models: string[]): BudgetHold | null => {
    for (const field of BUDGET_KEYS) {
      const limit = budget[field];
      if (limit === undefined) continue;
      let spent = 0;
      let tasks = 0;
      for (const m of models) {
        const s = spentByModel[m] ?? NO_SPEND;
        spent += amountOf(field, s, prices[m]) ?? 0;
        tasks += s.tasks;
      }
      const nextTask = tasks > 0 ? spent / tasks : 0;
      if (spent + nextTask > limit) {
        const currency = field === 'money' ? models.map((m) => prices[m]?.currency).find(Boolean) : undefined;
        return { field: `${path}.${field}`, limit, spent, nextTask, ...(currency ? { currency } : {}) };
      }
    }
    return null;
  };
  const all = [...new Set([...Object.keys(budgets.models), ...Object.keys(spentByModel)])];
  if (budgets.sweep) {
    const hold = check('budget', budgets.sweep, all);
    if (hold) return hold;
  }
  for (const [model, { path, budget }] of Object.entries(budgets.models)) {
    const hold = check(path, budget, [model]);
    if (hold) return hold;
  }
  return null;
}

/**
 * Whether a newly computed hold replaces the current one: when the sweep starts or stops holding,
 * or when the caps changed while it holds (the reason then names the new caps). Otherwise the
 * reason stays as it was when the hold began (what was spent then).
 */
export function holdChanges(current: BudgetHold | null, next: BudgetHold | null, capsChanged: boolean): boolean {
  return (next === null) !== (current === null) || (capsChanged && next !== null);
}

function amount(v: number, currency: string | undefined): string {
  return currency ? `${v.toFixed(v >= 100 ? 0 : 4).replace(/\.?0+$/, '')} ${currency}` : String(Math.round(v));
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

/** The models' prices by id; null when no model has one. */
export function pricesOf(models: ReadonlyArray<{ id: string; price?: Price }>): Record<string, Price> | null {
  const priced = models.filter((m) => m.price);
  return priced.length ? Object.fromEntries(priced.map((m) => [m.id, m.price!])) : null;
}

/** `budget.tokens 2000, models[1].budget.money 5` */
export function describeBudgets(b: SweepBudgets): string {
  const parts = (path: string, budget: Budget) =>
    BUDGET_KEYS.flatMap((k) => (budget[k] === undefined ? [] : [`${path}.${k} ${budget[k]}`]));
  return [...(b.sweep ? parts('budget', b.sweep) : []), ...Object.values(b.models).flatMap((m) => parts(m.path, m.budget))].join(', ');
}
