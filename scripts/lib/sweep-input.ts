/**
 * From a validated sweep config and the CLI's flags to the sweep workflow's input: local dataset and
 * generations files are uploaded to S3 (workers may run on other machines), everything else is
 * plain data. Also counts tasks per dataset for `--dry-run`.
 */
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { ExploraConfig } from '../../domain/config/env.js';
import { DatasetRowSchema, datasetRowsProblem } from '../../domain/datasets/problems.js';
import { parseJsonl } from '../../domain/execution/humaneval.js';
import type { LlmEndpoint } from '../../domain/llm/request.js';
import { isPbeWorldDataset, stopSentTo, sweepConfigHash, type PathDatasetConfig, type SweepConfig, type SweepDatasetConfig } from '../../domain/sweep/config.js';
import type { DatasetLibrary } from '../../domain/apidocs/library.js';
import { parseApiDocsJsonl } from '../../domain/apidocs/corpus.js';
import { sweepConfigKey, sweepInputKey, sweepRunConflict, type SweepRun } from '../../domain/sweep/keys.js';
import { expandGrid, loadedCellId } from '../../domain/sweep/plan.js';
import { decodeMaybeGzip } from '../../infra/problems.js';
import { getBytes, putObject, sha256Hex, type Bucket } from '../../infra/s3.js';
import type { SweepCellInput, SweepDatasetInput, SweepInput, SweepMode } from '../../workflows/sweepTypes.js';

export class SweepInputError extends Error {}

export function parseS3Uri(uri: string): { bucket: string; key: string } | null {
  const m = /^s3:\/\/([^/]+)\/(.+)$/.exec(uri);
  return m ? { bucket: m[1]!, key: m[2]! } : null;
}

/** Paths in a config are relative to the config file, like most tools' configs. */
export function resolveDatasetPath(configFile: string, p: string): string {
  return path.isAbsolute(p) ? p : path.resolve(path.dirname(configFile), p);
}

function formOf(d: SweepDatasetConfig): 'completion' | 'full' {
  return d.program_form === 'full_program' ? 'full' : 'completion';
}

async function readDatasetText(bucket: Bucket, configFile: string, d: SweepDatasetConfig & { path: string }): Promise<string> {
  return readInputText(bucket, configFile, d.path, `datasets[${d.name}].path`);
}

/** A file named in the config (local, relative to the config file, or s3://), gunzipped if need be. */
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
    return decodeNamed(bytes, field, p);
  }
  const file = resolveDatasetPath(configFile, p);
  if (!existsSync(file)) throw new SweepInputError(`${field}: ${file} does not exist`);
  return decodeNamed(readFileSync(file), field, file);
}

function decodeNamed(bytes: Uint8Array, field: string, where: string): string {
  try {
    return decodeMaybeGzip(bytes);
  } catch (err) {
    throw new SweepInputError(`${field}: ${where} is not readable as text or gzip: ${(err as Error).message}`);
  }
}

/** An S3 failure as a person can act on it: the endpoint down, a missing bucket, no access. */
function describeS3Error(err: unknown): string {
  const e = err as { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  if (e.code === 'ECONNREFUSED' || /ECONNREFUSED/.test(e.message ?? '')) return `the S3 endpoint refused the connection (${e.message}); is it up? (local stack: npm run stack:up)`;
  if (e.name === 'NoSuchBucket') return 'no such bucket';
  const status = e.$metadata?.httpStatusCode;
  if (status === 403 || e.name === 'AccessDenied') return 'access denied (check EXPLORA_S3_* credentials)';
  return `${e.name ?? 'error'}${status ? ` (HTTP ${status})` : ''}: ${e.message ?? String(err)}`;
}

/**
 * A path dataset's library as a DatasetLibrary object, and (for renamed private libraries) the
 * dataset rows as the loader normalized them. Errors name the config field and the file's line.
 */
async function loadPathLibrary(
  bucket: Bucket,
  configFile: string,
  d: PathDatasetConfig,
): Promise<{ library: DatasetLibrary; rows?: string; notes: string[] } | null> {
  const lib = d.library;
  if (!lib) return null;
  const field = `datasets[${d.name}].library`;
  if ('api_docs' in lib) {
    const text = await readInputText(bucket, configFile, lib.api_docs, `${field}.api_docs`);
    let docs;
    try {
      docs = parseApiDocsJsonl(text, lib.api_docs);
    } catch (err) {
      throw new SweepInputError(`${field}.api_docs: ${(err as Error).message}`);
    }
    return { library: { library: { name: lib.name, summary: lib.summary, docs, runtime: { kind: 'builtin' } }, planner_examples: [] }, notes: [] };
  }
  const [rows, keywords, mapping] = await Promise.all([
    readDatasetText(bucket, configFile, d),
    readInputText(bucket, configFile, lib.keywords, `${field}.keywords`),
    readInputText(bucket, configFile, lib.mapping, `${field}.mapping`),
  ]);
  // Loaded when needed: it carries the rename tables' machinery, which other sweeps do not use.
  const { loadPrivateLibraryDataset } = await import('../../domain/datasets/privateLibrary.js');
  let loaded;
  try {
    loaded = loadPrivateLibraryDataset({ rows, keywords, mapping, kind: lib.private_library, source: { rows: d.path, keywords: lib.keywords, mapping: lib.mapping } });
  } catch (err) {
    throw new SweepInputError(`${field}: ${(err as Error).message}`);
  }
  return {
    library: loaded.library,
    rows: loaded.problems.map((r) => JSON.stringify(r) + '\n').join(''),
    notes: loaded.quirks.map((q) => `dataset ${d.name}: ${q.task_id}: ${q.problem}`),
  };
}

/** Tasks per dataset (before `limit`), validating every row of path datasets on the way. */
export async function countTasks(bucket: Bucket, configFile: string, config: SweepConfig): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const d of config.datasets) {
    if (isPbeWorldDataset(d)) counts[d.name] = d.pbe_world.count;
    else if (d.library && 'private_library' in d.library) counts[d.name] = (await loadPathLibrary(bucket, configFile, d))!.rows!.split('\n').length - 1;
    else {
      // The checks the workflow makes when it prepares the dataset, so that a dry run catches them.
      const rows = parseJsonl(await readDatasetText(bucket, configFile, d), DatasetRowSchema, `datasets[${d.name}] ${d.path}`);
      const problem = datasetRowsProblem(rows, `datasets[${d.name}] ${d.path}`);
      if (problem) throw new SweepInputError(problem);
      counts[d.name] = rows.length;
    }
  }
  return counts;
}

const GenerationsSchema = z.array(z.array(z.string()));

/**
 * A bigcode generations file (a list per task of its samples' code) for a dataset of `tasks` tasks
 * (after limit): every task, each with at least n samples, or an error naming the file and why.
 */
export function loadGenerations(file: string, dataset: string, tasks: number, nSamples: number): string[][] {
  let parsed;
  try {
    parsed = GenerationsSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch (err) {
    throw new SweepInputError(`--load-generations ${file}: not a JSON list of lists of strings (${(err as Error).message.split('\n')[0]})`);
  }
  if (parsed.length < tasks) throw new SweepInputError(`--load-generations ${file}: ${parsed.length} tasks, but dataset ${dataset} has ${tasks}`);
  const short = parsed.slice(0, tasks).findIndex((g) => g.length < nSamples);
  if (short >= 0) throw new SweepInputError(`--load-generations ${file}: task ${short} has ${parsed[short]!.length} generations, fewer than n_samples=${nSamples}`);
  return parsed;
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
  const counts = await countTasks(bucket, opts.configFile, config);
  const datasets: SweepDatasetInput[] = [];
  for (const d of config.datasets) {
    const limit = config.limit;
    let source: SweepDatasetInput['source'];
    let libraryKey: string | undefined;
    if (isPbeWorldDataset(d)) {
      source = { kind: 'pbe', params: d.pbe_world };
    } else {
      const s3 = parseS3Uri(d.path);
      const library = await loadPathLibrary(bucket, opts.configFile, d);
      if (library) {
        for (const note of library.notes) opts.log?.(note);
        const body = JSON.stringify(library.library);
        libraryKey = sweepInputKey(opts.sweepId, `${d.name}-library-${sha256Hex(body).slice(0, 16)}.json`);
        await putObject(bucket, libraryKey, body, { contentType: 'application/json' });
      }
      if (library?.rows !== undefined) {
        const key = sweepInputKey(opts.sweepId, `${d.name}-${sha256Hex(library.rows).slice(0, 16)}.jsonl`);
        await putObject(bucket, key, library.rows, { contentType: 'application/x-ndjson' });
        source = { kind: 's3', key };
      } else if (s3) source = { kind: 's3', bucket: s3.bucket, key: s3.key };
      else {
        // Content-addressed, so uploading the same file again is a no-op in effect.
        const bytes = readFileSync(resolveDatasetPath(opts.configFile, d.path));
        const key = sweepInputKey(opts.sweepId, `${d.name}-${sha256Hex(bytes).slice(0, 16)}${d.path.endsWith('.gz') ? '.jsonl.gz' : '.jsonl'}`);
        await putObject(bucket, key, bytes);
        source = { kind: 's3', key };
      }
    }
    const entry: SweepDatasetInput = { name: d.name, source, form: formOf(d), ...(limit !== undefined ? { limit } : {}), ...(libraryKey ? { libraryKey } : {}) };
    if (opts.mode === 'evaluate-only') {
      const file = opts.generations[d.name];
      if (!file) throw new SweepInputError(`--load-generations: no generations file for dataset ${d.name}`);
      const parsed = loadGenerations(file, d.name, Math.min(limit ?? Infinity, counts[d.name]!), config.n_samples);
      const key = sweepInputKey(opts.sweepId, `generations-${d.name}-${sha256Hex(JSON.stringify(parsed)).slice(0, 16)}.json`);
      await putObject(bucket, key, JSON.stringify(parsed), { contentType: 'application/json' });
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
    }));
  } else {
    cells = expandGrid(config).map((c) => ({
      id: c.id,
      dataset: c.dataset.name,
      model: c.model.id,
      method: c.method,
      temperature: c.temperature,
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
      },
      sampling: {
        model: c.model.model,
        temperature: c.temperature,
        top_p: config.top_p,
        max_tokens: c.model.max_tokens,
        // The rest of the list is applied to the answers (cell.stop): the code comes out the same.
        ...(stopSentTo(c.model).length ? { stop: stopSentTo(c.model) } : {}),
        ...(c.model.send_seed ? { seed: config.seed } : {}),
      },
      stop: c.model.stop,
    }));
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
    queues: opts.queues,
  };
}

export function queuesOf(config: ExploraConfig): SweepInput['queues'] {
  return { workflows: config.taskQueues.workflows, storage: config.taskQueues.storage, sandbox: config.taskQueues.sandbox, llmBase: config.taskQueues.llm };
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
