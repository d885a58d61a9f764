/**
 * `start-sweep --dry-run`: the plan (domain/sweep/plan.ts), what it will cost (forecast.ts: prompt
 * tokens counted with the model's own tokenizer where explora has its GGUF, else estimated; completion
 * tokens bounded by max_tokens and expected from the cache's earlier answers; money at the models'
 * prices) and the power of the comparisons its grid implies (power.ts). Reads the datasets, the
 * tokenizer and the LLM cache; starts and writes nothing.
 */
import type { SweepProblem } from '../../domain/datasets/problems.js';
import type { SweepConfig } from '../../domain/sweep/config.js';
import type { LlmBody } from '../../domain/llm/request.js';
import {
  estimatePromptTokens,
  firstRequestBody,
  requestTextOf,
  secondRequestBody,
  forecastSweep,
  formatForecast,
  formatPower,
  sweepPower,
  type CachedAnswers,
  type ForecastNotes,
  type PowerOptions,
  type PromptSize,
} from '../../domain/sweep/forecast.js';
import { expandGrid, formatPlan, planSweep, type Cell, type SweepMode } from '../../domain/sweep/plan.js';
import type { Price } from '../../domain/sweep/price.js';
import {
  budgetForecastWarnings,
  describeBudgets,
  forecastPrices,
  pricesOf,
  sweepBudgetsOf,
  type Spend,
} from '../../domain/sweep/budget.js';
import { TASK_WINDOW } from '../../workflows/sweepShard.js';
import { callGroup } from '../../infra/llm/cache.js';
import { MAX_OWN_GROUPS, readCachedAnswers } from '../../infra/llm/cachedAnswers.js';
import type { Bucket } from '../../infra/s3.js';
import type { ModelTokenizer } from '../../stack/model-server/tokenizer.js';
import { plannedProblems } from './sweep-input.js';

export interface DryRunOptions {
  power: PowerOptions;
  /** Read the LLM cache for expected completion tokens. */
  readCache: boolean;
  /** Where notes go (a tokenizer that would not open, ...). */
  log: (line: string) => void;
}

/** The dry run's whole text: plan, forecast, power. `config.id` is the sweep id. */
export async function dryRunText(
  bucket: Bucket,
  configFile: string,
  config: SweepConfig,
  mode: SweepMode,
  opts: DryRunOptions,
): Promise<string> {
  const { counts, problems } = await plannedProblems(bucket, configFile, config);
  const plan = planSweep(config, counts, mode);
  const out = [formatPlan(plan)];
  if (mode === 'evaluate-only') return out.join('\n');

  const notes: ForecastNotes = { counted: [], cachedAnswers: {} };
  const cells = expandGrid(config);
  const promptSizes = await measurePrompts(cells, problems, config, notes, opts.log);
  const cachedAnswers: Record<string, CachedAnswers> = {};
  if (opts.readCache) {
    try {
      const found = await readCachedAnswers(
        bucket,
        config.models.map((m) => ({ id: m.id, baseUrl: m.base_url, model: m.model })),
        ownGroups(cells, problems, config),
      );
      for (const [id, t] of found.byModel) {
        if (t.answers > 0)
          cachedAnswers[id] = {
            answers: t.answers,
            meanCompletionTokens: t.completionTokens / t.answers,
            source: found.ownRequests.has(id) ? 'own-requests' : 'sample',
          };
      }
      notes.cachedAnswers = cachedAnswers;
    } catch (err) {
      notes.cacheProblem = (err as Error).message.split('\n')[0];
    }
  } else {
    notes.cacheProblem = '--no-cache-forecast';
  }
  // A model in batch mode at its batch price (domain/llm/batchMode.ts).
  const prices: Record<string, Price> = forecastPrices(pricesOf(config.models) ?? {});
  const forecast = forecastSweep({
    plan,
    promptSizes,
    cachedAnswers,
    prices,
    maxTokens: Object.fromEntries(config.models.map((m) => [m.id, m.max_tokens])),
  });
  out.push(formatForecast(forecast, notes));
  const budgets = sweepBudgetsOf(config);
  if (budgets) {
    const spend = (completion: (m: (typeof forecast.totals.byModel)[string]) => number | null) => {
      const out: Record<string, Spend> = {};
      for (const [model, f] of Object.entries(forecast.totals.byModel)) {
        const c = completion(f);
        if (c === null) return null;
        out[model] = { calls: 0, promptTokens: f.promptTokens, completionTokens: c, tasks: f.tasks };
      }
      return out;
    };
    const warnings = budgetForecastWarnings(
      budgets,
      { max: spend((f) => f.maxCompletionTokens)!, expected: spend((f) => f.expectedCompletionTokens) },
      prices,
      TASK_WINDOW,
    );
    out.push(warnings.length ? warnings.join('\n') : `budgets: the forecast stays within ${describeBudgets(budgets)}`);
  }
  out.push(formatPower(sweepPower(plan, opts.power), opts.power));
  return out.join('\n');
}

/**
 * Each cell's prompt tokens per request: the mean over its tasks of the first request's, counted by
 * the model's tokenizer when its GGUF is here, else estimated from characters. Cells that send the
 * same prompts (same dataset, model and template) are measured once.
 */
async function measurePrompts(
  cells: Cell[],
  problems: Record<string, SweepProblem[] | null>,
  config: SweepConfig,
  notes: ForecastNotes,
  log: (line: string) => void,
): Promise<Record<string, PromptSize>> {
  const tokenizers = new Map<string, ModelTokenizer | null>();
  const tokenizerOf = async (model: string): Promise<ModelTokenizer | null> => {
    if (tokenizers.has(model)) return tokenizers.get(model)!;
    // Loaded here, not with the module: node-llama-cpp and its packages cost every start-sweep about
    // 0.4 s of CPU to import, and only a dry run's forecast uses them.
    const { localModelFile, openModelTokenizer } = await import('../../stack/model-server/tokenizer.js');
    const file = localModelFile(model);
    let tokenizer: ModelTokenizer | null = null;
    if (file) {
      try {
        tokenizer = await openModelTokenizer(file);
      } catch (err) {
        log(
          `start-sweep: note: the tokenizer of ${model} (${file}) did not open (${(err as Error).message}); its prompt tokens are estimated`,
        );
      }
    }
    tokenizers.set(model, tokenizer);
    return tokenizer;
  };
  const sizes: Record<string, PromptSize> = {};
  const measured = new Map<string, PromptSize | null>();
  try {
    for (const cell of cells) {
      const tasks = problems[cell.dataset.name];
      if (!tasks || tasks.length === 0) continue;
      const key = JSON.stringify([cell.dataset.name, cell.model.id, cell.promptTemplate ?? null]);
      if (!measured.has(key)) {
        const tokenizer = await tokenizerOf(cell.model.model);
        let total = 0;
        let secondTotal = 0;
        let seconds = 0;
        let counted = tokenizer !== null;
        const tokensOf = (body: LlmBody): number => {
          const text = requestTextOf(cell.model.api, body);
          const exact = !tokenizer
            ? null
            : text.kind === 'chat'
              ? tokenizer.chatTokens(text.messages)
              : tokenizer.completionTokens(text.prompt);
          if (exact === null) counted = false;
          return exact ?? estimatePromptTokens(text);
        };
        try {
          for (const problem of tasks) {
            total += tokensOf(firstRequestBody(problem, cell, config));
            // A dataset asked in two steps (HumanEvalExplain): the second step's own prompt too.
            const second = secondRequestBody(problem, cell, config);
            if (second) {
              secondTotal += tokensOf(second);
              seconds++;
            }
          }
          measured.set(key, {
            perRequest: total / tasks.length,
            ...(seconds > 0 ? { secondStep: secondTotal / seconds } : {}),
            how: counted ? 'counted' : 'estimated',
          });
        } catch (err) {
          // A request the dry run cannot build the way the sweep will: unknown, never a guess.
          log(`start-sweep: note: the prompts of ${cell.id} were not measured (${(err as Error).message}); its prompt tokens show ?`);
          measured.set(key, null);
          continue;
        }
        if (counted && tokenizer && !notes.counted.some((c) => c.model === cell.model.id))
          notes.counted.push({ model: cell.model.id, tokenizer: tokenizer.file });
      }
      const size = measured.get(key);
      if (size) sizes[cell.id] = size;
    }
  } finally {
    for (const t of tokenizers.values()) await t?.close();
  }
  return sizes;
}

/**
 * By model id: the cache groups of its direct cells' first requests, spread over its cells and tasks
 * (at most MAX_OWN_GROUPS): answers to the very prompts this sweep will send, when an earlier run
 * (a smaller limit, a sweep stopped half-way) sent them.
 */
function ownGroups(cells: Cell[], problems: Record<string, SweepProblem[] | null>, config: SweepConfig): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const model of config.models) {
    const mine = cells.filter((c) => c.model.id === model.id && c.method === 'direct' && (problems[c.dataset.name]?.length ?? 0) > 0);
    const groups: string[] = [];
    const perCell = Math.max(1, Math.ceil(MAX_OWN_GROUPS / Math.max(1, mine.length)));
    for (const cell of mine) {
      for (const problem of problems[cell.dataset.name]!.slice(0, perCell)) {
        let body;
        try {
          body = firstRequestBody(problem, cell, config);
        } catch {
          break; // said by measurePrompts
        }
        const endpoint = {
          id: model.id,
          baseUrl: model.base_url,
          model: model.model,
          api: model.api,
          requestTimeoutS: model.request_timeout_s,
        };
        groups.push(callGroup({ endpoint, body, sampleIndex: 0 }));
      }
    }
    out.set(model.id, groups.slice(0, MAX_OWN_GROUPS));
  }
  return out;
}
