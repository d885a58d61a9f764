import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { describeSweepConfigDifferences, parseSweepConfig, sweepConfigHash } from '../../domain/sweep/config.js';
import {
  budgetForecastWarnings,
  budgetHold,
  capUses,
  describeHold,
  describeSpentAgainstCaps,
  holdChanges,
  sweepBudgetsOf,
  type Spend,
  type SweepBudgets,
} from '../../domain/sweep/budget.js';
import { formatSpendForecast, spendForecast } from '../../domain/sweep/spendForecast.js';
import { provenanceFields, type CellProvenance } from '../../domain/sweep/provenance.js';
import { minimalSweepConfig, sweepConfigIssues } from '../support/sweep-config.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const USD = { input_per_mtok: 3, output_per_mtok: 15, currency: 'USD' };
const EUR = { input_per_mtok: 1, output_per_mtok: 2, currency: 'EUR' };

/** The minimal config with two models (the second a copy of the first), each given `extra`, and top-level `top`. */
function config(top: Record<string, unknown>, ...extra: Array<Record<string, unknown>>) {
  const c = minimalSweepConfig();
  const base = (c.models as Array<Record<string, unknown>>)[0]!;
  c.models = extra.map((e, i) => ({ ...base, id: `m${i}`, ...e }));
  return { ...c, ...top };
}

describe('budget: in the sweep config', () => {
  it('is read per sweep and per model, and as the workflow takes it', () => {
    const parsed = parseSweepConfig(config({ budget: { tokens: 1000 } }, { budget: { money: 2, completion_tokens: 50 }, price: USD }, {}));
    expect(parsed.budget).toEqual({ tokens: 1000 });
    expect(parsed.models[0]!.budget).toEqual({ money: 2, completion_tokens: 50 });
    expect(sweepBudgetsOf(parsed)).toEqual({
      sweep: { tokens: 1000 },
      models: { m0: { path: 'models[0].budget', budget: { money: 2, completion_tokens: 50 } } },
    });
    expect(sweepBudgetsOf(parseSweepConfig(config({}, {})))).toBeNull();
  });

  it('refuses bad budgets, naming the field', () => {
    expect(sweepConfigIssues(config({ budget: { tokens: -5 } }, {}))).toEqual([{ path: 'budget.tokens', message: 'must be >= 1, got -5' }]);
    expect(sweepConfigIssues(config({ budget: { tokens: 1.5 } }, {}))[0]!.path).toBe('budget.tokens');
    expect(sweepConfigIssues(config({ budget: {} }, {}))).toEqual([
      { path: 'budget', message: 'give at least one of tokens, prompt_tokens, completion_tokens, money (or leave budget out)' },
    ]);
    expect(sweepConfigIssues(config({ budget: { token: 5 } }, {}))).toContainEqual({
      path: 'budget.token',
      message: 'unknown key (did you mean tokens?)',
    });
    expect(sweepConfigIssues(config({}, { budget: { money: 0 }, price: USD }))).toEqual([
      { path: 'models[0].budget.money', message: 'must be > 0, got 0' },
    ]);
    expect(sweepConfigIssues(config({}, { budget: { money: 3 } }))).toEqual([
      { path: 'models[0].budget.money', message: "needs models[0].price: money is counted from the model's price per token" },
    ]);
    expect(sweepConfigIssues(config({ budget: { money: 3 } }, { price: USD }, {}))).toEqual([
      { path: 'budget.money', message: 'needs a price on every model (models[1] has none): money is counted from the prices' },
    ]);
    expect(sweepConfigIssues(config({ budget: { money: 3 } }, { price: USD }, { price: EUR }))).toEqual([
      {
        path: 'budget.money',
        message: "the models are priced in USD and EUR; a sweep's money cap needs one currency (cap each model instead)",
      },
    ]);
  });

  it('leaves the config hash as it was: raising a budget resumes the same sweep', () => {
    const plain = parseSweepConfig(config({}, {}));
    const capped = parseSweepConfig(config({ budget: { tokens: 10 } }, { budget: { tokens: 5 } }));
    const raised = parseSweepConfig(config({ budget: { tokens: 1000 } }, { budget: { tokens: 500 } }));
    expect(sweepConfigHash(capped, sha)).toBe(sweepConfigHash(plain, sha));
    expect(sweepConfigHash(raised, sha)).toBe(sweepConfigHash(capped, sha));
    expect(describeSweepConfigDifferences(capped, raised)).toEqual([]);
  });
});

const spend = (promptTokens: number, completionTokens: number, tasks: number): Spend => ({
  calls: tasks,
  promptTokens,
  completionTokens,
  tasks,
});

describe('budgetHold: the next task must not pass a cap', () => {
  const budgets: SweepBudgets = { sweep: { tokens: 1000 }, models: { b: { path: 'models[1].budget', budget: { money: 0.01 } } } };
  it('holds when spent plus the average task would pass the cap, not before', () => {
    // 8 tasks of 100 tokens: 800 + 100 = 900, not past 1000.
    expect(budgetHold(budgets, { a: spend(400, 400, 8) }, {})).toBeNull();
    // 9 tasks: 900 + 100 = 1000, still not past.
    expect(budgetHold(budgets, { a: spend(450, 450, 9) }, {})).toBeNull();
    // 9 tasks and a bit: the next one would pass.
    const hold = budgetHold(budgets, { a: spend(451, 450, 9) }, {});
    expect(hold).toMatchObject({ field: 'budget.tokens', limit: 1000, spent: 901 });
    expect(describeHold(hold!)).toBe('budget: budget.tokens 901 of 1000 spent (a task costs ~100)');
    // The sweep's cap counts every model.
    expect(budgetHold(budgets, { a: spend(300, 300, 6), b: spend(200, 200, 4) }, {})?.field).toBe('budget.tokens');
  });

  it("counts money at each model's price, for the model's own cap", () => {
    // b: 1000 prompt tokens at 3/M + 400 completion at 15/M = 0.003 + 0.006 = 0.009 over 2 tasks: next 0.0045 passes 0.01.
    const modelOnly = { models: budgets.models };
    const hold = budgetHold(modelOnly, { b: spend(1000, 400, 2) }, { b: USD });
    expect(hold).toMatchObject({ field: 'models[1].budget.money', currency: 'USD' });
    expect(hold!.spent).toBeCloseTo(0.009, 12);
    expect(describeHold(hold!)).toBe('budget: models[1].budget.money 0.009 USD of 0.01 USD spent (a task costs ~0.0045 USD)');
    expect(budgetHold(modelOnly, { b: spend(500, 200, 2) }, { b: USD })).toBeNull();
    // A raised cap lifts the hold.
    const raised = { models: { b: { path: 'models[1].budget', budget: { money: 1 } } } };
    expect(budgetHold(raised, { b: spend(1000, 400, 2) }, { b: USD })).toBeNull();
  });
});

describe('what a cap stops: before the sweep (the dry run) and after it (spent against the caps)', () => {
  const budgets: SweepBudgets = { sweep: { tokens: 250 }, models: { b: { path: 'models[1].budget', budget: { money: 1 } } } };
  it('says what a finished sweep spent against each cap, and by how much it passed one', () => {
    const uses = capUses(budgets, { a: spend(600, 464, 6), b: spend(100, 0, 1) }, { b: USD });
    expect(uses.map((u) => [u.field, u.limit, u.amount])).toEqual([
      ['budget.tokens', 250, 1164],
      ['models[1].budget.money', 1, 0.0003],
    ]);
    const lines = describeSpentAgainstCaps(uses, 8);
    expect(lines[0]).toBe(
      'budget.tokens: spent 1,164 of 250: OVER the cap by 914 (the tasks already started when it was reached finish, up to 8 per running shard: docs/sweeps/cost.md#budgets)',
    );
    expect(lines[1]).toBe('models[1].budget.money: spent 0.0003 USD of 1 USD (0%)');
    expect(describeSpentAgainstCaps(capUses({ models: {}, sweep: { tokens: 2000 } }, { a: spend(500, 500, 3) }, {}), 8)).toEqual([
      'budget.tokens: spent 1,000 of 2,000 (50%)',
    ]);
  });

  it('warns before the start when the forecast passes a cap, and how far the sweep gets', () => {
    const tokens: SweepBudgets = { sweep: { tokens: 250 }, models: {} };
    const max = { a: spend(500, 1500, 6) };
    // Expected past the cap: it will pause, at about an eighth of its answers.
    const expected = budgetForecastWarnings(tokens, { max, expected: { a: spend(500, 1500, 6) } }, {}, 8);
    expect(expected).toEqual([
      'warning: budget.tokens 250: the sweep is forecast to pass it (~2,000 expected, at most 2,000): it will pause there, after about 12% of its answers (raise it and run start-sweep again to resume; the tasks running then finish, up to 8 per running shard)',
    ]);
    // Only the maximum passes it.
    expect(budgetForecastWarnings({ sweep: { tokens: 1000 }, models: {} }, { max, expected: { a: spend(500, 300, 6) } }, {}, 8)[0]).toMatch(
      /^warning: budget\.tokens 1,000: below the forecast's maximum \(at most 2,000; ~800 expected\)/,
    );
    // No expected figure: the maximum says when at the earliest.
    expect(budgetForecastWarnings(tokens, { max, expected: null }, {}, 8)[0]).toMatch(/after about 12% of its answers at the earliest/);
    // Within every cap: nothing to say.
    expect(budgetForecastWarnings({ sweep: { tokens: 5000 }, models: {} }, { max, expected: null }, {}, 8)).toEqual([]);
  });
});

describe('holdChanges: when a new verdict goes to the sweep', () => {
  const hold = { field: 'budget.tokens', limit: 1000, spent: 901, nextTask: 100 };
  const later = { ...hold, spent: 1001 };
  it('on starting and stopping to hold, and on new caps while holding; not on more spend while holding', () => {
    expect(holdChanges(null, hold, false)).toBe(true);
    expect(holdChanges(hold, null, false)).toBe(true);
    expect(holdChanges(hold, null, true)).toBe(true);
    // The reason stays as it was when the hold began...
    expect(holdChanges(hold, later, false)).toBe(false);
    // ...unless the caps changed: it then names the new ones.
    expect(holdChanges(hold, later, true)).toBe(true);
    expect(holdChanges(null, null, true)).toBe(false);
    expect(holdChanges(null, null, false)).toBe(false);
  });
});

describe('spend so far and forecast remaining', () => {
  const cells = [
    // done: 10 samples, 1000 prompt + 500 completion tokens
    { model: 'a', samplesTotal: 10, answered: 10, promptTokens: 1000, completionTokens: 500 },
    // half answered: its own rate, 5 more samples at 150 tokens each
    { model: 'a', samplesTotal: 10, answered: 5, promptTokens: 500, completionTokens: 250 },
    // not started: the model's rate (1500 + 750 over 15 samples = 150 per sample) for 20 samples
    { model: 'a', samplesTotal: 20, answered: 0, promptTokens: 0, completionTokens: 0 },
  ];
  it('counts tokens spent and forecasts the rest from the rates so far', () => {
    const f = spendForecast(cells, {});
    expect(f.spent).toEqual({ tokens: 2250, money: null });
    expect(f.remaining).toEqual({ tokens: 5 * 150 + 20 * 150, money: null });
    expect(formatSpendForecast(f)).toBe('spent 2,250 tokens; forecast remaining ~3,750 tokens');
    expect(spendForecast([{ ...cells[2]! }], {}).remaining).toBeNull();
  });

  it('adds money when every model has a price', () => {
    const f = spendForecast(cells, { a: USD });
    // spent: 1500 prompt at 3/M + 750 completion at 15/M = 0.0045 + 0.01125
    expect(f.spent.money![0]!.amount).toBeCloseTo(0.01575, 12);
    // remaining: 25 samples x (100 prompt, 50 completion)
    expect(f.remaining!.money![0]!.amount).toBeCloseTo((25 * (100 * 3 + 50 * 15)) / 1e6, 12);
    expect(formatSpendForecast(f)).toBe('spent 0.02 USD (2,250 tokens); forecast remaining ~0.03 USD (~3,750 tokens)');
  });
});

describe('provenance: the server fingerprint', () => {
  const base: CellProvenance = {
    explora: { version: '1', commit: null },
    config_sha256: null,
    dataset_sha256: null,
    model: { endpoint: 'http://x/v1', name: 'm' },
    prompt_template_sha256: null,
    runtime: {},
  };
  it('is a provenance field where the server sent one, and absent otherwise', () => {
    expect(provenanceFields(base)).not.toHaveProperty('model.system_fingerprint');
    const withPrint = { ...base, model: { ...base.model!, system_fingerprints: ['fp_a', 'fp_b'] } };
    expect(provenanceFields(withPrint)['model.system_fingerprint']).toBe('fp_a, fp_b');
  });
});
