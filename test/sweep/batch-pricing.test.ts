/**
 * Batch mode's money: each answer at the price of how it was answered (a record a provider batch
 * answered at the batch price, the rest at the live price), from the LLM call summaries through a
 * sample's record, a shard's and a cell's sums, to the budgets and the live spend forecast.
 */
import { describe, expect, it } from 'vitest';
import { costOfCalls } from '../../domain/methods/artifacts.js';
import { addSpend, batchSpend, budgetHold, capUses, NO_SPEND, type SweepBudgets } from '../../domain/sweep/budget.js';
import { answersCost, type ModelPrice } from '../../domain/sweep/price.js';
import { recordCost, shardOutcomeOf, totalsOfRecords, type SampleRecord } from '../../domain/sweep/records.js';
import { spendForecast } from '../../domain/sweep/spendForecast.js';

// Per million tokens: a live token costs 1 and 2 (prompt, completion), a batch token 0.5 and 1, in millionths.
const LIVE = { input_per_mtok: 1, output_per_mtok: 2, currency: 'USD' };
const BATCH = { input_per_mtok: 0.5, output_per_mtok: 1, currency: 'USD' };
const PRICE: ModelPrice = { ...LIVE, batch: BATCH };
const M = 1_000_000;

function record(sample: number, prompt: number, completion: number, batchId?: string): SampleRecord {
  return {
    task_id: 'T/0',
    task_index: 0,
    sample_index: sample,
    raw: 'x',
    code: 'x',
    solution: 'x',
    status: 'passed',
    passed: true,
    success: true,
    duration_ms: 1,
    prompt_tokens: prompt,
    completion_tokens: completion,
    calls: 1,
    ...(batchId ? { batch_id: batchId } : {}),
  };
}

// Two samples a batch answered, one the live path answered after the batch expired.
const RECORDS = [record(0, 100, 40, 'batch_1'), record(1, 100, 60, 'batch_1'), record(2, 100, 80)];
// By hand: batch (200 prompt, 100 completion) at 0.5/1, live (100, 80) at 1/2.
const EXPECTED = (200 * 0.5 + 100 * 1 + 100 * 1 + 80 * 2) / M;

describe('batch-mode pricing', () => {
  it('prices batch-answered tokens at the batch price and the rest at the live price', () => {
    const t = { promptTokens: 300, completionTokens: 180, batchPromptTokens: 200, batchCompletionTokens: 100 };
    expect(answersCost(PRICE, t).amount).toBeCloseTo(EXPECTED, 12);
    // A price without a batch price (a sweep started before prices carried it) counts every token at itself.
    expect(answersCost(LIVE, t).amount).toBeCloseTo((300 + 180 * 2) / M, 12);
    expect(answersCost(PRICE, { promptTokens: 300, completionTokens: 180 }).amount).toBeCloseTo((300 + 180 * 2) / M, 12);
  });

  it('a record says it was answered in a batch, and the sums of records keep those tokens apart', () => {
    expect(recordCost(RECORDS[0]!)).toMatchObject({ prompt_tokens: 100, batch_prompt_tokens: 100, batch_completion_tokens: 40 });
    expect(recordCost(RECORDS[2]!)).not.toHaveProperty('batch_prompt_tokens');
    const outcome = shardOutcomeOf(0, RECORDS, 0, 1, true);
    expect(outcome).toMatchObject({ promptTokens: 300, completionTokens: 180, batchPromptTokens: 200, batchCompletionTokens: 100 });
    expect(totalsOfRecords(0, RECORDS)).toMatchObject({ batchPromptTokens: 200, batchCompletionTokens: 100 });
    expect(shardOutcomeOf(0, [RECORDS[2]!], 0, 1, true)).not.toHaveProperty('batchPromptTokens');
  });

  it('the call summaries a shard counts keep batch tokens apart too', () => {
    const summary = (promptTokens: number, completionTokens: number, batch: boolean) => ({
      calls: 1,
      promptTokens,
      completionTokens,
      ...(batch ? { batch: true as const } : {}),
    });
    expect(costOfCalls([summary(100, 40, true), summary(100, 60, true), summary(100, 80, false)])).toEqual({
      calls: 3,
      prompt_tokens: 300,
      completion_tokens: 180,
      sandbox_runs: 0,
      batch_prompt_tokens: 200,
      batch_completion_tokens: 100,
    });
  });

  it('budgets count the money of each answer at its own price', () => {
    const spent = addSpend(
      addSpend(NO_SPEND, { calls: 2, promptTokens: 200, completionTokens: 100, tasks: 0.5, ...batchSpend(200, 100) }),
      { calls: 1, promptTokens: 100, completionTokens: 80, tasks: 0.5 },
    );
    expect(spent).toEqual({
      calls: 3,
      promptTokens: 300,
      completionTokens: 180,
      tasks: 1,
      batchPromptTokens: 200,
      batchCompletionTokens: 100,
    });
    const budgets: SweepBudgets = { sweep: { money: 1 }, models: {} };
    expect(capUses(budgets, { m: spent }, { m: PRICE })[0]!.amount).toBeCloseTo(EXPECTED, 12);
    // Held once the next task (at this one's cost) would pass the cap: at the mixed price, not the live one.
    const tight: SweepBudgets = { sweep: { money: 2 * EXPECTED + 1e-9 }, models: {} };
    expect(budgetHold(tight, { m: spent }, { m: PRICE })).toBeNull();
    expect(budgetHold(tight, { m: spent }, { m: LIVE })).not.toBeNull();
  });

  it("the live progress's spend and forecast price batch and live answers apart", () => {
    const cell = { model: 'm', samplesTotal: 6, answered: 3, promptTokens: 300, completionTokens: 180 };
    const f = spendForecast([{ ...cell, batchPromptTokens: 200, batchCompletionTokens: 100 }], { m: PRICE });
    expect(f.spent.money![0]!.amount).toBeCloseTo(EXPECTED, 12);
    expect(f.remaining!.money![0]!.amount).toBeCloseTo(EXPECTED, 12);
    expect(spendForecast([cell], { m: PRICE }).spent.money![0]!.amount).toBeCloseTo((300 + 180 * 2) / M, 12);
  });
});
