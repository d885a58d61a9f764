/**
 * What a planned sweep will cost before it starts (`start-sweep --dry-run`): per cell and in total,
 * its requests, prompt tokens, completion tokens (the max_tokens bound, and an expected figure from
 * earlier answers of the same model) and their money at the models' prices; and how small a
 * difference of pass@1 its comparisons can decide (power.ts). Pure: the I/O that counts tokens and
 * reads the cache hands its findings in (scripts/lib/dry-run.ts).
 */
import type { SweepProblem } from '../datasets/problems.js';
import { familyOf } from '../families/registry.js';
import type { ChatBody, CompletionBody, LlmBody } from '../llm/request.js';
import { stopSentTo, stopWordsFor, type ModelApi, type SweepConfig } from './config.js';
import { directRequestBody } from '../../methods/direct/request.js';
import type { Sampling } from '../methods/sampling.js';
import { group, table, type Cell, type CellPlan, type SweepPlan } from './plan.js';
import { formatMoney, sumMoney, tokenCost, type Money, type Price } from './price.js';
import { DEFAULT_ALPHA, DEFAULT_POWER, detectableDifference, samplesNeeded, tasksNeeded } from './power.js';

/**
 * Characters per token where no tokenizer of the model is at hand: measured with Qwen2.5-Coder's
 * tokenizer on HumanEval (3.36) and MBPP (3.56) prompts with solutions; the lower figure overstates
 * tokens a little, so a forecast errs towards the dearer side.
 */
export const CHARS_PER_TOKEN = 3.3;
/** Tokens a chat message adds around its content in the estimate (role markers; OpenAI's rule of thumb). */
export const TOKENS_PER_MESSAGE = 4;

/** Text of one request as the dry run measures it: a completion prompt, or a chat's messages. */
export type RequestText = { kind: 'completion'; prompt: string } | { kind: 'chat'; messages: Array<{ role: string; content: string }> };

/**
 * A task's first request in a cell, as the sweep sends it (sweep-input's sampling, direct's body):
 * its direct prompt with the cell's template, what every method starts from and all the direct
 * method sends. Its cache group (infra/llm/cache.ts) holds the answers of all the task's samples.
 */
export function firstRequestBody(
  problem: SweepProblem,
  cell: Pick<Cell, 'model' | 'temperature' | 'promptTemplate' | 'dataset'>,
  config: Pick<SweepConfig, 'top_p' | 'seed' | 'n_samples'>,
): LlmBody {
  return directRequestBody(
    problem,
    cell.model.api,
    samplingOf(cell, config),
    0,
    Math.min(cell.model.samples_per_request ?? 1, config.n_samples),
  );
}

/**
 * A task's second request in a cell whose dataset asks in two steps (its family's nextStep:
 * HumanEvalExplain writes from its first answer, a description), with an empty first answer: the
 * step's own prompt, which each sample's answer lengthens. Null: the task is asked in one step.
 */
export function secondRequestBody(
  problem: SweepProblem,
  cell: Pick<Cell, 'model' | 'temperature' | 'promptTemplate' | 'dataset'>,
  config: Pick<SweepConfig, 'top_p' | 'seed' | 'n_samples'>,
): LlmBody | null {
  const next = familyOf(problem).nextStep?.(problem, '');
  return next ? directRequestBody(next, cell.model.api, samplingOf(cell, config), 0) : null;
}

function samplingOf(
  cell: Pick<Cell, 'model' | 'temperature' | 'promptTemplate' | 'dataset'>,
  config: Pick<SweepConfig, 'top_p' | 'seed'>,
): Sampling {
  const stop = stopSentTo(stopWordsFor(cell.model, cell.dataset), cell.model);
  const sampling: Sampling = {
    model: cell.model.model,
    temperature: cell.temperature,
    top_p: config.top_p,
    max_tokens: cell.model.max_tokens,
    ...(stop.length ? { stop } : {}),
    ...(cell.model.send_seed ? { seed: config.seed } : {}),
    ...(cell.promptTemplate ? { prompt: cell.promptTemplate } : {}),
    // As the sweep's own requests (scripts/lib/sweep-input.ts): a fill-in-the-middle dataset's prompt has the model's FIM tokens.
    ...(cell.model.fim && familyOf(cell.dataset).fillsInTheMiddle?.(cell.dataset) ? { fim: cell.model.fim } : {}),
  };
  return sampling;
}

/** The text of a request body, as the dry run measures it. */
export function requestTextOf(api: ModelApi, body: LlmBody): RequestText {
  return api === 'chat'
    ? { kind: 'chat', messages: (body as ChatBody).messages }
    : { kind: 'completion', prompt: (body as CompletionBody).prompt };
}

/** Prompt tokens of a request from its characters, for models explora has no tokenizer of. */
export function estimatePromptTokens(request: RequestText): number {
  if (request.kind === 'completion') return Math.ceil(request.prompt.length / CHARS_PER_TOKEN);
  const chars = request.messages.reduce((a, m) => a + m.content.length, 0);
  return Math.ceil(chars / CHARS_PER_TOKEN) + TOKENS_PER_MESSAGE * request.messages.length + 3;
}

/** A cell's prompt tokens per request: the mean over its tasks' first requests, and how they were counted. */
export interface PromptSize {
  perRequest: number;
  /**
   * A two-step dataset's (HumanEvalExplain): the mean of its tasks' second requests without the
   * first answer they carry (secondRequestBody); the forecast adds an answer's tokens to each.
   */
  secondStep?: number;
  /** counted: with the model's own tokenizer; estimated: from characters (CHARS_PER_TOKEN). */
  how: 'counted' | 'estimated';
}

/** Earlier answers of a model found in the LLM cache: how long they were. */
export interface CachedAnswers {
  /** Answers (records) the mean is over. */
  answers: number;
  /** Mean completion tokens per answer. */
  meanCompletionTokens: number;
  /** own-requests: answers to this sweep's own first requests; sample: other answers of the model in the cache. */
  source: 'own-requests' | 'sample';
}

export interface ForecastInputs {
  plan: SweepPlan;
  /** By cell id; absent for a cell whose prompts could not be made (a generated dataset). */
  promptSizes: Readonly<Record<string, PromptSize>>;
  /** By model id; absent when the cache holds no answer of the model. */
  cachedAnswers: Readonly<Record<string, CachedAnswers>>;
  /** By model id; absent for a model without `price`. */
  prices: Readonly<Record<string, Price>>;
  /** By model id: its max_tokens. */
  maxTokens: Readonly<Record<string, number>>;
}

export interface CellForecast {
  id: string;
  model: string;
  /** Requests as the cell sends them alone (as the plan's table). */
  requests: number;
  /** Null when the cell's prompts could not be made. */
  promptTokens: number | null;
  /** True when promptTokens is an estimate (characters, or a method whose later prompts carry more). */
  promptEstimate: boolean;
  /** How the prompts of one request were measured: counted by the model's tokenizer, from characters, or not at all. */
  promptBasis: 'counted' | 'estimated' | 'unknown';
  /** The method sends prompts other than the direct one (docs, plans, earlier answers), counted as that one. */
  otherPrompts: boolean;
  /** Of requests, the second steps of a dataset asked in two steps (each carries a sample's first answer). */
  secondSteps: number;
  maxCompletionTokens: number;
  /** Null without earlier answers of the model. */
  expectedCompletionTokens: number | null;
  /** Null without a price or without prompt tokens. */
  maxCost: Money | null;
  expectedCost: Money | null;
}

export interface ForecastTotals {
  /** Requests shared by several cells counted once, as the plan's total. */
  requests: number;
  promptTokens: number;
  /** Cells whose prompt tokens are unknown (left out of promptTokens and the money). */
  unknownPromptCells: number;
  promptEstimate: boolean;
  maxCompletionTokens: number;
  /** Null when no cell has an expected figure; else over the cells that have one (see partialExpected). */
  expectedCompletionTokens: number | null;
  /** Cells with requests but no expected figure (their model has no cached answers). */
  cellsWithoutExpected: number;
  maxCost: Money[];
  expectedCost: Money[];
  /** Models with requests and no price: their cells are left out of the money. */
  unpricedModels: string[];
  /**
   * By model id, what its cells send that no earlier cell did (as the totals): the budgets are
   * checked against it. expectedCompletionTokens is null when any of its cells has no expected figure.
   */
  byModel: Record<string, { promptTokens: number; maxCompletionTokens: number; expectedCompletionTokens: number | null; tasks: number }>;
}

export interface Forecast {
  cells: CellForecast[];
  totals: ForecastTotals;
}

/**
 * The requests and answers each cell sends that no earlier cell of the grid sent: a request family
 * shared by several cells (domain/sweep/sharing.ts) is paid by the first of them, the others find it
 * cached. The sums over cells are the plan's totals.
 */
export function sentByCell(
  cells: readonly CellPlan[],
  maxTokens: Readonly<Record<string, number>>,
): Map<string, { requests: number; answers: number }> {
  const seen = new Set<string>();
  const out = new Map<string, { requests: number; answers: number }>();
  for (const c of cells) {
    let requests = c.llmRequests;
    let answers = c.maxCompletionTokens / (maxTokens[c.model] ?? 1);
    for (const s of c.shared) {
      if (seen.has(s.family)) {
        requests -= s.requests;
        answers -= s.answers;
      }
      seen.add(s.family);
    }
    out.set(c.id, { requests, answers });
  }
  return out;
}

export function forecastSweep(inputs: ForecastInputs): Forecast {
  const { plan, promptSizes, cachedAnswers, prices, maxTokens } = inputs;
  const modelCells = plan.cells.filter((c) => c.method !== 'loaded');
  const answersIn = (c: CellPlan) => c.maxCompletionTokens / (maxTokens[c.model] ?? 1);
  const expectedPerAnswer = (model: string) => {
    const cached = cachedAnswers[model];
    return cached ? Math.min(cached.meanCompletionTokens, maxTokens[model] ?? Infinity) : null;
  };
  const priced = (model: string, prompt: number | null, completion: number | null): Money | null => {
    const price = prices[model];
    return price && prompt !== null && completion !== null ? tokenCost(price, prompt, completion) : null;
  };

  /**
   * Prompt tokens of `requests` of the cell's requests (all of them, or those it sends that no earlier
   * cell did): a second step's prompt is its own plus the first answer it carries, counted at the
   * expected answer's length where the cache has one, else at max_tokens.
   */
  const promptOf = (c: CellPlan, requests: number): number | null => {
    const size = promptSizes[c.id];
    if (!size) return null;
    const second = c.llmRequests === 0 ? 0 : ((c.secondStepRequests ?? 0) * requests) / c.llmRequests;
    const answer = expectedPerAnswer(c.model) ?? maxTokens[c.model] ?? 0;
    return size.perRequest * (requests - second) + second * ((size.secondStep ?? size.perRequest) + answer);
  };

  const cells: CellForecast[] = modelCells.map((c) => {
    const size = promptSizes[c.id];
    const prompt = promptOf(c, c.llmRequests);
    const promptTokens = prompt === null ? null : Math.round(prompt);
    const perAnswer = expectedPerAnswer(c.model);
    const expected = perAnswer === null ? null : Math.round(perAnswer * answersIn(c));
    return {
      id: c.id,
      model: c.model,
      requests: c.llmRequests,
      promptTokens,
      promptEstimate: !size || size.how === 'estimated' || c.method !== 'direct' || c.estimate || (c.secondStepRequests ?? 0) > 0,
      promptBasis: size ? size.how : 'unknown',
      otherPrompts: c.method !== 'direct',
      secondSteps: c.secondStepRequests ?? 0,
      maxCompletionTokens: c.maxCompletionTokens,
      expectedCompletionTokens: expected,
      maxCost: priced(c.model, promptTokens, c.maxCompletionTokens),
      expectedCost: priced(c.model, promptTokens, expected),
    };
  });

  // Totals: what each cell sends that no earlier one did.
  const sent = sentByCell(modelCells, maxTokens);
  let promptTokens = 0;
  let maxCompletion = 0;
  let expectedCompletion = 0;
  let anyExpected = false;
  let cellsWithoutExpected = 0;
  const maxCost: Money[] = [];
  const expectedCost: Money[] = [];
  const unpriced = new Set<string>();
  const byModel: ForecastTotals['byModel'] = {};
  for (const c of modelCells) {
    const own = sent.get(c.id)!;
    if (own.requests === 0 && own.answers === 0) continue;
    const prompt = promptOf(c, own.requests);
    const maxTok = own.answers * (maxTokens[c.model] ?? 0);
    const perAnswer = expectedPerAnswer(c.model);
    const expected = perAnswer === null ? null : perAnswer * own.answers;
    if (prompt !== null) promptTokens += prompt;
    maxCompletion += maxTok;
    if (expected === null) cellsWithoutExpected++;
    else {
      anyExpected = true;
      expectedCompletion += expected;
    }
    const mine = (byModel[c.model] ??= { promptTokens: 0, maxCompletionTokens: 0, expectedCompletionTokens: 0, tasks: 0 });
    mine.promptTokens += prompt ?? 0;
    mine.maxCompletionTokens += maxTok;
    mine.expectedCompletionTokens =
      expected === null || mine.expectedCompletionTokens === null ? null : mine.expectedCompletionTokens + expected;
    mine.tasks += c.tasks;
    if (!prices[c.model]) unpriced.add(c.model);
    const m = priced(c.model, prompt, maxTok);
    if (m) maxCost.push(m);
    const e = priced(c.model, prompt, expected);
    if (e) expectedCost.push(e);
  }
  return {
    cells,
    totals: {
      requests: plan.totals.llmRequests,
      promptTokens: Math.round(promptTokens),
      unknownPromptCells: cells.filter((c) => c.promptTokens === null).length,
      promptEstimate: cells.some((c) => c.promptEstimate),
      maxCompletionTokens: maxCompletion,
      expectedCompletionTokens: anyExpected ? Math.round(expectedCompletion) : null,
      cellsWithoutExpected,
      maxCost: sumMoney(maxCost),
      expectedCost: sumMoney(expectedCost),
      unpricedModels: [...unpriced],
      byModel,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Power of the comparisons the grid implies

/** A factor two cells of one dataset can differ in alone: what such a pair's comparison measures. */
export type Factor = 'model' | 'method' | 'temperature' | 'prompt';

export interface ImpliedComparison {
  dataset: string;
  factor: Factor;
  a: string;
  b: string;
}

/** Pairs of cells on one dataset that differ in exactly one factor: the comparisons a grid is run for. */
export function impliedComparisons(cells: readonly CellPlan[]): ImpliedComparison[] {
  const out: ImpliedComparison[] = [];
  const factors: Array<[Factor, (c: CellPlan) => unknown]> = [
    ['model', (c) => c.model],
    ['method', (c) => c.method],
    ['temperature', (c) => c.temperature],
    ['prompt', (c) => c.prompt ?? null],
  ];
  const modelCells = cells.filter((c) => c.method !== 'loaded');
  modelCells.forEach((a, i) => {
    for (const b of modelCells.slice(i + 1)) {
      if (a.dataset !== b.dataset) continue;
      const differing = factors.filter(([, of]) => of(a) !== of(b));
      if (differing.length === 1) out.push({ dataset: a.dataset, factor: differing[0]![0], a: a.id, b: b.id });
    }
  });
  return out;
}

export interface PowerOptions {
  /** B's pass@1 the differences are measured from. */
  baseline: number;
  /** The difference of pass@1 the sweep should be able to decide; comparisons that cannot get a warning. */
  target: number;
  alpha?: number;
  power?: number;
}

export interface DatasetPower {
  dataset: string;
  tasks: number;
  samples: number;
  /** The smallest rise over the baseline detected at the power asked for; null: none can be. */
  detectable: number | null;
  comparisons: ImpliedComparison[];
  /** When comparisons cannot decide the target: what would (normal approximation), null when nothing within reach does. */
  wouldTake?: { tasks: number | null; samples: number | null };
}

/** Power of each dataset's implied comparisons (they share its tasks and n). */
export function sweepPower(plan: SweepPlan, opts: PowerOptions): DatasetPower[] {
  const alpha = opts.alpha ?? DEFAULT_ALPHA;
  const power = opts.power ?? DEFAULT_POWER;
  const comparisons = impliedComparisons(plan.cells);
  return plan.datasets.map((d) => {
    const q = { tasks: d.tasks, samples: plan.nSamples, baseline: opts.baseline, alpha };
    const detectable = detectableDifference(q, power);
    const mine = comparisons.filter((c) => c.dataset === d.name);
    const out: DatasetPower = { dataset: d.name, tasks: d.tasks, samples: plan.nSamples, detectable, comparisons: mine };
    if (mine.length > 0 && (detectable === null || detectable > opts.target)) {
      out.wouldTake = {
        tasks: tasksNeeded({ samples: plan.nSamples, baseline: opts.baseline, alpha }, opts.target, power),
        samples: samplesNeeded({ tasks: d.tasks, baseline: opts.baseline, alpha }, opts.target, power),
      };
    }
    return out;
  });
}

// ---------------------------------------------------------------------------------------------
// Text

export interface ForecastNotes {
  /** Model ids whose prompts were counted with their own tokenizer, and what that tokenizer is. */
  counted: Array<{ model: string; tokenizer: string }>;
  /** By model id: the earlier answers the expected figure is from. */
  cachedAnswers: Readonly<Record<string, CachedAnswers>>;
  /** Why the cache was not read, if it was not. */
  cacheProblem?: string;
}

/** The forecast's table and notes, for `--dry-run`. `~` marks estimates, `?` unknowns, `-` no figure. */
export function formatForecast(forecast: Forecast, notes: ForecastNotes): string {
  const { totals } = forecast;
  const tok = (n: number | null, estimate: boolean) => (n === null ? '?' : `${estimate ? '~' : ''}${group(n)}`);
  const money = (m: Money | null) => (m === null ? '-' : formatMoney(m));
  const moneys = (ms: Money[]) => (ms.length === 0 ? '-' : ms.map(formatMoney).join(' + '));
  const rows = forecast.cells.map((c) => [
    c.id,
    group(c.requests),
    tok(c.promptTokens, c.promptEstimate),
    group(c.maxCompletionTokens),
    c.expectedCompletionTokens === null ? '-' : `~${group(c.expectedCompletionTokens)}`,
    money(c.maxCost),
    c.expectedCost === null ? '-' : `~${money(c.expectedCost)}`,
  ]);
  rows.push([
    'total',
    group(totals.requests),
    totals.unknownPromptCells > 0 && totals.promptTokens === 0 ? '?' : tok(totals.promptTokens, totals.promptEstimate),
    group(totals.maxCompletionTokens),
    totals.expectedCompletionTokens === null ? '-' : `~${group(totals.expectedCompletionTokens)}`,
    moneys(totals.maxCost),
    totals.expectedCost.length === 0 ? '-' : `~${moneys(totals.expectedCost)}`,
  ]);
  const out = [table(['cell', 'requests', 'prompt tokens', 'completion tokens max', 'expected', 'cost max', 'expected'], rows, true)];
  const lines: string[] = [];
  for (const c of notes.counted) lines.push(`prompt tokens of ${c.model}: counted with its own tokenizer (${c.tokenizer})`);
  if (forecast.cells.some((c) => c.promptBasis === 'estimated'))
    lines.push(`~ prompt tokens: ESTIMATED from characters (${CHARS_PER_TOKEN} per token): explora has no tokenizer of the model`);
  if (forecast.cells.some((c) => c.otherPrompts && c.promptBasis !== 'unknown'))
    lines.push(
      "~ prompt tokens of methods other than direct: each request counted as the task's direct prompt (ESTIMATED: their later prompts add docs, plans, earlier answers)",
    );
  if (forecast.cells.some((c) => c.secondSteps > 0))
    lines.push(
      "~ prompt tokens of datasets asked in two steps (HumanEvalExplain): each sample's second request counted as its step's prompt " +
        'plus the first answer it carries, at the expected completion tokens (else max_tokens)',
    );
  if (totals.unknownPromptCells > 0)
    lines.push(
      `? prompt tokens: unknown for ${totals.unknownPromptCells} cell(s) (a generated dataset, made when the sweep runs, ` +
        'or prompts the dry run could not build); left out of the totals and the cost',
    );
  const cached = Object.entries(notes.cachedAnswers);
  for (const [model, c] of cached)
    lines.push(
      `expected completion tokens of ${model}: ${c.meanCompletionTokens.toFixed(1)} per answer, the mean of ${group(c.answers)} earlier answers ` +
        `in the LLM cache (${c.source === 'own-requests' ? "to this sweep's own first prompts" : 'a sample of its answers to other prompts'})`,
    );
  if (notes.cacheProblem) lines.push(`expected completion tokens: the LLM cache was not read (${notes.cacheProblem})`);
  else if (totals.expectedCompletionTokens === null && forecast.cells.length > 0)
    lines.push('expected completion tokens: none, no answers of these models in the LLM cache yet');
  else if (totals.cellsWithoutExpected > 0)
    lines.push(
      `expected completion tokens: none for ${totals.cellsWithoutExpected} cell(s), whose model has no answers in the LLM cache yet; the total counts the others`,
    );
  if (totals.unpricedModels.length > 0)
    lines.push(
      `cost: no price for ${totals.unpricedModels.join(', ')} (models[i].price: {input_per_mtok, output_per_mtok, currency}); left out of the cost`,
    );
  if (forecast.cells.reduce((a, c) => a + c.requests, 0) !== totals.requests)
    lines.push('the total counts requests several cells share once (the first cell pays, the others find them cached)');
  return [...out, ...lines].join('\n') + '\n';
}

/** The power section: per dataset, the smallest detectable difference, and a warning per dataset whose comparisons cannot decide the target. */
export function formatPower(power: DatasetPower[], opts: PowerOptions): string {
  const alpha = opts.alpha ?? DEFAULT_ALPHA;
  const pct = (x: number) => `${(100 * x).toFixed(1)} points`;
  const samples = power[0]?.samples ?? 1;
  const lines = [
    `power: the smallest rise of pass@1 over a baseline of ${opts.baseline} that compare's paired test ` +
      `(${samples === 1 ? "McNemar's exact test, n = 1" : 'the sign-flip permutation test on per-task rates'}, two-sided, alpha ${alpha}) ` +
      `detects with ${Math.round(100 * (opts.power ?? DEFAULT_POWER))}% power`,
  ];
  lines.push(
    table(
      ['dataset', 'tasks', 'n', 'detectable difference', 'comparisons'],
      power.map((p) => [
        p.dataset,
        group(p.tasks),
        String(p.samples),
        p.detectable === null ? 'none' : `${p.detectable.toFixed(3)} (${pct(p.detectable)})`,
        String(p.comparisons.length),
      ]),
    ),
  );
  for (const p of power) {
    if (!p.wouldTake) continue;
    const byFactor = new Map<string, number>();
    for (const c of p.comparisons) byFactor.set(c.factor, (byFactor.get(c.factor) ?? 0) + 1);
    const what = [...byFactor].map(([f, n]) => `${n} ${f} comparison${n === 1 ? '' : 's'}`).join(', ');
    const example = p.comparisons[0]!;
    const fix = [
      p.wouldTake.tasks === null ? null : `~${group(p.wouldTake.tasks)} tasks at n = ${p.samples}`,
      p.wouldTake.samples === null ? null : `n = ${group(p.wouldTake.samples)} samples per task on these ${group(p.tasks)} tasks`,
    ].filter(Boolean);
    lines.push(
      `warning: dataset ${p.dataset}: ${what} (e.g. ${example.a} vs ${example.b}) cannot decide a difference of ${pct(opts.target)} ` +
        `at ${group(p.tasks)} tasks x n = ${p.samples}: ${p.detectable === null ? 'no rise from the baseline is detectable at all' : `the smallest detectable is ${pct(p.detectable)}`}; ` +
        (fix.length ? `it would take ${fix.join(', or ')} (normal approximation)` : 'no size within reach would'),
    );
  }
  return lines.join('\n') + '\n';
}
