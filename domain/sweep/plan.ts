/**
 * The grid of a sweep (one cell per dataset x model x method x temperature, but for datasets run
 * with some of the models only) and what running it
 * costs: tasks, samples, LLM requests and sandbox runs per cell and in total. Pure, so `--dry-run`
 * and the workflow agree on the grid by construction.
 */
import type { MethodName } from '../methods/registry.js';
import { estimateMethodCost, METHODS } from '../methods/registry.js';
import type { PromptTemplate } from '../methods/promptTemplate.js';
import type { NamedPromptTemplate, SweepConfig, SweepDatasetConfig, SweepModelConfig } from './config.js';
import { cellId, formatTemperature, loadedCellId } from './ids.js';
import { familyOf } from '../families/registry.js';

export { cellId, formatTemperature, loadedCellId } from './ids.js';

/**
 * full: generate and execute; generation-only: generate and save, execute nothing; evaluate-only:
 * execute generations loaded from files (bigcode's --load_generations_path), ask no model.
 */
export type SweepMode = 'full' | 'generation-only' | 'evaluate-only';

export interface Cell {
  /** e.g. `humaneval.gpt-x.direct.t0.8`; unique within a valid config (see ids.ts). */
  id: string;
  /** Position in the grid order (datasets, then models, methods, temperatures, as in the config). */
  index: number;
  dataset: SweepDatasetConfig;
  model: SweepModelConfig;
  method: MethodName;
  temperature: number;
  /** The cell's point on the `prompts:` axis; null in sweeps without one. */
  promptName: string | null;
  /** The template its requests are made with (the axis's, else the model's); absent: the default prompts. */
  promptTemplate?: PromptTemplate;
}

/** Every cell, datasets outermost and prompt templates innermost, each in config order. */
export function expandGrid(config: SweepConfig): Cell[] {
  const cells: Cell[] = [];
  // Without a prompts axis every cell has its model's own template (or none).
  const prompts: Array<NamedPromptTemplate | null> = config.prompts ?? [null];
  for (const dataset of config.datasets) {
    // A dataset run with some of the models only (LiveCodeBench's window per model: one dataset per cut-off).
    const meets = familyOf(dataset).modelsOf?.(dataset);
    for (const model of config.models) {
      if (meets && !meets.includes(model.id)) continue;
      for (const method of config.methods) {
        for (const temperature of config.temperatures) {
          for (const prompt of prompts) {
            const promptName = prompt?.name ?? null;
            const promptTemplate = prompt ? prompt.template : model.prompt;
            cells.push({
              id: cellId(dataset.name, model.id, method, temperature, promptName),
              index: cells.length,
              dataset,
              model,
              method,
              temperature,
              promptName,
              ...(promptTemplate ? { promptTemplate } : {}),
            });
          }
        }
      }
    }
  }
  return cells;
}

export interface CellPlan {
  id: string;
  dataset: string;
  model: string;
  /** `loaded` in an evaluate-only sweep. */
  method: MethodName | 'loaded';
  temperature: number;
  /** The cell's point on the `prompts:` axis (absent without one). */
  prompt?: string;
  /** Tasks of the dataset after `limit`. */
  tasks: number;
  /** tasks x n_samples */
  samples: number;
  /** Requests the cell sends when it runs alone. */
  llmRequests: number;
  sandboxRuns: number;
  /** Upper bound on generated tokens: answers (choices) x max_tokens. */
  maxCompletionTokens: number;
  /** True when the method's per-sample figures are estimates. */
  estimate: boolean;
  /** Of llmRequests, the second steps of a dataset asked in two steps (HumanEvalExplain): each prompt carries a first answer. Absent: none. */
  secondStepRequests?: number;
  /** Parts of llmRequests other cells send too, by qualified name (dataset, model, part, maybe temperature). */
  shared: Array<{ family: string; requests: number; answers: number }>;
}

export interface DatasetPlan {
  name: string;
  /** Tasks the dataset holds. */
  available: number;
  /** Tasks used (after `limit`). */
  tasks: number;
}

export interface ModelPlan {
  id: string;
  /** Requests of its cells, those several cells share counted once (the sweep sends them once). */
  llmRequests: number;
  maxCompletionTokens: number;
  concurrency: number;
  requestsPerSecond?: number;
  /** With a rate limit: the least time its requests can take (llmRequests / requests_per_second). */
  minSeconds?: number;
}

export interface PlanTotals {
  cells: number;
  samples: number;
  /** Shared requests counted once. */
  llmRequests: number;
  sandboxRuns: number;
  maxCompletionTokens: number;
}

export interface SweepPlan {
  sweepId?: string;
  mode: SweepMode;
  nSamples: number;
  k: number[];
  topP: number;
  seed: number;
  limit?: number;
  /** How many task ids `tasks:` lists. */
  tasks?: number;
  limitStart?: number;
  timeoutS: number;
  /** Sizes of the grid's axes, in grid order. */
  axes: { datasets: number; models: number; methods: number; temperatures: number; /** 0: no prompts axis. */ prompts: number };
  datasets: DatasetPlan[];
  models: ModelPlan[];
  cells: CellPlan[];
  totals: PlanTotals;
  /** True when any figure is an estimate. */
  estimate: boolean;
  /**
   * For each method of a cell asked with a prompt template: which of its requests the template
   * shapes (its promptTemplateScope). Absent when no cell has a template.
   */
  promptTemplateScopes?: Array<{ method: MethodName; scope: string }>;
}

export class SweepPlanError extends Error {
  override name = 'SweepPlanError';
}

/**
 * The plan of a sweep, given the number of tasks each dataset holds (by dataset name). Throws
 * SweepPlanError naming the dataset when a count is missing or not a non-negative integer.
 */
export function planSweep(config: SweepConfig, taskCounts: Readonly<Record<string, number>>, mode: SweepMode = 'full'): SweepPlan {
  const datasets: DatasetPlan[] = config.datasets.map((d) => {
    const available = Object.prototype.hasOwnProperty.call(taskCounts, d.name) ? taskCounts[d.name] : undefined;
    if (available === undefined) throw new SweepPlanError(`no task count for dataset ${JSON.stringify(d.name)}`);
    if (!Number.isInteger(available) || available < 0) {
      throw new SweepPlanError(`task count of dataset ${JSON.stringify(d.name)} must be a non-negative integer, got ${available}`);
    }
    return { name: d.name, available, tasks: config.limit === undefined ? available : Math.min(available, config.limit) };
  });
  const tasksOf = new Map(datasets.map((d) => [d.name, d.tasks]));

  const cells: CellPlan[] =
    mode === 'evaluate-only'
      ? loadedCells(datasets, config.n_samples)
      : expandGrid(config).map((cell) => {
          const tasks = tasksOf.get(cell.dataset.name)!;
          const twoSteps = familyOf(cell.dataset).asksInTwoSteps?.(cell.dataset) ?? false;
          const cost = estimateMethodCost(
            cell.method,
            tasks,
            config.n_samples,
            config.method_options,
            cell.model.samples_per_request,
            twoSteps,
          );
          const samples = tasks * config.n_samples;
          const llmRequests = cost.llmRequests;
          return {
            id: cell.id,
            dataset: cell.dataset.name,
            model: cell.model.id,
            method: cell.method,
            temperature: cell.temperature,
            ...(cell.promptName === null ? {} : { prompt: cell.promptName }),
            tasks,
            samples,
            llmRequests,
            // Generation-only skips the final executions; a method's own sandbox runs are generation.
            sandboxRuns: mode === 'generation-only' ? cost.sandboxRuns - samples : cost.sandboxRuns,
            maxCompletionTokens: cost.llmAnswers * cell.model.max_tokens,
            estimate: cost.estimate,
            ...(cost.secondStepRequests ? { secondStepRequests: cost.secondStepRequests } : {}),
            // A part whose requests carry the prompt template is shared within one template only; the
            // method's own steps (plan, reranks, exploration) send the same requests whatever the template.
            shared: cost.shared.map((s) => ({
              family: `${cell.dataset.name}/${cell.model.id}/${s.part}${s.atCellTemperature ? `@t${formatTemperature(cell.temperature)}` : ''}${s.templated && cell.promptTemplate ? `#${JSON.stringify(cell.promptTemplate)}` : ''}`,
              requests: s.requests,
              answers: s.answers,
            })),
          };
        });
  const maxTokensOf = new Map(config.models.map((m) => [m.id, m.max_tokens]));
  /** Requests of these cells with each shared family counted once, and the answers' token bound. */
  const sent = (of: CellPlan[]) => {
    const families = new Map<string, { requests: number; answers: number; maxTokens: number }>();
    let requests = 0;
    let tokens = 0;
    for (const c of of) {
      const maxTokens = maxTokensOf.get(c.model) ?? 0;
      requests += c.llmRequests - sum(c.shared.map((s) => s.requests));
      tokens += c.maxCompletionTokens - sum(c.shared.map((s) => s.answers)) * maxTokens;
      for (const s of c.shared) families.set(s.family, { requests: s.requests, answers: s.answers, maxTokens });
    }
    for (const f of families.values()) {
      requests += f.requests;
      tokens += f.answers * f.maxTokens;
    }
    return { requests, tokens };
  };

  const models: ModelPlan[] = (mode === 'evaluate-only' ? [] : config.models).map((m) => {
    const mine = sent(cells.filter((c) => c.model === m.id));
    const llmRequests = mine.requests;
    const plan: ModelPlan = {
      id: m.id,
      llmRequests,
      maxCompletionTokens: mine.tokens,
      concurrency: m.concurrency,
    };
    if (m.requests_per_second !== undefined) {
      plan.requestsPerSecond = m.requests_per_second;
      plan.minSeconds = llmRequests / m.requests_per_second;
    }
    return plan;
  });

  const plan: SweepPlan = {
    mode,
    nSamples: config.n_samples,
    k: [...config.k],
    topP: config.top_p,
    seed: config.seed,
    timeoutS: config.timeout_s,
    axes:
      mode === 'evaluate-only'
        ? { datasets: config.datasets.length, models: 0, methods: 0, temperatures: 0, prompts: 0 }
        : {
            datasets: config.datasets.length,
            models: config.models.length,
            methods: config.methods.length,
            temperatures: config.temperatures.length,
            prompts: config.prompts?.length ?? 0,
          },
    datasets,
    models,
    cells,
    totals: {
      cells: cells.length,
      samples: sum(cells.map((c) => c.samples)),
      llmRequests: sent(cells).requests,
      sandboxRuns: sum(cells.map((c) => c.sandboxRuns)),
      maxCompletionTokens: sent(cells).tokens,
    },
    estimate: cells.some((c) => c.estimate),
  };
  if (config.id !== undefined) plan.sweepId = config.id;
  if (config.limit !== undefined) plan.limit = config.limit;
  if (config.tasks !== undefined) plan.tasks = config.tasks.length;
  if (config.limit_start !== undefined) plan.limitStart = config.limit_start;
  if (mode !== 'evaluate-only') {
    const templated = [
      ...new Set(
        expandGrid(config)
          .filter((c) => c.promptTemplate)
          .map((c) => c.method),
      ),
    ];
    if (templated.length > 0)
      plan.promptTemplateScopes = templated.map((method) => ({ method, scope: METHODS[method].promptTemplateScope }));
  }
  return plan;
}

/** Evaluate-only: one cell per dataset, executing its loaded generations; no model is asked. */
function loadedCells(datasets: DatasetPlan[], n: number): CellPlan[] {
  return datasets.map((d) => ({
    id: loadedCellId(d.name),
    dataset: d.name,
    model: 'loaded',
    method: 'loaded',
    temperature: 0,
    tasks: d.tasks,
    samples: d.tasks * n,
    llmRequests: 0,
    sandboxRuns: d.tasks * n,
    maxCompletionTokens: 0,
    estimate: false,
    shared: [],
  }));
}

/** A readable summary and per-cell table, for `--dry-run`. Estimated figures are marked `~`. */
export function formatPlan(plan: SweepPlan): string {
  const { axes } = plan;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const out: string[] = [];
  if (plan.mode === 'evaluate-only') {
    out.push(
      `sweep ${plan.sweepId ?? '(unnamed)'}, evaluate-only: the loaded generations of ${plural(axes.datasets, 'dataset')}, one cell each; no model is asked`,
    );
  } else {
    out.push(
      `sweep ${plan.sweepId ?? '(unnamed)'}${plan.mode === 'generation-only' ? ', generation-only (nothing is executed but what the methods run while generating)' : ''}: ` +
        `${plural(axes.datasets, 'dataset')} x ${plural(axes.models, 'model')} x ` +
        `${plural(axes.methods, 'method')} x ${plural(axes.temperatures, 'temperature')}${axes.prompts > 0 ? ` x ${plural(axes.prompts, 'prompt template')}` : ''} = ${plural(plan.totals.cells, 'cell')}` +
        // Fewer when datasets meet some of the models only (LiveCodeBench's window per model).
        (plan.totals.cells < axes.datasets * axes.models * axes.methods * axes.temperatures * Math.max(axes.prompts, 1)
          ? ' (datasets run with some of the models only)'
          : ''),
    );
  }
  out.push(
    `n_samples ${plan.nSamples}, k [${plan.k.join(', ')}], top_p ${plan.topP}, seed ${plan.seed}, ` +
      `${plan.tasks !== undefined ? `tasks: ${plural(plan.tasks, 'listed id')}, ` : ''}${plan.limitStart !== undefined ? `limit_start ${plan.limitStart}, ` : ''}` +
      `limit ${plan.limit ?? 'none'}, sandbox timeout ${plan.timeoutS} s`,
  );
  out.push('');
  out.push(
    table(
      ['dataset', 'tasks available', 'tasks used'],
      plan.datasets.map((d) => [d.name, group(d.available), group(d.tasks)]),
    ),
  );
  out.push('');
  const mark = (estimate: boolean, n: number) => (estimate ? `~${group(n)}` : group(n));
  out.push(
    table(
      ['cell', 'tasks', 'samples', 'llm requests', 'sandbox runs'],
      [
        ...plan.cells.map((c) => [
          c.id,
          group(c.tasks),
          group(c.samples),
          mark(c.estimate, c.llmRequests),
          mark(c.estimate, c.sandboxRuns),
        ]),
        [
          'total',
          '',
          group(plan.totals.samples),
          mark(plan.estimate, plan.totals.llmRequests),
          mark(plan.estimate, plan.totals.sandboxRuns),
        ],
      ],
      true,
    ),
  );
  const alone = sum(plan.cells.map((c) => c.llmRequests));
  if (alone !== plan.totals.llmRequests) {
    out.push(
      `(the cells' llm requests add up to ${group(alone)}; ${group(alone - plan.totals.llmRequests)} of them are requests ` +
        `another cell sends too, run before and cached, so the total counts them once)`,
    );
  }
  if (plan.promptTemplateScopes) {
    out.push('', 'prompt templates shape, per method:', ...plan.promptTemplateScopes.map((s) => `  ${s.method}: ${s.scope}`));
  }
  if (plan.models.length === 0) return out.join('\n') + '\n';
  out.push('');
  out.push(
    table(
      ['model', 'llm requests', 'max completion tokens', 'concurrency', 'rate limit'],
      plan.models.map((m) => [
        m.id,
        group(m.llmRequests),
        group(m.maxCompletionTokens),
        String(m.concurrency),
        m.requestsPerSecond === undefined ? 'none' : `${m.requestsPerSecond}/s (>= ${formatDuration(m.minSeconds!)})`,
      ]),
    ),
  );
  return out.join('\n') + '\n';
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/** 1234567 → "1,234,567" (independent of the locale). */
export function group(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function formatDuration(seconds: number): string {
  if (seconds < 120) return `${Math.ceil(seconds)} s`;
  if (seconds < 7200) return `${Math.ceil(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** First column left-aligned, the others right-aligned; a rule above the last row when `totalRow`. */
export function table(header: string[], rows: string[][], totalRow = false): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const lines = [line(header), rule];
  rows.forEach((r, i) => {
    if (totalRow && i === rows.length - 1) lines.push(rule);
    lines.push(line(r));
  });
  return lines.join('\n');
}
