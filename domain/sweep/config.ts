/**
 * The sweep config file: which datasets, models, methods and sampling settings make up a grid of
 * cells. Read from YAML or JSON, validated with zod; every problem is reported at once, each naming
 * its field path (`models[1].base_url: must be an http(s) URL`). Keys are snake_case as in the file,
 * and stay so in the resolved config (which re-validates to itself), with every default filled in.
 */
import { z } from 'zod';
import { canonicalJson } from '../datasets/manifest.js';
import { allFamilies, DatasetEntrySchema, familyOf, findFamily, type AnyFamily, type DatasetEntry } from '../families/registry.js';
import type { ModelScope } from '../families/types.js';
import { cellId } from './ids.js';
import { findMethod, methodNames, type MethodName, type MethodSpec } from '../methods/registry.js';
import { MethodOptionsSchema, type MethodOptions } from '../methods/options.js';
import type { PromptTemplate } from '../methods/promptTemplate.js';
import { FIM_FIELD_HINT, FimTokensSchema, type FimTokens } from '../llm/fim.js';
import { SANITIZERS, type Sanitizer } from '../llm/sanitizer.js';
import { configFormatOf, parseConfigText } from './text.js';
import { issueMessage, typeName, unknownKeyMessage } from './configMessages.js';
import { PRICE_KEYS, PriceSchema, type Price } from './price.js';
import { BUDGET_KEYS, budgetConfigChecks, BudgetSchema, type Budget } from './budget.js';
import { CELL_ERROR_KEYS, CellErrorStopConfigSchema, type CellErrorStopConfig } from './cellErrors.js';
import { BATCH_KEYS, BATCH_METHOD_KINDS, BATCH_ROUND_KINDS, BatchModeConfigSchema, type BatchModeConfig } from '../llm/batchMode.js';

// ---------------------------------------------------------------------------------------------
// Types of the resolved config

/**
 * A dataset of the sweep: a tagged union over the task families (domain/families/), each entry
 * resolved by its family's schema (every default filled in).
 */
export type SweepDatasetConfig = DatasetEntry;

export type ModelApi = 'chat' | 'completions';

export interface SweepModelConfig {
  id: string;
  /** No trailing slash. */
  base_url: string;
  model: string;
  api: ModelApi;
  /** Name of the environment variable holding the API key (never the key). */
  api_key_env?: string;
  max_tokens: number;
  /**
   * Stop words of every request. Absent: none for chat; for completions, those of each dataset's
   * task family (bigcode's for the benchmark: HumanEval's, MBPP's), see stopWordsFor.
   */
  stop?: string[];
  /**
   * How many of `stop` go to the server (the rest are applied to the answer only). Absent: 4,
   * OpenAI's limit (kept absent rather than 4, so configs written before the option hash as they did).
   */
  max_stop_sequences?: number;
  concurrency: number;
  requests_per_second?: number;
  request_timeout_s: number;
  send_seed: boolean;
  /**
   * Samples of a task asked for in one request (the API's `n`), for methods whose samples share a
   * prompt. Absent: one request per sample (kept absent rather than 1, so configs written before the
   * option existed hash as they did).
   */
  samples_per_request?: number;
  /**
   * The model's prompt template, see domain/methods/promptTemplate.ts (each method's
   * promptTemplateScope says which of its requests it shapes). Absent: the named default prompts
   * (kept absent, so configs written before templates existed hash as they did).
   */
  prompt?: PromptTemplate;
  /** What the model's tokens cost (domain/sweep/price.ts); absent: money is not forecast or capped. */
  price?: Price;
  /** This model's spend cap (domain/sweep/budget.ts); absent: none. */
  budget?: Budget;
  /**
   * The model's fill-in-the-middle tokens (a preset's, or as given), for fill-in-the-middle datasets
   * (DS-1000's insertion mode). Absent: the model takes none (configs without it hash as before).
   */
  fim?: FimTokens;
  /** How its chat answers are read (domain/llm/sanitizer.ts); absent: the fenced-block extraction (configs without it hash as before). */
  sanitize?: Sanitizer;
  /**
   * The last day of the model's training data (YYYY-MM-DD): datasets whose problems carry release
   * dates (LiveCodeBench) must keep only problems released after it (trainingCutoffChecks).
   */
  training_cutoff?: string;
  /**
   * Batch mode (domain/llm/batchMode.ts): the model's requests go through the provider's Batch API
   * first, at its batch price. Absent: live requests only.
   */
  batch?: BatchModeConfig;
}

/** OpenAI's API takes at most 4 stop sequences and refuses a request with more (400). */
export const DEFAULT_MAX_STOP_SEQUENCES = 4;

/** The stop words of a cell: the model's when given, else its dataset family's (completions) or none (chat). */
export function stopWordsFor(model: Pick<SweepModelConfig, 'stop' | 'api'>, dataset: SweepDatasetConfig): string[] {
  if (model.stop) return [...model.stop];
  return model.api === 'completions' ? [...familyOf(dataset).stopWords(dataset)] : [];
}

/** The stop words a model's requests carry: the first max_stop_sequences of the cell's list. */
export function stopSentTo(stop: readonly string[], model: Pick<SweepModelConfig, 'max_stop_sequences'>): string[] {
  return stop.slice(0, model.max_stop_sequences ?? DEFAULT_MAX_STOP_SEQUENCES);
}

export interface SweepConfig {
  id?: string;
  method_options: MethodOptions;
  datasets: SweepDatasetConfig[];
  models: SweepModelConfig[];
  methods: MethodName[];
  temperatures: number[];
  top_p: number;
  n_samples: number;
  k: number[];
  /** Task ids to run, in every dataset (bigcode's --tasks selection by id); in text, as results show them. */
  tasks?: string[];
  /** The index of the first task run, after `tasks` (bigcode's --limit_start). */
  limit_start?: number;
  limit?: number;
  timeout_s: number;
  seed: number;
  /**
   * The prompt-template axis of the grid: each cell is asked with one of these (each cell id then
   * ends in `.p-<name>`). Absent: no such axis, each model's own `prompt` (or the defaults).
   */
  prompts?: NamedPromptTemplate[];
  /** The whole sweep's spend cap (domain/sweep/budget.ts); absent: none. */
  budget?: Budget;
  /**
   * Samples a shard holds, and the most one activity takes: a task of more is cut into slices, an
   * activity each (domain/sweep/sharding.ts). Absent: DEFAULT_SHARD_SAMPLES.
   */
  shard_samples?: number;
  /** When a cell stops on errors (domain/sweep/cellErrors.ts); absent: its defaults; false: never. */
  stop_cell_on_errors?: CellErrorStopConfig;
  /**
   * Cells that run at once (absent: 4). 1 runs them one after another: on a model that answers one
   * request at a time, the first cell's results come after its own answers, not after everyone's.
   */
  max_parallel_cells?: number;
  /**
   * Seconds a worker answering a model may stay silent before its calls are given to another worker
   * (the LLM activities' heartbeat timeout). Absent: DEFAULT_LLM_HEARTBEAT_TIMEOUT_S.
   */
  heartbeat_timeout_s?: number;
}

/** One point of the `prompts:` axis: a name, and its template (absent: the named default prompts). */
export interface NamedPromptTemplate {
  name: string;
  template?: PromptTemplate;
}

// ---------------------------------------------------------------------------------------------
// Schema

const NAME_PATTERN = '[a-z0-9][a-z0-9._-]';
export const SweepIdSchema = z
  .string()
  .regex(new RegExp(`^${NAME_PATTERN}{0,79}$`), 'must be 1-80 of a-z 0-9 . _ - starting with a letter or digit');
/** Why a sweep id given on a command line is not one; null when it is. */
export function sweepIdProblem(id: string): string | null {
  const parsed = SweepIdSchema.safeParse(id);
  return parsed.success ? null : `sweep id ${JSON.stringify(id)}: ${parsed.error.issues[0]!.message}`;
}

const ModelIdSchema = z
  .string()
  .regex(new RegExp(`^${NAME_PATTERN}{0,63}$`), 'must be 1-64 of a-z 0-9 . _ - starting with a letter or digit');
const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;
const KNOWN_FAMILIES = allFamilies()
  .map((f) => f.id)
  .join(', ');

/** What is wrong with a raw dataset entry's `family:` tag, or null when it names a family. */
function familyProblem(d: Record<string, unknown>): string | null {
  if (d.family === undefined) {
    const hint = likelyFamily(d);
    return `is required: the dataset's task family, one of ${KNOWN_FAMILIES}${hint ? ` (this entry looks like family: ${hint})` : ''}`;
  }
  if (typeof d.family !== 'string' || !findFamily(d.family)) return `must be one of ${KNOWN_FAMILIES}, got ${JSON.stringify(d.family)}`;
  return null;
}

/**
 * A raw dataset entry as its family's schema reads it, with the family; null when it is not an
 * object, names no family or does not parse (the entry's own checks say so).
 */
function parsedEntry(d: unknown) {
  if (!d || typeof d !== 'object' || Array.isArray(d) || familyProblem(d as Record<string, unknown>)) return null;
  const family = familyOf(d as DatasetEntry);
  const entry = family.entrySchema.safeParse(d);
  return entry.success ? { family, entry: entry.data } : null;
}

/** The datasets whose parsed entry `holds` is true of, as messages name them: `datasets[i] (name)`. */
function datasetsWhere(datasets: unknown[], holds: (parsed: NonNullable<ReturnType<typeof parsedEntry>>) => boolean): string[] {
  return datasets.flatMap((d, di) => {
    const parsed = parsedEntry(d);
    if (!parsed || !holds(parsed)) return [];
    const name = (d as Record<string, unknown>).name;
    return [`datasets[${di}]${typeof name === 'string' ? ` (${name})` : ''}`];
  });
}

/**
 * The family an entry without `family:` most likely means, from what it says: the keys only some
 * families have (`language`: multipl-e; `pbe_world`: pbe-world; `split`: mbpp, ...), then the
 * dataset's file name (`mbpp.jsonl`, `HumanEval.jsonl.gz`); none when nothing tells.
 */
function likelyFamily(d: Record<string, unknown>): string | null {
  if (d.library && typeof d.library === 'object' && 'private_library' in d.library) return 'renamed-library';
  const families = allFamilies();
  const keys = Object.keys(d).filter((k) => k !== 'name' && k !== 'family');
  const sharedByAll = (key: string) => families.every((f) => f.entryKeys.includes(key));
  const telling = keys.filter((k) => !sharedByAll(k));
  const file = typeof d.path === 'string' ? d.path.split('/').at(-1)!.toLowerCase() : '';
  const named = (among: readonly AnyFamily[]) => among.filter((f) => file.includes(f.id.replace('-', '')) || file.includes(f.id));
  if (telling.length > 0) {
    const fits = families.filter((f) => telling.every((k) => f.entryKeys.includes(k)));
    if (fits.length === 1) return fits[0]!.id;
    // Several families take these keys (multipl-e's and humanevalpack's `language`): the file name
    // may tell them apart; else all of them are named, rather than a family the keys rule out.
    if (fits.length > 1) {
      const byName = named(fits);
      if (byName.length === 1) return byName[0]!.id;
      if (fits.length <= 3) return fits.map((f) => f.id).join(' or ');
    }
  }
  const byName = named(families);
  return byName.length === 1 ? byName[0]!.id : null;
}

/** An entry without `family:`: its keys that no family knows, e.g. `famly` (then `family` is what is missing). */
function unknownEntryKeys(d: Record<string, unknown>): Array<{ key: string; message: string }> {
  const known = [...new Set(allFamilies().flatMap((f) => [...f.entryKeys]))];
  return Object.keys(d)
    .filter((key) => !known.includes(key))
    .map((key) => ({ key, message: unknownKeyMessage(key, known) }));
}

export const PROMPT_TEMPLATE_KEYS = ['system', 'instruction', 'prefix', 'instruction_tokens'] as const;

const PromptTemplateSchema = z
  .strictObject({
    // '' is allowed: it sends no system message (for models whose chat template has no system role).
    system: z.string().optional(),
    instruction: z.string().min(1, 'must not be empty (leave instruction out for the default)').optional(),
    prefix: z.string().min(1, 'must not be empty (leave prefix out for none)').optional(),
    instruction_tokens: z
      .tuple([z.string(), z.string(), z.string()], { error: 'must be a list of 3 strings: [user, end, assistant]' })
      .optional(),
  })
  .refine((t) => PROMPT_TEMPLATE_KEYS.some((k) => t[k] !== undefined), {
    message: `give at least one of ${PROMPT_TEMPLATE_KEYS.join(', ')} (or leave prompt out for the default prompts)`,
  });

const PROMPT_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/**
 * An entry of `prompts:`: a name and a template's fields, or the name alone for the named default
 * prompts. Its template is checked against each model's api (crossFieldChecks).
 */
const NamedPromptTemplateSchema = z
  .strictObject({
    name: z.string().regex(PROMPT_NAME, 'must be 1-32 of a-z 0-9 _ - starting with a letter or digit (no dots: it is part of cell ids)'),
    system: z.string().optional(),
    instruction: z.string().min(1, 'must not be empty (leave instruction out for the default)').optional(),
    prefix: z.string().min(1, 'must not be empty (leave prefix out for none)').optional(),
    instruction_tokens: z
      .tuple([z.string(), z.string(), z.string()], { error: 'must be a list of 3 strings: [user, end, assistant]' })
      .optional(),
  })
  .transform(({ name, ...fields }): NamedPromptTemplate => {
    const template = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as PromptTemplate;
    return Object.keys(template).length === 0 ? { name } : { name, template };
  });

const ModelSchema = z
  .strictObject({
    id: ModelIdSchema,
    base_url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
    model: z.string().min(1, 'must not be empty'),
    api: z.enum(['chat', 'completions']).default('chat'),
    api_key_env: z
      .string()
      .regex(ENV_NAME, 'must be the NAME of an environment variable (A-Z 0-9 _, e.g. OPENAI_API_KEY), never the key itself')
      .optional(),
    max_tokens: z.int().min(1).max(1_000_000).default(512),
    stop: z.array(z.string().min(1, 'stop words must not be empty')).optional(),
    max_stop_sequences: z.int().min(0).max(1000).optional(),
    concurrency: z.int().min(1).max(10_000).default(4),
    requests_per_second: z.number().positive().optional(),
    request_timeout_s: z.number().positive().max(86_400).default(120),
    send_seed: z.boolean().default(true),
    samples_per_request: z.int().min(1).max(128).optional(),
    prompt: PromptTemplateSchema.optional(),
    price: PriceSchema.optional(),
    budget: BudgetSchema.optional(),
    fim: FimTokensSchema.optional(),
    sanitize: z.enum(SANITIZERS).optional(),
    training_cutoff: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a day YYYY-MM-DD (the last day of the training data)')
      .optional(),
    batch: BatchModeConfigSchema.optional(),
  })
  .transform(({ samples_per_request, max_stop_sequences, ...m }): SweepModelConfig => ({
    ...m,
    ...(samples_per_request !== undefined && samples_per_request > 1 ? { samples_per_request } : {}),
    ...(max_stop_sequences !== undefined && max_stop_sequences !== DEFAULT_MAX_STOP_SEQUENCES ? { max_stop_sequences } : {}),
    base_url: m.base_url.replace(/\/+$/, ''),
  }));

/**
 * A method name of the registry, read when a config is parsed (not when this module loads), so
 * kinds registered later (registerMethodKind) are valid too.
 */
const MethodNameSchema = z.custom<MethodName>().check((ctx) => {
  if (typeof ctx.value !== 'string' || !findMethod(ctx.value))
    ctx.issues.push({ code: 'invalid_value', values: methodNames(), input: ctx.value });
});

const TOP_LEVEL_KEYS = [
  'id',
  'method_options',
  'datasets',
  'models',
  'methods',
  'temperatures',
  'prompts',
  'top_p',
  'n_samples',
  'k',
  'tasks',
  'limit_start',
  'limit',
  'timeout_s',
  'seed',
  'budget',
  'shard_samples',
  'stop_cell_on_errors',
  'max_parallel_cells',
  'heartbeat_timeout_s',
] as const;

export const SweepConfigSchema = z
  .strictObject({
    id: SweepIdSchema.optional(),
    method_options: z.preprocess((v) => (v === null || v === undefined ? {} : v), MethodOptionsSchema),
    datasets: z.array(DatasetEntrySchema).min(1, 'needs at least one dataset'),
    models: z.array(ModelSchema).min(1, 'needs at least one model'),
    methods: z.array(MethodNameSchema).min(1, 'needs at least one method'),
    temperatures: z.array(z.number().min(0).max(2)).min(1, 'needs at least one temperature'),
    prompts: z.array(NamedPromptTemplateSchema).min(1, 'needs at least one prompt template (or leave prompts out)').optional(),
    top_p: z.number().gt(0).max(1).default(0.95),
    n_samples: z.int().min(1).max(1_000_000),
    k: z.array(z.int().min(1)).min(1, 'needs at least one k'),
    // Integer ids (MBPP's) are kept as text, as results show them.
    tasks: z
      .array(z.union([z.string().min(1, 'task ids must not be empty'), z.int().transform(String)]))
      .min(1, 'needs at least one task id (or leave tasks out for all)')
      .optional(),
    limit_start: z.int().min(0).optional(),
    limit: z.int().min(1).optional(),
    timeout_s: z.number().min(0.1).max(600).default(3),
    seed: z.int().min(0).max(0xffff_ffff).default(0),
    budget: BudgetSchema.optional(),
    shard_samples: z.int().min(1).max(1_000_000).optional(),
    stop_cell_on_errors: CellErrorStopConfigSchema.optional(),
    max_parallel_cells: z.int().min(1).max(64).optional(),
    // The LLM activities heartbeat every 5 s: below 10 s a busy worker could be taken for a dead one.
    heartbeat_timeout_s: z.int().min(10).max(3600).optional(),
  })
  // Zod skips this after a type error anywhere inside (even with `when`, for errors nested in
  // lists), so parseSweepConfig also runs these checks on the raw input when parsing fails: every
  // problem is listed at once. Each check looks only at fields that are themselves well-formed.
  .superRefine((value, ctx) => crossFieldChecks(value, (path, message) => ctx.addIssue({ code: 'custom', path, message })))
  .transform((c): SweepConfig => ({
    ...c,
    datasets: expandPerModel(c.datasets, c.models),
    temperatures: c.temperatures.map((t) => (t === 0 ? 0 : t)),
  }));

/** A sweep's models as a family's perModel reads them. */
function modelScopes(models: unknown[]): ModelScope[] {
  return models.flatMap((x) => {
    const model = x && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : null;
    if (!model || typeof model.id !== 'string') return [];
    return [{ id: model.id, ...(typeof model.training_cutoff === 'string' ? { training_cutoff: model.training_cutoff } : {}) }];
  });
}

/**
 * The datasets as the sweep runs them: an entry scoped per model (a family's perModel, LiveCodeBench's
 * `release_after: model_cutoff`) becomes the entries it stands for, each met only by its models
 * (expandGrid reads modelsOf); the others as they are. Expanded entries expand to themselves, so a
 * parsed config parses to itself.
 */
function expandPerModel(datasets: DatasetEntry[], models: SweepModelConfig[]): DatasetEntry[] {
  return datasets.flatMap((d) => familyOf(d).perModel?.expand(d, modelScopes(models)) ?? [d]);
}

/**
 * Entries scoped per model against the sweep's models (each family's perModel issues, at the
 * entry's field or the model's), the datasets they expand to against the other datasets' names,
 * and the models an entry names (modelsOf) against the sweep's.
 */
function perModelChecks(datasets: unknown[], models: unknown[], add: AddIssue): void {
  const scopes = modelScopes(models);
  const entries = datasets.map(parsedEntry);
  const names = new Map<string, number>();
  datasets.forEach((d, di) => {
    const name = d && typeof d === 'object' ? (d as Record<string, unknown>).name : undefined;
    if (typeof name === 'string') names.set(name, di);
  });
  entries.forEach((e, di) => {
    if (!e) return;
    const ids = e.family.modelsOf?.(e.entry);
    ids?.forEach((id, j) => {
      if (!scopes.some((m) => m.id === id))
        add(
          ['datasets', di, 'models', j],
          `no model of the sweep has id ${JSON.stringify(id)} (models: ${scopes.map((m) => m.id).join(', ')})`,
        );
    });
    if (!e.family.perModel) return;
    const issues = e.family.perModel.issues(e.entry, scopes);
    for (const issue of issues)
      add('model' in issue.at ? ['models', issue.at.model, issue.at.field] : ['datasets', di, issue.at.field], issue.message);
    if (issues.length > 0) return;
    for (const expanded of e.family.perModel.expand(e.entry, scopes) ?? []) {
      const other = names.get(expanded.name);
      if (other !== undefined && other !== di)
        add(['datasets', di, 'name'], `its window per model makes dataset ${expanded.name}, the name of datasets[${other}]: rename one`);
    }
  });
}

type AddIssue = (path: (string | number)[], message: string) => void;

function crossFieldChecks(value: unknown, add: AddIssue): void {
  if (typeof value !== 'object' || value === null) return;
  const c = value as Record<string, unknown>;
  const list = (key: string): unknown[] => (Array.isArray(c[key]) ? (c[key] as unknown[]) : []);
  list('datasets').forEach((d, i) => {
    const problem = d && typeof d === 'object' && !Array.isArray(d) ? familyProblem(d as Record<string, unknown>) : null;
    if (problem) {
      add(['datasets', i, 'family'], problem);
      if ((d as Record<string, unknown>).family === undefined) {
        for (const { key, message } of unknownEntryKeys(d as Record<string, unknown>)) add(['datasets', i, key], message);
      }
    }
  });

  const names = (key: string, field: string) =>
    list(key).map((item) => (item && typeof item === 'object' ? (item as Record<string, unknown>)[field] : undefined));

  const repeated = [
    duplicates(add, 'datasets', names('datasets', 'name'), 'name'),
    duplicates(add, 'models', names('models', 'id'), 'id'),
    duplicates(add, 'methods', list('methods')),
    duplicates(add, 'temperatures', list('temperatures')),
    duplicates(add, 'prompts', names('prompts', 'name'), 'name'),
  ].some(Boolean);
  duplicates(add, 'k', list('k'));
  duplicates(
    add,
    'tasks',
    list('tasks').map((v) => (typeof v === 'number' ? String(v) : v)),
  );

  // Methods that need API docs or a chat model, against the datasets and models given.
  list('methods').forEach((m, mi) => {
    if (typeof m !== 'string') return;
    const spec: MethodSpec | undefined = findMethod(m);
    if (!spec) return;
    if (spec.needsLibrary) {
      list('datasets').forEach((d, di) => {
        if (!d || typeof d !== 'object' || familyProblem(d as Record<string, unknown>)) return;
        const entry = d as DatasetEntry;
        if (!familyOf(entry).bringsLibrary(entry)) {
          add(
            ['datasets', di, 'library'],
            `method ${m} (methods[${mi}]) needs the dataset's API library: give library: {api_docs, name, summary}`,
          );
        }
      });
    }
    if (spec.needsChat) {
      list('models').forEach((x, xi) => {
        if (x && typeof x === 'object' && (x as Record<string, unknown>).api === 'completions') {
          add(['models', xi, 'api'], `method ${m} (methods[${mi}]) talks to the model in several steps and needs api: chat`);
        }
      });
    }
  });

  promptTemplateChecks(list('models'), list('prompts'), add);
  budgetConfigChecks(c.budget, list('models'), add);
  fillInTheMiddleChecks(list('datasets'), list('models'), list('methods'), add);
  twoStepChecks(list('datasets'), list('methods'), add);
  sanitizeChecks(list('models'), add);
  trainingCutoffChecks(list('datasets'), list('models'), add);
  perModelChecks(list('datasets'), list('models'), add);
  batchModeChecks(list('models'), list('methods'), add);

  const n = c.n_samples;
  if (typeof n === 'number' && Number.isInteger(n) && n >= 1) {
    list('k').forEach((k, i) => {
      if (typeof k === 'number' && Number.isInteger(k) && k > n) {
        add(['k', i], `k = ${k} exceeds n_samples (${n}): pass@k needs at least k samples per task`);
      }
    });
  }

  // Distinct cells must have distinct ids; names with dots could otherwise spell the same id.
  // (Repeated names are already reported above and would only repeat the message here.)
  if (repeated) return;
  const datasetNames = names('datasets', 'name');
  const modelIds = names('models', 'id');
  const methods = list('methods');
  const temperatures = list('temperatures');
  const seen = new Map<string, string>();
  const reported = new Set<string>();
  datasetNames.forEach((d, di) => {
    modelIds.forEach((m, mi) => {
      methods.forEach((method) => {
        temperatures.forEach((t) => {
          if (typeof d !== 'string' || typeof m !== 'string' || typeof method !== 'string') return;
          if (typeof t !== 'number' || !Number.isFinite(t)) return;
          const id = cellId(d, m, method, t, null);
          const where = `datasets[${di}].name=${JSON.stringify(d)} with models[${mi}].id=${JSON.stringify(m)}`;
          const earlier = seen.get(id);
          if (earlier === undefined) {
            seen.set(id, where);
          } else if (earlier !== where && !reported.has(id)) {
            reported.add(id);
            add(
              ['models', mi, 'id'],
              `cell id ${JSON.stringify(id)} is spelled the same by ${earlier} and by ${where}; rename one (dots join the parts of cell ids)`,
            );
          }
        });
      });
    });
  });
}

/** A sanitizer reads chat answers; a completion is cut at stop words instead. */
function sanitizeChecks(models: unknown[], add: AddIssue): void {
  models.forEach((x, xi) => {
    const model = x && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : null;
    if (model && model.sanitize !== undefined && (model.api ?? 'chat') !== 'chat')
      add(
        ['models', xi, 'sanitize'],
        'a sanitizer reads chat answers (a completion is cut at stop words): give api: chat, or leave sanitize out',
      );
  });
}

/** Datasets asked in two steps (a family's asksInTwoSteps: HumanEvalExplain): only direct asks both steps of a sample. */
function twoStepChecks(datasets: unknown[], methods: unknown[], add: AddIssue): void {
  const twoStep = datasetsWhere(datasets, ({ family, entry }) => family.asksInTwoSteps?.(entry) === true);
  if (twoStep.length === 0) return;
  methods.forEach((m, mi) => {
    if (typeof m === 'string' && findMethod(m) && findMethod(m)!.kind !== 'direct')
      add(
        ['methods', mi],
        `${twoStep.join(', ')} ${twoStep.length > 1 ? 'are' : 'is'} asked in two steps, which only method direct asks; use direct, or list the dataset in another sweep`,
      );
  });
}

/**
 * Datasets whose tasks are gaps to fill (a family's fillsInTheMiddle, e.g. DS-1000's mode:
 * insertion) against the models and methods: every model of the sweep meets every dataset, so each
 * must be a completion model with FIM tokens, and the method must ask with the task's own prompt
 * (direct).
 */
function fillInTheMiddleChecks(datasets: unknown[], models: unknown[], methods: unknown[], add: AddIssue): void {
  models.forEach((x, xi) => {
    const model = x && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : null;
    if (model && model.fim !== undefined && (model.api ?? 'chat') !== 'completions')
      add(['models', xi, 'fim'], 'FIM tokens go into completion prompts: give api: completions, or leave fim out');
  });
  const fimDatasets = datasetsWhere(datasets, ({ family, entry }) => family.fillsInTheMiddle?.(entry) === true);
  if (fimDatasets.length === 0) return;
  const which = `${fimDatasets.join(', ')} ${fimDatasets.length > 1 ? 'fill' : 'fills'} in the middle`;
  models.forEach((x, xi) => {
    if (!x || typeof x !== 'object' || Array.isArray(x)) return;
    const model = x as Record<string, unknown>;
    if ((model.api ?? 'chat') !== 'completions') {
      add(['models', xi, 'api'], `${which}: a chat model cannot take it; ${FIM_FIELD_HINT}, or list this model in another sweep`);
    } else if (model.fim === undefined) {
      add(['models', xi, 'fim'], `${which}: the model needs its FIM tokens; ${FIM_FIELD_HINT}`);
    }
  });
  methods.forEach((m, mi) => {
    if (typeof m === 'string' && findMethod(m) && findMethod(m)!.kind !== 'direct') {
      add(['methods', mi], `${which}: method ${m} has no fill-in-the-middle prompts; use direct, or list the dataset in another sweep`);
    }
  });
}

/**
 * Models' training cut-offs against datasets whose problems carry release dates (a family's
 * releaseWindow, LiveCodeBench's release_after): every model meets every dataset, so each such
 * dataset must keep only problems released after every model's cut-off, or its figures would
 * count problems the model may have seen.
 */
function trainingCutoffChecks(datasets: unknown[], models: unknown[], add: AddIssue): void {
  const cutoffs = models.flatMap((x, xi) => {
    const model = x && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : null;
    const day = model?.training_cutoff;
    return typeof day === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(day) ? [{ xi, id: String(model!.id), day }] : [];
  });
  if (cutoffs.length === 0) return;
  datasets.forEach((d, di) => {
    const parsed = parsedEntry(d);
    if (!parsed) return;
    const { family, entry } = parsed;
    if (!family.releaseWindow) return;
    // A window per model starts after each model's cut-off by construction (perModelChecks checks it).
    if (family.perModel?.expand(entry, modelScopes(models)) !== undefined) return;
    const window = family.releaseWindow(entry);
    const meets = family.modelsOf?.(entry);
    for (const c of cutoffs) {
      if (meets && !meets.includes(c.id)) continue;
      if (window.from !== null && window.from > c.day) continue;
      const next = new Date(Date.parse(`${c.day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
      add(
        ['datasets', di, window.field],
        `model ${c.id} (models[${c.xi}]) has training_cutoff ${c.day}: problems released up to it may be in its training data; ` +
          `set ${window.field}: '${next}' or later, or list the model in another sweep`,
      );
    }
  });
}

/**
 * Models in batch mode against the methods (batch mode answers methods of one round of requests
 * only so far) and against their own price (a batch price is a discount on a listed price).
 */
function batchModeChecks(models: unknown[], methods: unknown[], add: AddIssue): void {
  models.forEach((x, xi) => {
    const model = x && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : null;
    const batch = model?.batch;
    if (!batch || typeof batch !== 'object' || Array.isArray(batch)) return;
    const answered = [...BATCH_METHOD_KINDS, ...BATCH_ROUND_KINDS];
    methods.forEach((m, mi) => {
      const kind = typeof m === 'string' ? findMethod(m)?.kind : undefined;
      if (kind !== undefined && !answered.includes(kind))
        add(
          ['models', xi, 'batch'],
          `batch mode answers the method kinds ${answered.join(', ')}; methods[${mi}] (${String(m)}) is of kind ${kind}, whose requests it does not know how to gather: leave batch out, or list ${String(m)} in another sweep`,
        );
      else if (kind !== undefined && BATCH_ROUND_KINDS.includes(kind) && (batch as Record<string, unknown>).gather === 'model')
        add(
          ['models', xi, 'batch', 'gather'],
          `gather: model gathers one round of requests per cell; methods[${mi}] (${String(m)}) is ${kind}, whose cells send a batch per round: leave gather out (cell), or list ${String(m)} in another sweep`,
        );
    });
    const batchPrice = (batch as Record<string, unknown>).price;
    const price = model.price;
    if (batchPrice && typeof batchPrice === 'object' && !price)
      add(['models', xi, 'batch', 'price'], `needs models[${xi}].price too: the batch price is what the listed price costs in batches`);
    const currency = (p: unknown) => (p && typeof p === 'object' ? (p as Record<string, unknown>).currency : undefined);
    if (price && batchPrice && currency(price) !== currency(batchPrice))
      add(
        ['models', xi, 'batch', 'price', 'currency'],
        `must be the model's price's currency (${String(currency(price))}), got ${String(currency(batchPrice))}`,
      );
  });
}

/**
 * Prompt templates (a model's `prompt:`, or the `prompts:` axis) against the models' apis: chat
 * models take a system message and an instruction, completion models a prefix and bigcode's
 * instruct layout. Every method takes a template (each method's promptTemplateScope says which of
 * its requests it shapes); the multi-step ones need api: chat anyway (checked with needsChat). A
 * sweep gives templates one way: per model or as the axis.
 */
function promptTemplateChecks(models: unknown[], prompts: unknown[], add: AddIssue): void {
  const record = (x: unknown): Record<string, unknown> | null =>
    x && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : null;
  const hasTemplate = (t: Record<string, unknown>) => PROMPT_TEMPLATE_KEYS.some((k) => t[k] !== undefined);

  models.forEach((x, xi) => {
    const model = record(x);
    const t = model && record(model.prompt);
    if (!model || !t) return;
    templateFieldChecks(t, model.api ?? 'chat', (field) => ['models', xi, 'prompt', field], '', add);
    if (prompts.length > 0)
      add(['models', xi, 'prompt'], 'give prompt templates either per model (models[i].prompt) or as the prompts: axis, not both');
  });

  prompts.forEach((p, pi) => {
    // Raw entries hold the fields themselves; resolved ones (checks run after the transforms too) under template.
    const entry = record(p);
    const t = entry && (record(entry.template) ?? entry);
    if (!t || !hasTemplate(t)) return; // a name alone: the default prompts
    models.forEach((x, xi) => {
      const model = record(x);
      if (!model) return;
      const label = ` (models[${xi}]${typeof model.id === 'string' ? `, ${model.id},` : ''} is api: ${String(model.api ?? 'chat')}; list the template's cells' models in another sweep, or drop the field)`;
      templateFieldChecks(t, model.api ?? 'chat', (field) => ['prompts', pi, field], label, add);
    });
  });
}

/** A template's fields against one model's api and each other. */
function templateFieldChecks(
  t: Record<string, unknown>,
  api: unknown,
  at: (field: string) => (string | number)[],
  context: string,
  add: AddIssue,
): void {
  if (api === 'chat') {
    if (t.instruction_tokens !== undefined)
      add(at('instruction_tokens'), `needs api: completions (a chat model's turns are marked by its server's chat template)${context}`);
    if (t.prefix !== undefined)
      add(at('prefix'), `needs api: completions (for a chat model, put the text in system or instruction)${context}`);
  } else if (api === 'completions') {
    if (t.system !== undefined) add(at('system'), `needs api: chat (a completion model has no system message; use prefix)${context}`);
  }
  if (t.instruction_tokens !== undefined && t.instruction === undefined) {
    add(at('instruction_tokens'), "needs instruction: the instruct prompt is user + instruction + end + assistant + the task's prompt");
  }
}

/** Reports each value equal to an earlier one; true when there was any. */
function duplicates(add: AddIssue, key: string, values: unknown[], field?: string): boolean {
  const first = new Map<unknown, number>();
  let found = false;
  values.forEach((v, i) => {
    if (v === undefined || v === null || typeof v === 'object') return;
    const norm = typeof v === 'number' && v === 0 ? 0 : v;
    const at = first.get(norm);
    if (at === undefined) {
      first.set(norm, i);
      return;
    }
    const name = field ? `${key}[${at}].${field}` : `${key}[${at}]`;
    add(field ? [key, i, field] : [key, i], `duplicate of ${name} (${JSON.stringify(v)})`);
    found = true;
  });
  return found;
}

// ---------------------------------------------------------------------------------------------
// Errors

export interface SweepConfigIssue {
  /** Field path as in the file, e.g. `models[1].base_url`; '' for the file/document as a whole. */
  path: string;
  message: string;
  /** For syntax errors: 1-based position in the file. */
  line?: number;
  column?: number;
}

export class SweepConfigError extends Error {
  readonly issues: SweepConfigIssue[];

  constructor(source: string, issues: SweepConfigIssue[]) {
    const lines = issues.map((i) => `  - ${formatIssue(i)}`);
    super(`invalid sweep config ${source}:\n${lines.join('\n')}`);
    this.name = 'SweepConfigError';
    this.issues = issues;
  }
}

export function formatIssue(issue: SweepConfigIssue): string {
  const where = issue.line !== undefined ? `line ${issue.line}, column ${issue.column ?? 1}` : issue.path;
  return where ? `${where}: ${issue.message}` : issue.message;
}

/** `['models', 1, 'base_url']` → `models[1].base_url`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

const MODEL_KEYS = [
  'id',
  'base_url',
  'model',
  'api',
  'api_key_env',
  'max_tokens',
  'stop',
  'max_stop_sequences',
  'concurrency',
  'requests_per_second',
  'request_timeout_s',
  'send_seed',
  'samples_per_request',
  'prompt',
  'price',
  'budget',
  'sanitize',
  'training_cutoff',
  'fim',
  'batch',
];

function knownKeysAt(path: readonly PropertyKey[], input: unknown): readonly string[] {
  if (path.length === 0) return TOP_LEVEL_KEYS;
  if (path.length === 2 && path[0] === 'datasets') {
    const family = (valueAt(input, path) as { family?: unknown } | undefined)?.family;
    return (typeof family === 'string' && findFamily(family)?.entryKeys) || ['name', 'family'];
  }
  if (path.length === 2 && path[0] === 'models') return MODEL_KEYS;
  if (path.length === 3 && path[0] === 'models' && path[2] === 'prompt') return PROMPT_TEMPLATE_KEYS;
  if (path.length === 3 && path[0] === 'models' && path[2] === 'price') return PRICE_KEYS;
  if (path.length === 3 && path[0] === 'models' && path[2] === 'budget') return BUDGET_KEYS;
  if (path.length === 3 && path[0] === 'models' && path[2] === 'batch') return BATCH_KEYS;
  if (path.length === 4 && path[0] === 'models' && path[2] === 'batch' && path[3] === 'price') return PRICE_KEYS;
  if (path.length === 1 && path[0] === 'budget') return BUDGET_KEYS;
  if (path.length === 1 && path[0] === 'stop_cell_on_errors') return CELL_ERROR_KEYS;
  if (path.length === 2 && path[0] === 'prompts') return ['name', ...PROMPT_TEMPLATE_KEYS];
  if (path.length === 1 && path[0] === 'method_options') return Object.keys(MethodOptionsSchema.shape);
  return [];
}

function issuesOf(error: z.ZodError, input: unknown): SweepConfigIssue[] {
  const out: SweepConfigIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({ path: formatPath([...issue.path, key]), message: unknownKeyMessage(key, knownKeysAt(issue.path, input)) });
      }
      continue;
    }
    // A dataset whose family is missing or unknown: familyProblem says so, naming the families.
    if (issue.code === 'invalid_union' && issue.path[0] === 'datasets' && issue.path.length <= 3) {
      const entry = valueAt(input, issue.path.slice(0, 2));
      if (entry && typeof entry === 'object' && familyProblem(entry as Record<string, unknown>)) continue;
    }
    out.push({ path: formatPath(issue.path), message: withFamily(issueMessage(issue, valueAt(input, issue.path)), issue.path, input) });
  }
  return out;
}

/** A dataset field's "is required" says which family requires it (`language` is MultiPL-E's). */
function withFamily(message: string, path: readonly PropertyKey[], input: unknown): string {
  if (path[0] !== 'datasets' || path.length !== 3 || !message.startsWith('is required')) return message;
  const family = (valueAt(input, path.slice(0, 2)) as { family?: unknown } | undefined)?.family;
  return typeof family === 'string' ? message.replace('is required', `is required for family ${family}`) : message;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = input;
  for (const part of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[part];
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// Entry points

/** Validates an already-parsed value (e.g. from JSON); throws SweepConfigError listing every issue. */
export function parseSweepConfig(value: unknown, source = '(sweep config)'): SweepConfig {
  if (value === null || value === undefined) {
    throw new SweepConfigError(source, [
      { path: '', message: 'the config is empty; expected a mapping with datasets, models, methods, ...' },
    ]);
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new SweepConfigError(source, [{ path: '', message: `the config must be a mapping, got ${typeName(value)}` }]);
  }
  const parsed = SweepConfigSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = issuesOf(parsed.error, value);
  const seen = new Set(issues.map((i) => `${i.path}\n${i.message}`));
  crossFieldChecks(value, (path, message) => {
    const issue = { path: formatPath(path), message };
    if (!seen.has(`${issue.path}\n${message}`)) issues.push(issue);
  });
  throw new SweepConfigError(source, issues);
}

/** Parses a config file's text (JSON for `.json`, YAML for `.yaml`/`.yml`) and validates it. */
export function loadSweepConfig(text: string, fileName: string): SweepConfig {
  const format = configFormatOf(fileName);
  if (!format) {
    throw new SweepConfigError(fileName, [{ path: '', message: 'unsupported file extension: use .yaml, .yml or .json' }]);
  }
  const parsed = parseConfigText(text, format);
  if (!parsed.ok) {
    throw new SweepConfigError(
      fileName,
      parsed.issues.map((i) => ({
        path: '',
        message: `${format === 'json' ? 'JSON' : 'YAML'} syntax: ${i.message}`,
        line: i.line,
        column: i.column,
      })),
    );
  }
  return parseSweepConfig(parsed.value, fileName);
}

/**
 * JSON of a resolved config with keys sorted at every level: byte-equal for equal configs however
 * the file was written (key order, YAML vs JSON, 0.80 vs 0.8, defaults spelled out or not), so a
 * resumed sweep can check its config did not change. A CLI that overrides `id` should set it on the
 * config before calling this.
 */
export function canonicalSweepJson(config: SweepConfig): string {
  return canonicalJson(experimentOf(config));
}

/**
 * The config without what only prices or caps the sweep (models' `price`, the `budget`s, when a
 * cell stops on errors) or lays out its work (`shard_samples`, `max_parallel_cells`,
 * `heartbeat_timeout_s`): none changes a request or a result, so setting or updating one
 * neither renames a sweep (its default id is the hash) nor makes a running one "another config"
 * (raising a budget resumes the sweep).
 */
function experimentOf(config: SweepConfig): SweepConfig {
  const spendOnly =
    config.budget !== undefined || config.models.some((m) => m.price !== undefined || m.budget !== undefined || m.batch !== undefined);
  if (
    !spendOnly &&
    config.shard_samples === undefined &&
    config.stop_cell_on_errors === undefined &&
    config.max_parallel_cells === undefined &&
    config.heartbeat_timeout_s === undefined
  )
    return config;
  const {
    budget: _budget,
    shard_samples: _layout,
    stop_cell_on_errors: _stop,
    max_parallel_cells: _cells,
    heartbeat_timeout_s: _heartbeat,
    ...rest
  } = config;
  // Batch mode asks the same requests another way: the same answers, the same sweep.
  return { ...rest, models: config.models.map(({ price: _price, budget: _modelBudget, batch: _batch, ...m }) => m) };
}

/** Hash of canonicalSweepJson; the hasher is passed in (node:crypto is unavailable in workflows). */
export function sweepConfigHash(config: SweepConfig, sha256Hex: (s: string) => string): string {
  return sha256Hex(canonicalSweepJson(config));
}

/** The top-level fields on which two resolved configs differ, for a refusal a person can act on. */
export function describeSweepConfigDifferences(a: SweepConfig, b: SweepConfig): string[] {
  const out: string[] = [];
  const [ea, eb] = [experimentOf(a), experimentOf(b)];
  for (const key of TOP_LEVEL_KEYS) {
    const x = canonicalJson((ea as unknown as Record<string, unknown>)[key]);
    const y = canonicalJson((eb as unknown as Record<string, unknown>)[key]);
    if (x !== y) out.push(`${key}: ${x ?? '(unset)'} → ${y ?? '(unset)'}`);
  }
  return out;
}
