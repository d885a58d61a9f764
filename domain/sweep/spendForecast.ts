/**
 * A sweep's spend so far and what the rest is expected to cost, from its cells' answers so far: each
 * cell's remaining samples at its own cost per answered sample, or, before it has any, at its
 * model's (else the sweep's) average. Money at the models' prices when every model has one; tokens
 * otherwise. Pure: the live progress (start-sweep, sweep-status) shows it.
 */
import { answersCost, formatMoney, sumMoney, type Money, type ModelPrice } from './price.js';

export interface CellSpendView {
  model: string;
  samplesTotal: number;
  answered: number;
  promptTokens: number;
  completionTokens: number;
  /** Of the tokens, those answered in provider batches (at the batch price); absent: none. */
  batchPromptTokens?: number;
  batchCompletionTokens?: number;
}

export interface SpendForecast {
  spent: { tokens: number; money: Money[] | null };
  /** Null until some sample is answered (no rate to forecast from). */
  remaining: { tokens: number; money: Money[] | null } | null;
}

interface Rate {
  prompt: number;
  completion: number;
  batchPrompt: number;
  batchCompletion: number;
}

function rateOf(cells: readonly CellSpendView[]): Rate | null {
  const answered = cells.reduce((a, c) => a + c.answered, 0);
  if (answered <= 0) return null;
  return {
    prompt: cells.reduce((a, c) => a + c.promptTokens, 0) / answered,
    completion: cells.reduce((a, c) => a + c.completionTokens, 0) / answered,
    batchPrompt: cells.reduce((a, c) => a + (c.batchPromptTokens ?? 0), 0) / answered,
    batchCompletion: cells.reduce((a, c) => a + (c.batchCompletionTokens ?? 0), 0) / answered,
  };
}

export function spendForecast(cells: readonly CellSpendView[], prices: Record<string, ModelPrice>): SpendForecast {
  const priced = cells.length > 0 && cells.every((c) => prices[c.model]);
  // Each token at the price of how it was answered (batch or live), the forecast at the rates so far.
  const money = (pairs: Array<{ model: string; prompt: number; completion: number; batchPrompt: number; batchCompletion: number }>) =>
    priced
      ? sumMoney(
          pairs.map((p) =>
            answersCost(prices[p.model]!, {
              promptTokens: p.prompt,
              completionTokens: p.completion,
              batchPromptTokens: p.batchPrompt,
              batchCompletionTokens: p.batchCompletion,
            }),
          ),
        )
      : null;
  const spentPairs = cells.map((c) => ({
    model: c.model,
    prompt: c.promptTokens,
    completion: c.completionTokens,
    batchPrompt: c.batchPromptTokens ?? 0,
    batchCompletion: c.batchCompletionTokens ?? 0,
  }));
  const spent = {
    tokens: cells.reduce((a, c) => a + c.promptTokens + c.completionTokens, 0),
    money: money(spentPairs),
  };
  const overall = rateOf(cells);
  if (!overall) return { spent, remaining: null };
  const remainingPairs = cells.map((c) => {
    const left = Math.max(0, c.samplesTotal - c.answered);
    const rate = rateOf([c]) ?? rateOf(cells.filter((o) => o.model === c.model)) ?? overall;
    return {
      model: c.model,
      prompt: left * rate.prompt,
      completion: left * rate.completion,
      batchPrompt: left * rate.batchPrompt,
      batchCompletion: left * rate.batchCompletion,
    };
  });
  return {
    spent,
    remaining: {
      tokens: Math.round(remainingPairs.reduce((a, p) => a + p.prompt + p.completion, 0)),
      money: money(remainingPairs),
    },
  };
}

const tokens = (n: number) => `${Math.round(n).toLocaleString('en-US')} tokens`;
const moneyText = (m: Money[]) => m.map(formatMoney).join(' + ');

/** `spent 0.42 USD (12,345 tokens); forecast remaining ~1.10 USD (~30,000 tokens)` */
export function formatSpendForecast(f: SpendForecast): string {
  const spent = f.spent.money ? `${moneyText(f.spent.money)} (${tokens(f.spent.tokens)})` : tokens(f.spent.tokens);
  const remaining = !f.remaining
    ? '-'
    : f.remaining.money
      ? `~${moneyText(f.remaining.money)} (~${tokens(f.remaining.tokens)})`
      : `~${tokens(f.remaining.tokens)}`;
  return `spent ${spent}; forecast remaining ${remaining}`;
}
