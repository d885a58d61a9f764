/**
 * Which workers serve a model's LLM queue now: each holds a lease object in S3
 * (`llm-workers/<queue>/<worker>`), written when it starts serving the queue, renewed every 30 s and
 * deleted when it stops. A lease not renewed for 90 s (a worker killed) no longer counts.
 *
 * Why not the task queue's pollers as Temporal reports them: a worker busy on all its slots does
 * not poll, and under a backlog its polls are answered by partitions DescribeTaskQueue does not
 * report, so in a long sweep, the normal case, busy workers vanish from that count. A lease is
 * renewed by a timer, busy or not.
 *
 * Clocks: a lease's age is read against S3's clock (its LastModified), estimated from this worker's
 * own lease, so workers on machines whose clocks disagree still agree on who is alive.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { deleteObject, listObjects, putObject, type Bucket } from '../s3.js';

export const LEASE_RENEW_MS = 30_000;
export const LEASE_TTL_MS = 90_000;
/**
 * A lease this much older than the TTL belongs to a worker that is gone (killed, or its machine):
 * the workers that count the queue delete it, so a long-lived cluster does not accumulate them. Far
 * past the TTL, so that a worker cut off from S3 for a while is long counted out before its lease
 * goes, and one that comes back writes it again at its next renewal.
 */
export const LEASE_REMOVE_AFTER_MS = 4 * LEASE_TTL_MS;

export interface WorkerLeaseOptions {
  /** This worker's name in the leases (default: host, pid and a random part). */
  identity?: string;
  renewMs?: number;
  ttlMs?: number;
  /** How long a count is reused before S3 is listed again. */
  refreshMs?: number;
  /** Age past which a counting worker deletes a lease (default LEASE_REMOVE_AFTER_MS, or 4 x ttlMs). */
  removeAfterMs?: number;
}

interface Held {
  key: string;
  /** Local time of the last successful write of this lease. */
  writtenAtMs: number;
}

interface Counted {
  workers: number;
  atMs: number;
  pending?: Promise<number>;
}

const prefixOf = (taskQueue: string) => `llm-workers/${taskQueue}/`;

export class WorkerLeases {
  readonly identity: string;
  private readonly renewMs: number;
  private readonly ttlMs: number;
  private readonly refreshMs: number;
  private readonly removeAfterMs: number;
  private readonly held = new Map<string, Held>();
  private readonly counted = new Map<string, Counted>();
  private readonly warned = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly bucket: Bucket,
    options: WorkerLeaseOptions = {},
  ) {
    this.identity = options.identity ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
    this.renewMs = options.renewMs ?? LEASE_RENEW_MS;
    this.ttlMs = options.ttlMs ?? LEASE_TTL_MS;
    this.refreshMs = options.refreshMs ?? 10_000;
    this.removeAfterMs = options.removeAfterMs ?? 4 * this.ttlMs;
  }

  /** Starts holding a lease on `taskQueue` (a worker that cannot write it yet keeps trying). */
  async join(taskQueue: string): Promise<void> {
    if (this.held.has(taskQueue)) return;
    this.held.set(taskQueue, { key: `${prefixOf(taskQueue)}${this.identity}`, writtenAtMs: 0 });
    this.timer ??= setInterval(() => void this.renewAll(), this.renewMs).unref();
    await this.renew(taskQueue);
  }

  /** Stops renewing and deletes this worker's leases (a killed worker's lapse by themselves). */
  async leave(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    const keys = [...this.held.values()].map((h) => h.key);
    this.held.clear();
    await Promise.all(
      keys.map((key) =>
        deleteObject(this.bucket, key).catch((err: Error) =>
          console.warn(`worker lease ${key} not deleted (it lapses in ${this.ttlMs / 1000} s): ${err.message}`),
        ),
      ),
    );
  }

  /** Workers holding a live lease on `taskQueue` (at least 1: the one asking serves it). */
  readonly count = async (taskQueue: string): Promise<number> => {
    const counted = this.counted.get(taskQueue);
    if (counted && Date.now() - counted.atMs < this.refreshMs) return counted.workers;
    if (counted?.pending) return counted.pending;
    const entry: Counted = counted ?? { workers: 1, atMs: 0 };
    this.counted.set(taskQueue, entry);
    entry.pending = this.list(taskQueue)
      .then((workers) => (entry.workers = workers))
      .catch((err: Error) => {
        // The last count stands (S3 is probably restarting).
        console.warn(`could not count the workers of ${taskQueue} (keeping ${entry.workers}): ${err.message}`);
        return entry.workers;
      })
      .finally(() => {
        entry.atMs = Date.now();
        entry.pending = undefined;
      });
    return entry.pending;
  };

  private async list(taskQueue: string): Promise<number> {
    const leases: Array<{ key: string; modifiedMs: number }> = [];
    for await (const lease of listObjects(this.bucket, prefixOf(taskQueue))) leases.push(lease);
    // S3's "now", from this worker's own lease: written at writtenAtMs here, stamped modifiedMs there.
    const own = this.held.get(taskQueue);
    const ownListed = own && leases.find((l) => l.key === own.key);
    const s3Now = own && ownListed && own.writtenAtMs > 0 ? ownListed.modifiedMs + (Date.now() - own.writtenAtMs) : Date.now();
    const alive = leases.filter((l) => l.modifiedMs >= s3Now - this.ttlMs || l.key === own?.key);
    // Leases of workers long gone are removed here, best effort (another counting worker may have
    // removed them already, or will next time).
    const gone = leases.filter((l) => l.modifiedMs < s3Now - this.removeAfterMs && l.key !== own?.key);
    await Promise.all(gone.map((l) => deleteObject(this.bucket, l.key).catch(() => undefined)));
    return Math.max(1, alive.length);
  }

  private async renewAll(): Promise<void> {
    await Promise.all([...this.held.keys()].map((q) => this.renew(q)));
  }

  private async renew(taskQueue: string): Promise<void> {
    const held = this.held.get(taskQueue);
    if (!held) return;
    try {
      await putObject(this.bucket, held.key, JSON.stringify({ worker: this.identity, queue: taskQueue }), {
        contentType: 'application/json',
      });
      // S3 stamped the object during the request; its end is the later bound, which makes S3's
      // "now" come out earlier and so counts a lease near its lapse as alive (under the limits).
      held.writtenAtMs = Date.now();
      this.warned.delete(taskQueue);
    } catch (err) {
      if (!this.warned.has(taskQueue)) {
        this.warned.add(taskQueue);
        console.warn(`worker lease ${held.key} not written (retrying every ${this.renewMs / 1000} s): ${(err as Error).message}`);
      }
    }
  }
}
