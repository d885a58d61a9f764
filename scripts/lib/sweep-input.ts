/**
 * From a validated sweep config and the CLI's flags to the sweep workflow's input: local dataset and
 * generations files are uploaded to S3 (workers may run on other machines), everything else is
 * plain data. Also counts tasks per dataset for `--dry-run`.
 */
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import type { ExploraConfig } from '../../domain/config/env.js';
import { familyOf, languageOf } from '../../domain/families/registry.js';
import { sanitizerLanguageProblems } from '../../domain/llm/sanitizer.js';
import { requirementsProblem } from './requirements.js';
import { toolsDir } from '../../infra/sandbox/python.js';
import { missingToolchains } from '../../infra/sandbox/toolchainCheck.js';
import { installToolchains } from './toolchain-install.js';
import type { LoadedDataset } from '../../domain/families/types.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { generateLines } from '../../domain/pbe/generate.js';
import { selectionOf, selectionProblem, selectTasks } from '../../domain/sweep/selection.js';
import type { LlmEndpoint } from '../../domain/llm/request.js';
import { stopSentTo, stopWordsFor, sweepConfigHash, type SweepConfig, type SweepDatasetConfig } from '../../domain/sweep/config.js';
import { sweepConfigKey, sweepInputKey, sweepRunConflict, type S3Ref, type SweepRun } from '../../domain/sweep/keys.js';
import { expandGrid, loadedCellId } from '../../domain/sweep/plan.js';
import { pricesOf, sweepBudgetsOf } from '../../domain/sweep/budget.js';
import { cellErrorStopOf } from '../../domain/sweep/cellErrors.js';
import { batchEndpointOf } from '../../domain/llm/batchMode.js';
import { datasetText } from '../../infra/datasetText.js';
import { getBytes, putObject, putObjectOnce, sha256Hex, type Bucket } from '../../infra/s3.js';
import type { SweepCellInput, SweepDatasetInput, SweepInput, SweepMode } from '../../workflows/sweepTypes.js';
import { DEFAULT_SHARD_SAMPLES } from '../../domain/sweep/sharding.js';

export class SweepInputError extends Error {}

export function parseS3Uri(uri: string): { bucket: string; key: string } | null {
  const m = /^s3:\/\/([^/]+)\/(.+)$/.exec(uri);
  return m ? { bucket: m[1]!, key: m[2]! } : null;
}

/** Paths in a config are relative to the config file, like most tools' configs. */
export function resolveDatasetPath(configFile: string, p: string): string {
  return path.isAbsolute(p) ? p : path.resolve(path.dirname(configFile), p);
}

/** A file named in the config (local, relative to the config file, or s3://), gunzipped if need be, a Parquet file's rows as JSON Lines. */
async function readInputText(bucket: Bucket, configFile: string, p: string, field: string): Promise<string> {
  const s3 = parseS3Uri(p);
  if (s3) {
    let bytes;
    try {
      bytes = await getBytes({ s3: bucket.s3, name: s3.bucket }, s3.key);
    } catch (err) {
      throw new SweepInputError(`${field}: cannot read ${p}: ${describeS3Error(err)}`);
    }
    if (bytes === null) throw new SweepInputError(`${field}: ${p} does not exist`);
    return await decodeNamed(bytes, field, p);
  }
  const file = resolveDatasetPath(configFile, p);
  if (!existsSync(file)) throw new SweepInputError(`${field}: ${file} does not exist`);
  return await decodeNamed(readFileSync(file), field, file);
}

async function decodeNamed(bytes: Uint8Array, field: string, where: string): Promise<string> {
  try {
    return await datasetText(bytes, where);
  } catch (err) {
    throw new SweepInputError(`${field}: ${where} is not readable as text, gzip or Parquet: ${(err as Error).message}`);
  }
}

/** An S3 failure as a person can act on it: the endpoint down, a missing bucket, no access. */
function describeS3Error(err: unknown): string {
  const e = err as { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  if (e.code === 'ECONNREFUSED' || /ECONNREFUSED/.test(e.message ?? ''))
    return `the S3 endpoint refused the connection (${e.message}); is it up? (local stack: npm run stack:up)`;
  if (e.name === 'NoSuchBucket') return 'no such bucket';
  const status = e.$metadata?.httpStatusCode;
  if (status === 403 || e.name === 'AccessDenied') return 'access denied (check EXPLORA_S3_* credentials)';
  return `${e.name ?? 'error'}${status ? ` (HTTP ${status})` : ''}: ${e.message ?? String(err)}`;
}

/** A dataset entry's files, read: their text by role, and what errors call them. */
interface EntryFiles {
  texts: Record<string, string>;
  sources: Record<string, string>;
}

async function readEntryFiles(bucket: Bucket, configFile: string, entry: SweepDatasetConfig): Promise<EntryFiles> {
  const files = familyOf(entry).files(entry);
  const texts: Record<string, string> = {};
  const sources: Record<string, string> = {};
  await Promise.all(
    Object.entries(files).map(async ([role, f]) => {
      texts[role] = await readInputText(bucket, configFile, f.path, `datasets[${entry.name}].${f.field}`);
      sources[role] = f.path;
    }),
  );
  return { texts, sources };
}

/**
 * A dataset as its family loads it (rows validated, library built), or null for a generated
 * family (PBE World: the sweep generates it). Errors name the config field, the file and its line.
 */
export async function loadDatasetEntry(bucket: Bucket, configFile: string, entry: SweepDatasetConfig): Promise<LoadedDataset | null> {
  const family = familyOf(entry);
  if (Object.keys(family.files(entry)).length === 0) return null;
  const { texts, sources } = await readEntryFiles(bucket, configFile, entry);
  try {
    return family.load({ entry: entry, texts, sources, tools: toolsDir() });
  } catch (err) {
    throw new SweepInputError(`datasets[${entry.name}] (family ${entry.family}): ${(err as Error).message}`);
  }
}

/**
 * The task ids of each dataset, in order, when the selection needs them (a `tasks:` list): loaded
 * datasets from their rows, generated ones by generating them here. Otherwise only their counts.
 */
async function datasetTasks(
  bucket: Bucket,
  configFile: string,
  config: SweepConfig,
): Promise<Map<string, { loaded: LoadedDataset | null; ids: string[] | null; count: number }>> {
  const out = new Map<string, { loaded: LoadedDataset | null; ids: string[] | null; count: number }>();
  for (const d of config.datasets) {
    const loaded = await loadDatasetEntry(bucket, configFile, d);
    if (loaded) {
      out.set(d.name, { loaded, ids: loaded.problems.map((p) => p.task_id), count: loaded.problems.length });
    } else if (d.family === 'pbe-world') {
      const ids = config.tasks
        ? [...generateLines(d.pbe_world, 0, d.pbe_world.count)].map((line) => (JSON.parse(line) as { task_id: string }).task_id)
        : null;
      out.set(d.name, { loaded: null, ids, count: d.pbe_world.count });
    } else {
      throw new Error(`dataset ${d.name}: family ${d.family} names no files and is not generated`);
    }
  }
  return out;
}

/**
 * Tasks per dataset after the selection's `tasks` and `limit_start` (the plan applies `limit`),
 * validating every row of file datasets and the selection on the way.
 */
async function selectedTasks(bucket: Bucket, configFile: string, config: SweepConfig) {
  const datasets = await datasetTasks(bucket, configFile, config);
  const selection = selectionOf(config);
  const problem = selectionProblem(
    selection,
    new Map([...datasets].map(([name, d]) => [name, d.ids ?? Array.from({ length: d.count }, (_, i) => `#${i}`)])),
  );
  if (problem) throw new SweepInputError(problem);
  const counts: Record<string, number> = {};
  for (const [name, d] of datasets) {
    counts[name] = d.ids
      ? selectTasks(d.ids, { ...selection, limit: undefined }, (id) => id).length
      : Math.max(0, d.count - (selection.start ?? 0));
  }
  return { datasets, counts };
}

/** Tasks per dataset (after `tasks` and `limit_start`, before `limit`), validating every row of file datasets. */
export async function countTasks(bucket: Bucket, configFile: string, config: SweepConfig): Promise<Record<string, number>> {
  return (await selectedTasks(bucket, configFile, config)).counts;
}

/**
 * For the dry run: tasks per dataset (as countTasks) and, for file datasets, the problems the sweep
 * will run (after `tasks`, `limit_start` and `limit`); null for a generated dataset (made when the
 * sweep runs).
 */
export async function plannedProblems(
  bucket: Bucket,
  configFile: string,
  config: SweepConfig,
): Promise<{ counts: Record<string, number>; problems: Record<string, SweepProblem[] | null> }> {
  const { datasets, counts } = await selectedTasks(bucket, configFile, config);
  const selection = selectionOf(config);
  const problems: Record<string, SweepProblem[] | null> = {};
  for (const [name, d] of datasets) problems[name] = d.loaded ? selectTasks(d.loaded.problems, selection, (p) => p.task_id) : null;
  return { counts, problems };
}

/**
 * The entry's files in S3, by role: an s3:// file as it is; a local one uploaded under the sweep's
 * inputs, content-addressed and sent once (a second run of the same file finds it there), so that
 * workers on other machines read it.
 */
async function uploadEntryFiles(
  bucket: Bucket,
  configFile: string,
  sweepId: string,
  entry: SweepDatasetConfig,
): Promise<Record<string, S3Ref>> {
  const refs: Record<string, S3Ref> = {};
  for (const [role, f] of Object.entries(familyOf(entry).files(entry))) {
    const s3 = parseS3Uri(f.path);
    if (s3) {
      refs[role] = { bucket: s3.bucket, key: s3.key };
      continue;
    }
    const bytes = readFileSync(resolveDatasetPath(configFile, f.path));
    const ending = /\.jsonl\.gz$|\.jsonl$|\.json$|\.parquet$/.exec(f.path)?.[0] ?? '';
    const key = sweepInputKey(sweepId, `${entry.name}-${role}-${sha256Hex(bytes).slice(0, 16)}${ending}`);
    await putObjectOnce(bucket, key, bytes);
    refs[role] = { key };
  }
  return refs;
}

/**
 * A bigcode generations file (a list per task of its samples' code) for a dataset of `tasks` tasks
 * (after limit): every task, each with at least n samples, or an error naming the file and why.
 */
export function loadGenerations(file: string, dataset: string, tasks: number, nSamples: number): string[][] {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new SweepInputError(`--load-generations ${file}: not JSON (${(err as Error).message.split('\n')[0]})`);
  }
  const parsed = generationLists(value, `--load-generations ${file}`);
  if (parsed.length < tasks)
    throw new SweepInputError(`--load-generations ${file}: ${parsed.length} tasks, but dataset ${dataset} has ${tasks}`);
  const short = parsed.slice(0, tasks).findIndex((g) => g.length < nSamples);
  if (short >= 0)
    throw new SweepInputError(
      `--load-generations ${file}: task ${short} has ${parsed[short]!.length} generations, fewer than n_samples=${nSamples}`,
    );
  return parsed;
}

/** bigcode's generations: a list per task of its generations (strings); what is not, named by its place. */
function generationLists(value: unknown, source: string): string[][] {
  const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);
  if (!Array.isArray(value))
    throw new SweepInputError(`${source}: is ${kind(value)}, not bigcode's list (one list of generations per task)`);
  return value.map((list, t) => {
    if (!Array.isArray(list)) throw new SweepInputError(`${source}: [${t}] is ${kind(list)}, not a list of generations`);
    return list.map((generation, i) => {
      if (typeof generation !== 'string')
        throw new SweepInputError(`${source}: [${t}][${i}] is ${kind(generation)}, not a string (a generation is a program as text)`);
      return generation;
    });
  });
}

export interface BuildOptions {
  sweepId: string;
  configFile: string;
  mode: SweepMode;
  /** evaluate-only: dataset name -> local generations.json (bigcode's list of lists). */
  generations: Record<string, string>;
  queues: SweepInput['queues'];
  /** Where to say what the loaders noticed (quirky rows they fixed). */
  log?: (line: string) => void;
}

export async function buildSweepInput(config: SweepConfig, bucket: Bucket, opts: BuildOptions): Promise<SweepInput> {
  // Loaded here to check every row and the task selection before anything starts, and to say what
  // the loader noticed; the storage activity loads the uploaded files again with the same code.
  const { datasets: loadedSets, counts } = await selectedTasks(bucket, opts.configFile, config);
  // A language whose toolchain is absent is installed now when this project can (once, for every
  // dataset), else refused here, before anything starts.
  if (opts.mode !== 'generation-only') {
    const missingNow = () =>
      Promise.all(
        [...loadedSets].map(async ([name, d]) =>
          (await missingToolchains(d.loaded?.problems ?? [])).map((m) => ({ ...m, message: `datasets[${name}]: ${m.message}` })),
        ),
      ).then((lists) => lists.flat());
    let missing = await missingNow();
    if (
      missing.length &&
      (await installToolchains(
        missing.map((m) => m.language),
        (line) => (opts.log ?? console.error)(line),
      ))
    )
      missing = await missingNow();
    if (missing.length) throw new SweepInputError(missing.map((m) => m.message).join('\n'));
  }
  const unreadable = sanitizerLanguageProblems(
    config.models,
    config.datasets.map((d) => ({
      name: d.name,
      languages: new Set((loadedSets.get(d.name)?.loaded?.problems ?? []).map((p) => languageOf(p).id)),
    })),
  );
  if (unreadable.length) throw new SweepInputError(unreadable.join('\n'));
  const selection = selectionOf(config);
  // Tasks whose libraries the sandbox lacks (DS-1000's) are refused now, not failed sample by sample.
  if (opts.mode !== 'generation-only') {
    const missing = requirementsProblem(
      config.datasets.map((d) => ({ name: d.name, family: d.family, problems: loadedSets.get(d.name)?.loaded?.problems ?? [] })),
      (p) => familyOf(p).requirements(p),
    );
    if (missing) throw new SweepInputError(missing);
  }
  const datasets: SweepDatasetInput[] = [];
  for (const d of config.datasets) {
    for (const note of loadedSets.get(d.name)?.loaded?.notes ?? []) opts.log?.(note);
    const entry: SweepDatasetInput = {
      name: d.name,
      entry: d,
      files: await uploadEntryFiles(bucket, opts.configFile, opts.sweepId, d),
      selection,
    };
    if (opts.mode === 'evaluate-only') {
      const file = opts.generations[d.name];
      if (!file) throw new SweepInputError(`--load-generations: no generations file for dataset ${d.name}`);
      const parsed = loadGenerations(file, d.name, Math.min(config.limit ?? Infinity, counts[d.name]!), config.n_samples);
      const key = sweepInputKey(opts.sweepId, `generations-${d.name}-${sha256Hex(JSON.stringify(parsed)).slice(0, 16)}.json`);
      await putObjectOnce(bucket, key, JSON.stringify(parsed), { contentType: 'application/json' });
      entry.savedGenerationsKey = key;
    }
    datasets.push(entry);
  }

  let cells: SweepCellInput[];
  if (opts.mode === 'evaluate-only') {
    // Loaded generations belong to no model or temperature: one cell per dataset.
    const unused: LlmEndpoint = { id: 'loaded', baseUrl: 'http://unused.invalid', model: 'loaded', api: 'completions', requestTimeoutS: 1 };
    cells = config.datasets.map((d) => ({
      id: loadedCellId(d.name),
      dataset: d.name,
      model: 'loaded',
      method: 'loaded',
      temperature: 0,
      endpoint: unused,
      sampling: { model: 'loaded', temperature: 0, top_p: 1, max_tokens: 1 },
      stop: [],
      ...scopeOf(d),
    }));
  } else {
    cells = expandGrid(config).map((c) => {
      const stop = stopWordsFor(c.model, c.dataset);
      return {
        id: c.id,
        dataset: c.dataset.name,
        model: c.model.id,
        method: c.method,
        temperature: c.temperature,
        ...(c.promptName === null ? {} : { prompt: c.promptName }),
        endpoint: {
          id: c.model.id,
          baseUrl: c.model.base_url,
          model: c.model.model,
          api: c.model.api,
          ...(c.model.api_key_env ? { apiKeyEnv: c.model.api_key_env } : {}),
          requestTimeoutS: c.model.request_timeout_s,
          concurrency: c.model.concurrency,
          ...(c.model.requests_per_second ? { requestsPerSecond: c.model.requests_per_second } : {}),
          ...(c.model.samples_per_request ? { samplesPerRequest: c.model.samples_per_request } : {}),
          ...(c.model.batch ? { batch: batchEndpointOf(c.model.batch) } : {}),
        },
        sampling: {
          model: c.model.model,
          temperature: c.temperature,
          top_p: config.top_p,
          max_tokens: c.model.max_tokens,
          // The rest of the list is applied to the answers (cell.stop): the code comes out the same.
          ...(stopSentTo(stop, c.model).length ? { stop: stopSentTo(stop, c.model) } : {}),
          ...(c.model.send_seed ? { seed: config.seed } : {}),
          ...(c.promptTemplate ? { prompt: c.promptTemplate } : {}),
          // Only the cells of fill-in-the-middle datasets: other cells' inputs stay as they were.
          ...(c.model.fim && familyOf(c.dataset).fillsInTheMiddle?.(c.dataset) ? { fim: c.model.fim } : {}),
        },
        stop,
        ...(c.model.sanitize ? { sanitize: c.model.sanitize } : {}),
        ...scopeOf(c.dataset),
      };
    });
  }

  return {
    sweepId: opts.sweepId,
    configHash: sweepConfigHash(config, sha256Hex),
    mode: opts.mode,
    datasets,
    cells,
    methodOptions: config.method_options,
    nSamples: config.n_samples,
    k: config.k,
    timeoutS: config.timeout_s,
    // How soon a dead worker's model calls go to another: the config's, for this sweep's workflows.
    queues: config.heartbeat_timeout_s === undefined ? opts.queues : { ...opts.queues, llmHeartbeatTimeoutS: config.heartbeat_timeout_s },
    shardSamples: config.shard_samples ?? DEFAULT_SHARD_SAMPLES,
    ...(config.max_parallel_cells !== undefined ? { maxParallelCells: config.max_parallel_cells } : {}),
    ...spendInputs(config),
    ...cellErrorStopInput(config),
  };
}

/** When a cell stops on errors (domain/sweep/cellErrors.ts): the config's limits, or the defaults; left out when it says false. */
export function cellErrorStopInput(config: SweepConfig): Pick<SweepInput, 'cellErrorStop'> {
  const cellErrorStop = cellErrorStopOf(config);
  return cellErrorStop ? { cellErrorStop } : {};
}

/** The sweep's caps and its models' prices, when the config gives any (the workflow input leaves them out otherwise). */
export function spendInputs(config: SweepConfig): Pick<SweepInput, 'budget' | 'prices'> {
  const budget = sweepBudgetsOf(config);
  const prices = pricesOf(config.models);
  return { ...(budget ? { budget } : {}), ...(prices ? { prices } : {}) };
}

export function queuesOf(config: ExploraConfig): SweepInput['queues'] {
  return {
    workflows: config.taskQueues.workflows,
    storage: config.taskQueues.storage,
    sandbox: config.taskQueues.sandbox,
    llmBase: config.taskQueues.llm,
  };
}

/** What `sweeps/<id>/config.json` holds: the config of the sweep's first start and its latest run. */
export interface SweepRecord {
  config_sha256: string;
  config: SweepConfig;
  /** Absent from records written before runs were recorded. */
  run?: SweepRun;
}

/**
 * A start of `sweepId` with this config and run, checked against what the id was started with: the
 * same config (or it would silently mix two experiments) and a compatible run (see
 * sweepRunConflict), else refused naming what differs. Returns the record found, if any.
 */
export async function checkSweepRecord(
  bucket: Bucket,
  sweepId: string,
  config: SweepConfig,
  run: SweepRun,
  describe: (a: SweepConfig, b: SweepConfig) => string[],
): Promise<SweepRecord | null> {
  const existing = await getBytes(bucket, sweepConfigKey(sweepId));
  if (!existing) return null;
  const stored = JSON.parse(Buffer.from(existing).toString('utf8')) as SweepRecord;
  if (stored.config_sha256 !== sweepConfigHash(config, sha256Hex)) {
    throw new SweepInputError(
      `sweep ${sweepId} was started with another config (${describe(stored.config, config).join('; ')}); ` +
        'use another --id, or restore the original config to resume it',
    );
  }
  const conflict = stored.run ? sweepRunConflict(sweepId, stored.run, run) : null;
  if (conflict) throw new SweepInputError(conflict);
  return stored;
}

/** Records the config (first start) and this start's run under the sweep id. */
export async function writeSweepRecord(bucket: Bucket, sweepId: string, config: SweepConfig, run: SweepRun): Promise<void> {
  const record = { sweep_id: sweepId, config_sha256: sweepConfigHash(config, sha256Hex), run, config };
  await putObject(bucket, sweepConfigKey(sweepId), JSON.stringify(record, null, 2) + '\n', { contentType: 'application/json' });
}

/** A cell's `scope` (SweepCellInput): the part of its dataset its figures are over, only when the family says one. */
function scopeOf(dataset: SweepDatasetConfig): { scope?: Record<string, string> } {
  const scope = familyOf(dataset).cellScope?.(dataset) ?? {};
  return Object.keys(scope).length > 0 ? { scope: { ...scope } } : {};
}
