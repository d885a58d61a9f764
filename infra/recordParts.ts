/**
 * A shard's sample records as they finish. The shard's one records file is written when all its
 * samples are done; until then, finished records go to small part objects every few seconds, so
 * that they are in S3 as they finish (visible, and kept: a sandbox activity retried after a crash
 * runs only the samples no part holds). The parts are deleted once the records file exists.
 */
import { randomBytes } from 'node:crypto';
import { parseJsonl } from '../domain/datasets/jsonl.js';
import { SampleRecordSchema, type SampleRecord } from '../domain/sweep/records.js';
import { deleteObject, getText, listKeys, putObject, type Bucket } from './s3.js';

/** How long a finished record may wait for company before its part is written. */
export const PART_INTERVAL_MS = 2_000;

const sampleOf = (r: Pick<SampleRecord, 'task_index' | 'sample_index'>) => `${r.task_index}/${r.sample_index}`;

/** The records earlier attempts left in parts, by `task/sample`; a part that cannot be read is skipped. */
export async function readParts(bucket: Bucket, prefix: string): Promise<{ records: Map<string, SampleRecord>; keys: string[] }> {
  const records = new Map<string, SampleRecord>();
  const keys: string[] = [];
  for await (const key of listKeys(bucket, prefix)) {
    keys.push(key);
    const text = await getText(bucket, key);
    if (text === null) continue;
    try {
      for (const { row } of parseJsonl(text, SampleRecordSchema, key)) records.set(sampleOf(row), row);
    } catch (err) {
      console.warn(`skipping unreadable record part ${key}: ${(err as Error).message}`);
    }
  }
  return { records, keys };
}

export function partRecordFor(
  records: ReadonlyMap<string, SampleRecord>,
  taskIndex: number,
  sampleIndex: number,
): SampleRecord | undefined {
  return records.get(sampleOf({ task_index: taskIndex, sample_index: sampleIndex }));
}

/** Writes added records to a new part object every PART_INTERVAL_MS; one write at a time. */
export class PartWriter {
  private readonly writer = `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  private pending: SampleRecord[] = [];
  private sequence = 0;
  private writing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  readonly written: string[] = [];

  constructor(
    private readonly bucket: Bucket,
    private readonly prefix: string,
    intervalMs = PART_INTERVAL_MS,
  ) {
    this.timer = setInterval(() => this.flush(), intervalMs);
    this.timer.unref();
  }

  add(record: SampleRecord): void {
    this.pending.push(record);
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    const key = `${this.prefix}part-${this.writer}-${String(this.sequence++).padStart(5, '0')}.jsonl`;
    this.writing = this.writing.then(() =>
      putObject(this.bucket, key, batch.map((r) => JSON.stringify(r) + '\n').join(''), { contentType: 'application/x-ndjson' }).then(
        () => void this.written.push(key),
        // Parts are a convenience: the shard's records file is what counts, so a failed write is
        // only said, and its records wait for that file.
        (err: Error) => console.warn(`record part ${key} not written: ${err.message}`),
      ),
    );
  }

  /** Stops writing parts (the records file is about to hold everything); waits for the one in flight. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.writing;
  }
}

/** Once the shard's records file is stored: its parts, this attempt's and earlier ones', go. */
export async function deleteParts(bucket: Bucket, keys: Iterable<string>): Promise<void> {
  await Promise.all(
    [...new Set(keys)].map((key) =>
      deleteObject(bucket, key).catch((err: Error) => console.warn(`record part ${key} not deleted: ${err.message}`)),
    ),
  );
}

/** Parts left under `prefix` by an attempt that stored the records file and died before deleting them. */
export async function deleteLeftoverParts(bucket: Bucket, prefix: string): Promise<void> {
  const keys: string[] = [];
  try {
    for await (const key of listKeys(bucket, prefix)) keys.push(key);
  } catch (err) {
    // Only tidying: the shard is done whatever is left here.
    console.warn(`could not list leftover record parts under ${prefix}: ${(err as Error).message}`);
  }
  await deleteParts(bucket, keys);
}

/** The records of a stored records file (a shard's or a slice's), or null when there is none. */
export async function readRecordsFile(bucket: Bucket, key: string): Promise<SampleRecord[] | null> {
  const text = await getText(bucket, key);
  return text === null ? null : parseJsonl(text, SampleRecordSchema, key).map((r) => r.row);
}
