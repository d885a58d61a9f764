import { describe, expect, it } from 'vitest';
import { parseSweepConfig } from '../../domain/sweep/config.js';
import {
  CHARS_PER_TOKEN,
  estimatePromptTokens,
  forecastSweep,
  formatForecast,
  formatPower,
  impliedComparisons,
  sentByCell,
  sweepPower,
  type PromptSize,
} from '../../domain/sweep/forecast.js';
import { expandGrid, planSweep } from '../../domain/sweep/plan.js';
import { humanEvalExplainProblems } from '../../domain/families/humanevalexplain/index.js';
import { firstRequestBody, secondRequestBody } from '../../domain/sweep/forecast.js';
import type { CompletionBody } from '../../domain/llm/request.js';
import { jsonl, PYTHON_ROWS } from '../support/humanevalpack-rows.js';
import { minimalSweepConfig } from '../support/sweep-config.js';

const USD = { input_per_mtok: 3, output_per_mtok: 15, currency: 'USD' };

function grid(extra: Record<string, unknown> = {}) {
  const c = minimalSweepConfig();
  return parseSweepConfig({
    ...c,
    models: [
      { id: 'a', base_url: 'http://127.0.0.1:8080/v1', model: 'x', max_tokens: 100, price: USD },
      { id: 'b', base_url: 'http://127.0.0.1:8081/v1', model: 'y', max_tokens: 50 },
    ],
    methods: ['direct'],
    temperatures: [0.2, 0.8],
    n_samples: 3,
    ...extra,
  });
}

describe('forecastSweep', () => {
  it('prices prompt and completion tokens per cell and in total, per model', () => {
    const config = grid();
    const plan = planSweep(config, { humaneval: 10 });
    const sizes: Record<string, PromptSize> = {};
    for (const c of plan.cells) sizes[c.id] = { perRequest: c.model === 'a' ? 200 : 120, how: c.model === 'a' ? 'counted' : 'estimated' };
    const f = forecastSweep({
      plan,
      promptSizes: sizes,
      cachedAnswers: {
        a: { answers: 40, meanCompletionTokens: 30, source: 'sample' },
        b: { answers: 5, meanCompletionTokens: 80, source: 'sample' },
      },
      prices: { a: USD },
      maxTokens: { a: 100, b: 50 },
    });
    const a = f.cells.find((c) => c.id === 'humaneval.a.direct.t0.2')!;
    // 10 tasks x 3 samples = 30 requests of 200 prompt tokens; 30 answers of at most 100, expected 30.
    expect(a).toMatchObject({
      requests: 30,
      promptTokens: 6000,
      promptEstimate: false,
      maxCompletionTokens: 3000,
      expectedCompletionTokens: 900,
    });
    expect(a.maxCost!.amount).toBeCloseTo((6000 * 3 + 3000 * 15) / 1e6, 12);
    expect(a.expectedCost!.amount).toBeCloseTo((6000 * 3 + 900 * 15) / 1e6, 12);
    const b = f.cells.find((c) => c.id === 'humaneval.b.direct.t0.8')!;
    // b's earlier answers averaged 80 tokens, but this sweep cuts them at its max_tokens of 50.
    expect(b).toMatchObject({
      promptTokens: 3600,
      promptEstimate: true,
      expectedCompletionTokens: 1500,
      maxCost: null,
      expectedCost: null,
    });
    expect(f.totals).toMatchObject({
      requests: 120,
      promptTokens: 2 * 6000 + 2 * 3600,
      promptEstimate: true,
      maxCompletionTokens: 2 * 3000 + 2 * 1500,
      expectedCompletionTokens: 2 * 900 + 2 * 1500,
      unpricedModels: ['b'],
    });
    expect(f.totals.maxCost).toHaveLength(1);
    expect(f.totals.maxCost[0]!.amount).toBeCloseTo((2 * 6000 * 3 + 2 * 3000 * 15) / 1e6, 12);
    const text = formatForecast(f, { counted: [{ model: 'a', tokenizer: 'a.gguf' }], cachedAnswers: {} });
    expect(text).toMatch(/^humaneval\.b\.direct\.t0\.2 +30 +~3,600 +1,500 +~1,500 +- +-$/m);
    // (2 x 6,000 x 3 + 2 x 3,000 x 15) / 1e6 = 0.126; expected (12,000 x 3 + 1,800 x 15) / 1e6 = 0.063.
    expect(text).toMatch(/^total +120 +~19,200 +9,000 +~4,800 +0\.13 USD +~0\.06 USD$/m);
    expect(text).toContain('cost: no price for b');
  });

  it('counts requests several cells share once, paid by the first', () => {
    const config = parseSweepConfig({
      ...minimalSweepConfig(),
      datasets: [{ name: 'pbe', family: 'pbe-world', pbe_world: { count: 5 } }],
      methods: ['rag', 'self-repair'],
      n_samples: 2,
    });
    const plan = planSweep(config, { pbe: 5 });
    const maxTokens = { m: config.models[0]!.max_tokens };
    const sent = sentByCell(plan.cells, maxTokens);
    const requests = [...sent.values()].reduce((s, x) => s + x.requests, 0);
    const answers = [...sent.values()].reduce((s, x) => s + x.answers, 0);
    expect(requests).toBe(plan.totals.llmRequests);
    expect(answers * maxTokens.m).toBe(plan.totals.maxCompletionTokens);
    expect(requests).toBeLessThan(plan.cells.reduce((s, c) => s + c.llmRequests, 0));
    // A generated dataset: no prompts to measure, so unknown prompt tokens and no money.
    const f = forecastSweep({ plan, promptSizes: {}, cachedAnswers: {}, prices: {}, maxTokens });
    expect(f.totals.unknownPromptCells).toBe(2);
    expect(formatForecast(f, { counted: [], cachedAnswers: {} })).toMatch(
      /\? prompt tokens: unknown for 2 cell\(s\) \(a generated dataset/,
    );
  });

  it('counts both requests of a sample of a dataset asked in two steps, the second carrying the first answer', () => {
    const config = parseSweepConfig({
      ...minimalSweepConfig(),
      datasets: [
        { name: 'humaneval', family: 'humaneval', path: 'HumanEval.jsonl' },
        { name: 'explain', family: 'humanevalexplain', path: 'humanevalpack.jsonl', language: 'python' },
      ],
      models: [
        {
          id: 'a',
          base_url: 'http://127.0.0.1:8080/v1',
          model: 'x',
          api: 'completions',
          max_tokens: 100,
          price: USD,
          samples_per_request: 3,
        },
      ],
      n_samples: 3,
    });
    const plan = planSweep(config, { humaneval: 4, explain: 4 });
    const one = plan.cells.find((c) => c.dataset === 'humaneval')!;
    const two = plan.cells.find((c) => c.dataset === 'explain')!;
    // One-step: 4 tasks, their 3 samples in one request each. Two steps: those 4 describe requests, then one per sample.
    expect(one).toMatchObject({ llmRequests: 4, maxCompletionTokens: 12 * 100 });
    expect(one.secondStepRequests).toBeUndefined();
    expect(two).toMatchObject({ llmRequests: 4 + 12, secondStepRequests: 12, maxCompletionTokens: 24 * 100 });

    const sizes = {
      [one.id]: { perRequest: 200, how: 'counted' as const },
      [two.id]: { perRequest: 200, secondStep: 150, how: 'counted' as const },
    };
    const forecast = (cached: boolean) =>
      forecastSweep({
        plan,
        promptSizes: sizes,
        cachedAnswers: cached ? { a: { answers: 10, meanCompletionTokens: 30, source: 'sample' } } : {},
        prices: { a: USD },
        maxTokens: { a: 100 },
      });
    // Each second prompt: its own 150 tokens plus a description, at the expected 30 tokens, else max_tokens.
    const expected = forecast(true);
    const cell = expected.cells.find((c) => c.id === two.id)!;
    expect(cell).toMatchObject({ requests: 16, promptTokens: 4 * 200 + 12 * (150 + 30), promptEstimate: true, secondSteps: 12 });
    expect(cell.expectedCompletionTokens).toBe(24 * 30);
    expect(cell.maxCost!.amount).toBeCloseTo(((4 * 200 + 12 * 180) * 3 + 2400 * 15) / 1e6, 12);
    expect(expected.totals.byModel.a!.promptTokens).toBe(4 * 200 + 4 * 200 + 12 * 180);
    expect(forecast(false).cells.find((c) => c.id === two.id)!.promptTokens).toBe(4 * 200 + 12 * (150 + 100));
    expect(formatForecast(expected, { counted: [], cachedAnswers: {} })).toContain('datasets asked in two steps (HumanEvalExplain)');

    // What the dry run measures: the second request is the synthesize prompt, the first the describe prompt.
    const cells = expandGrid(config);
    const explainCell = cells.find((c) => c.dataset.name === 'explain')!;
    const [problem] = humanEvalExplainProblems(jsonl(PYTHON_ROWS), 'humanevalpack.jsonl', { language: 'python', prompt: 'instruct' });
    const first = (firstRequestBody(problem!, explainCell, config) as CompletionBody).prompt;
    const second = (secondRequestBody(problem!, explainCell, config) as CompletionBody).prompt;
    expect(first).not.toBe(second);
    expect(second.length).toBeGreaterThan(0);
  });

  it('estimates prompt tokens from characters, with the chat messages’ overhead', () => {
    expect(estimatePromptTokens({ kind: 'completion', prompt: 'x'.repeat(33) })).toBe(Math.ceil(33 / CHARS_PER_TOKEN));
    expect(
      estimatePromptTokens({
        kind: 'chat',
        messages: [
          { role: 'system', content: 'a'.repeat(10) },
          { role: 'user', content: 'b'.repeat(56) },
        ],
      }),
    ).toBe(Math.ceil(66 / CHARS_PER_TOKEN) + 2 * 4 + 3);
  });
});

describe('the comparisons a grid implies, and their power', () => {
  it('pairs the cells of a dataset that differ in one factor', () => {
    const config = grid({ methods: ['direct', 'rag'], datasets: [{ name: 'pbe', family: 'pbe-world', pbe_world: { count: 5 } }] });
    const plan = planSweep(config, { pbe: 5 });
    const pairs = impliedComparisons(plan.cells);
    // 2 models x 2 methods x 2 temperatures: each factor pairs the 4 combinations of the other two.
    const byFactor = (f: string) => pairs.filter((p) => p.factor === f).length;
    expect([byFactor('model'), byFactor('method'), byFactor('temperature'), byFactor('prompt')]).toEqual([4, 4, 4, 0]);
    expect(pairs).toContainEqual({ dataset: 'pbe', factor: 'method', a: 'pbe.a.direct.t0.2', b: 'pbe.a.rag.t0.2' });
  });

  it('warns when the planned size cannot decide the target difference, and says what would', () => {
    const plan = planSweep(grid({ n_samples: 1 }), { humaneval: 164 });
    const opts = { baseline: 0.5, target: 0.05 };
    const [he] = sweepPower(plan, opts);
    expect(he!.detectable).toBeGreaterThan(0.15);
    expect(he!.detectable).toBeLessThan(0.17);
    expect(he!.wouldTake!.tasks).toBeGreaterThan(1000);
    const text = formatPower([he!], opts);
    expect(text).toMatch(
      /warning: dataset humaneval: 2 temperature comparisons, 2 model comparisons .* cannot decide a difference of 5\.0 points at 164 tasks x n = 1/,
    );
    // A target within reach: no warning.
    const [easy] = sweepPower(plan, { baseline: 0.5, target: 0.2 });
    expect(easy!.wouldTake).toBeUndefined();
    expect(formatPower([easy!], { baseline: 0.5, target: 0.2 })).not.toContain('warning');
  });
});
