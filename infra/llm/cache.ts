/**
 * Where LLM answers live in S3, laid out so that a task's samples cost a few S3 requests in all, not
 * a few each (on a small machine every S3 request costs milliseconds of CPU in the SDK and the store).
 *
 * A call's identity is a hash of (base URL, API, body, sample index). The samples of one task share a
 * group (callGroup), and a group's answers are stored together:
 *
 *   llm-cache/<group>/<writer>-<n>.jsonl     one LlmRecord per line, up to SEGMENT_RECORDS of them
 *   llm-cache/<group>/r<a>-<b>_<writer>-<n>.jsonl   the same, written by an activity whose calls are
 *                                            samples [a, b) only (a slice of a large task's)
 *   llm-cache/<group>/<identity>.failures    retryable failures of one call so far (a number)
 *   llm-cache/<group>/inflight.json          calls being asked right now, and by whom
 *
 * so the cache check of a task is one LIST (plus a GET per segment when something is cached; a
 * slice of a task's samples reads only the segments whose samples may meet its own), and a
 * writer rewrites its open segment with everything it holds each time it flushes, quick answers
 * together. A record is named by
 * `<segment key>#<identity>`; a key without `#` is a record object of its own (the earlier
 * one-object-per-call layout), still readable.
 */
import { randomBytes } from 'node:crypto';
import { canonicalJson } from '../../domain/datasets/manifest.js';
import { parseJsonl } from '../../domain/datasets/jsonl.js';
import { LlmRecordSchema, preferredRecord, type LlmCall, type LlmRecord } from '../../domain/llm/request.js';
import { getText, listKeys, sha256Hex, type Bucket } from '../s3.js';
import type { IndexRange } from '../../domain/sweep/sharding.js';

/**
 * Records per segment object: bounds both the bytes one write carries and the objects a task has
 * (every S3 request costs milliseconds of CPU here, in the SDK and in the store, whatever its size).
 * A segment is rewritten whole at each flush, so its bytes are sent about size / 2 times over per
 * record: at 64, answers of 300 ms (a flush each) made the worker send ~2 GB for 20,000 samples.
 */
export const SEGMENT_RECORDS = 32;
/** A segment is also closed at this size (long chat answers), so a rewrite stays small. */
const SEGMENT_BYTES = 256 * 1024;
/**
 * An answer may wait this long for others to share its write (an endpoint answering a task's
 * requests at once, however long each takes, gives a write several answers), so a crash loses
 * only the answers of the last LINGER_MS...
 */
export const LINGER_MS = 200;
/**
 * ...except an answer that took the model this long or longer: it is written at once (with
 * whatever else is waiting). Answers this slow come a few a second at most, so writing each alone
 * costs little, and a crash never loses one of them that a write could have kept.
 */
export const URGENT_MS = 1000;

/** The cache identity of one call: equal for the same request of the same sample, and only then. */
export function callIdentity(call: LlmCall): string {
  return sha256Hex(
    canonicalJson({ base_url: call.endpoint.baseUrl, api: call.endpoint.api, body: call.body, sample_index: call.sampleIndex }),
  );
}

/**
 * The group of a call: its identity without the sample. Sample i of a task sends seed base + i (or
 * no seed), so the base seed, not the seed, is what the samples share; another base seed (another
 * sweep's) is another group, and a task's cache check never reads other sweeps' answers.
 */
export function callGroup(call: LlmCall): string {
  // A request of several choices sends the seed of its first sample; its size (`n`) does not
  // matter here, since identities are exact, so a task's requests of any size share its group.
  const { seed, n: _n, ...rest } = call.body;
  const body = seed === undefined ? rest : { ...rest, seed_base: seed - (call.sampleIndex - (call.choice ?? 0)) };
  return sha256Hex(canonicalJson({ base_url: call.endpoint.baseUrl, api: call.endpoint.api, body }));
}

const groupPrefix = (group: string) => `llm-cache/${group}/`;
/** The group's in-flight ledger: the calls being asked right now (inflightLedger.ts). */
export const INFLIGHT_OBJECT = 'inflight.json';
export const inflightKey = (group: string): string => `${groupPrefix(group)}${INFLIGHT_OBJECT}`;
export const failuresKey = (group: string, identity: string) => `${groupPrefix(group)}${identity}.failures`;

function splitRef(key: string): { object: string; identity?: string } {
  const hash = key.indexOf('#');
  return hash < 0 ? { object: key } : { object: key.slice(0, hash), identity: key.slice(hash + 1) };
}

function parseSegment(object: string, text: string): Map<string, LlmRecord> {
  const out = new Map<string, LlmRecord>();
  for (const { row, line } of parseJsonl(text, LlmRecordSchema, object)) {
    const { identity } = splitRef(row.key);
    if (!identity) throw new Error(`${object}:${line}: record key ${row.key} names no call (no #identity)`);
    out.set(identity, row);
  }
  return out;
}

function parseSingle(object: string, text: string): LlmRecord {
  const rows = parseJsonl(text, LlmRecordSchema, object);
  if (rows.length !== 1 || rows[0]!.row.key !== object) {
    throw new Error(`LLM record key ${object} names a segment of ${rows.length} record(s), not one record (no #identity)`);
  }
  return rows[0]!.row;
}

/** What the store already holds for one group: answers by call identity, and calls that failed before. */
export interface GroupContents {
  records: Map<string, LlmRecord>;
  failures: Set<string>;
  /** Whether the listing showed an in-flight ledger (inflightLedger.ts) in the group. */
  inflightListed: boolean;
}

/** The samples [start, end) a batch of calls asks for (the range of sharding's slices); a segment's writer may name them in its key. */
export type SampleSpan = IndexRange;

const SPAN_TAG = /^r(\d+)-(\d+)_/;

/** The samples a segment's name says it holds, or null for a segment that names none (any sample). */
export function segmentSpan(group: string, key: string): SampleSpan | null {
  const m = SPAN_TAG.exec(key.slice(groupPrefix(group).length));
  return m ? { start: Number(m[1]), end: Number(m[2]) } : null;
}

/** The span of the calls' samples, [lowest, highest + 1). */
export function spanOf(sampleIndices: Iterable<number>): SampleSpan | undefined {
  let start = Infinity;
  let end = -Infinity;
  for (const i of sampleIndices) {
    start = Math.min(start, i);
    end = Math.max(end, i + 1);
  }
  return end > start ? { start, end } : undefined;
}

/**
 * What the group holds; with `only`, the answers of those samples at least: segments whose name
 * says they hold other samples only are not read. Without that, the slices of a task of 100,000
 * samples (domain/sweep/sharding.ts) each read every slice's answers before them: 50 slices, 1,250
 * segment reads each on average, the later ones the slower.
 */
export async function readGroup(bucket: Bucket, group: string, only?: SampleSpan): Promise<GroupContents> {
  const prefix = groupPrefix(group);
  const segments: string[] = [];
  const failures = new Set<string>();
  let inflightListed = false;
  for await (const key of listKeys(bucket, prefix)) {
    if (key.endsWith('.jsonl')) {
      const span = only && segmentSpan(group, key);
      if (!span || (span.start < only.end && only.start < span.end)) segments.push(key);
    } else if (key.endsWith('.failures')) failures.add(key.slice(prefix.length, -'.failures'.length));
    else if (key === `${prefix}${INFLIGHT_OBJECT}`) inflightListed = true;
  }
  const records = new Map<string, LlmRecord>();
  const texts = await Promise.all(segments.map((s) => getText(bucket, s)));
  for (const [i, text] of texts.entries()) {
    // Listed a moment ago, so it exists; a segment is only ever rewritten with more records.
    if (text === null) throw new Error(`LLM cache segment ${segments[i]} vanished while being read`);
    for (const [identity, record] of parseSegment(segments[i]!, text)) {
      const earlier = records.get(identity);
      records.set(identity, earlier ? preferredRecord(earlier, record) : record);
    }
  }
  return { records, failures, inflightListed };
}

/**
 * Collects the answers of one group in one activity attempt and stores them in its own segments.
 * `add` returns at once with the record's key; `drain` resolves when everything added is stored.
 * One write is in flight at a time. An answer that took the model URGENT_MS or more is written at
 * once (with whatever else is waiting); quicker ones wait up to LINGER_MS for company, so the
 * answers of a fast model, or of a task's requests in flight together, share a request.
 */
export class GroupWriter {
  private readonly writer = `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
  private readonly segments: Array<{ lines: string[]; bytes: number; stored: number }> = [];
  private readonly dirty = new Set<number>();
  /** When the oldest record not yet in a write was added. */
  private waitingSince: number | undefined;
  private urgent = false;
  private wake: (() => void) | undefined;
  private flushing: Promise<void> | null = null;
  private failure: unknown = null;
  private added = 0;

  constructor(
    private readonly group: string,
    /** Stores one object, retrying as long as it is worth it (the answers in it are paid for). */
    private readonly put: (key: string, body: string) => Promise<void>,
    /** The samples every record added will be of, named in the segments' keys (readGroup's `only`); absent: any. */
    private readonly span?: SampleSpan,
  ) {}

  private segmentKey(n: number): string {
    const tag = this.span ? `r${this.span.start}-${this.span.end}_` : '';
    return `${groupPrefix(this.group)}${tag}${this.writer}-${n}.jsonl`;
  }

  /** Queues the record (its `key` is set here) for storage and returns that key. */
  add(identity: string, record: Omit<LlmRecord, 'key'>, sampleIndex?: number): string {
    // A record outside the span its segments name would be missed by readers of its sample.
    if (this.span && sampleIndex !== undefined && (sampleIndex < this.span.start || sampleIndex >= this.span.end))
      throw new Error(`sample ${sampleIndex} is outside this writer's samples [${this.span.start}, ${this.span.end})`);
    let n = this.segments.length - 1;
    const open = this.segments[n];
    if (!open || open.lines.length >= SEGMENT_RECORDS || open.bytes >= SEGMENT_BYTES) {
      this.segments.push({ lines: [], bytes: 0, stored: 0 });
      n++;
    }
    const key = `${this.segmentKey(n)}#${identity}`;
    const line = JSON.stringify({ ...record, key });
    const segment = this.segments[n]!;
    segment.lines.push(line);
    segment.bytes += line.length + 1;
    this.dirty.add(n);
    this.waitingSince ??= Date.now();
    this.added++;
    this.kick(record.durationMs >= URGENT_MS);
    return key;
  }

  private kick(urgent: boolean): void {
    if (urgent) {
      this.urgent = true;
      this.wake?.();
    }
    // Started on the next microtask, so that `flushing` is set before the loop can end and clear it.
    if (!this.flushing && !this.failure) this.flushing = Promise.resolve().then(() => this.flushLoop());
  }

  /** Storing failed for good: nothing more should be asked of the model in this attempt. */
  get failed(): boolean {
    return this.failure !== null;
  }

  /** Records added but not yet stored. */
  get pending(): number {
    return this.added - this.segments.reduce((a, s) => a + s.stored, 0);
  }

  private async flushLoop(): Promise<void> {
    try {
      while (this.dirty.size > 0) {
        const wait = this.urgent ? 0 : this.waitingSince! + LINGER_MS - Date.now();
        if (wait > 0) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, wait);
            this.wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          this.wake = undefined;
        }
        const batch = [...this.dirty].map((n) => ({ n, count: this.segments[n]!.lines.length }));
        this.dirty.clear();
        this.waitingSince = undefined;
        this.urgent = false;
        await Promise.all(
          batch.map(async ({ n, count }) => {
            const segment = this.segments[n]!;
            await this.put(this.segmentKey(n), segment.lines.slice(0, count).join('\n') + '\n');
            segment.stored = count;
          }),
        );
      }
    } catch (err) {
      this.failure = err;
    } finally {
      this.flushing = null;
    }
  }

  /** Stores everything added so far, now; throws if storing failed for good. */
  async drain(): Promise<void> {
    this.kick(true);
    while (this.flushing) {
      await this.flushing;
      if (this.dirty.size > 0) this.kick(true);
    }
    if (this.failed) throw this.failure;
  }
}

/** Bytes of segment text kept per S3 client (writtenSegments): a few hundred tasks' answers. */
const WRITTEN_SEGMENT_BYTES = 32 * 1024 * 1024;

/**
 * The segments this process stored last, as stored, per S3 client (one client talks to one store),
 * oldest first. A task's answers are read right after its LLM activity stored them: by the shard's
 * executeShard, and by a multi-step method's next step, usually in the same worker process; they
 * are read from here instead of fetched again (a GET is ~0.6 ms of the worker's CPU and more of
 * the store's). Only a writer's own completed writes land here, and a segment is only ever
 * rewritten by its writer with more records, so the text kept is the object's content.
 */
const writtenSegments = new WeakMap<Bucket['s3'], { texts: Map<string, string>; bytes: number }>();

/** Keeps the text of a segment this process has just stored (see writtenSegments). */
export function rememberWrittenSegment(bucket: Bucket, key: string, text: string): void {
  let kept = writtenSegments.get(bucket.s3);
  if (!kept) writtenSegments.set(bucket.s3, (kept = { texts: new Map(), bytes: 0 }));
  const id = `${bucket.name}/${key}`;
  const earlier = kept.texts.get(id);
  if (earlier !== undefined) {
    kept.texts.delete(id);
    kept.bytes -= earlier.length;
  }
  kept.texts.set(id, text);
  kept.bytes += text.length;
  for (const [oldest, t] of kept.texts) {
    if (kept.bytes <= WRITTEN_SEGMENT_BYTES) break;
    kept.texts.delete(oldest);
    kept.bytes -= t.length;
  }
}

function writtenSegment(bucket: Bucket, key: string): string | undefined {
  return writtenSegments.get(bucket.s3)?.texts.get(`${bucket.name}/${key}`);
}

/**
 * Reads records by key, each segment object once per reader (a shard reads a task's samples from a
 * handful of segments), from this process's own recent writes when it has them. Keys without `#`
 * are whole-object records of the earlier layout.
 */
export class LlmRecordReader {
  private readonly objects = new Map<string, Promise<Map<string, LlmRecord> | LlmRecord | null>>();

  constructor(private readonly bucket: Bucket) {}

  async read(key: string): Promise<LlmRecord | null> {
    const { object, identity } = splitRef(key);
    let entry = this.objects.get(object);
    if (!entry) {
      const written = identity === undefined ? undefined : writtenSegment(this.bucket, object);
      entry = (written !== undefined ? Promise.resolve(written) : getText(this.bucket, object)).then((text) =>
        text === null ? null : identity === undefined ? parseSingle(object, text) : parseSegment(object, text),
      );
      entry.catch(() => this.objects.delete(object));
      this.objects.set(object, entry);
    }
    const value = await entry;
    if (value === null) return null;
    if (value instanceof Map) {
      if (identity === undefined) throw new Error(`LLM record key ${key} names a segment, not one record (no #identity)`);
      return value.get(identity) ?? null;
    }
    if (identity !== undefined) throw new Error(`LLM record key ${key}: ${object} is a single record, not a segment`);
    return value;
  }
}

/** One record by key (null when it does not exist). */
export function readLlmRecordAt(bucket: Bucket, key: string): Promise<LlmRecord | null> {
  return new LlmRecordReader(bucket).read(key);
}
