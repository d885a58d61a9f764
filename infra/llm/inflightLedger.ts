/**
 * One holder's entry in an in-flight ledger (domain/llm/inflight.ts), kept in S3 (an LLM cache
 * group's at `llm-cache/<group>/inflight.json`, an embedding endpoint's at
 * `embeddings/inflight/<endpoint hash>.json`) and changed only by compare-and-swap (conditional
 * writes), so two activities can never both believe they hold the same call.
 *
 * The usual case costs two S3 requests per activity that sends anything: the ledger is created
 * (If-None-Match) and deleted again (If-Match). Contention (the samples of one task explored at
 * once, two sweeps on the same cells) costs a re-read and a retry per lost race.
 */
import { randomBytes } from 'node:crypto';
import type { Info } from '@temporalio/activity';
import {
  EMPTY_LEDGER,
  heldByOthers,
  InflightLedgerSchema,
  isEmpty,
  LEASE_MS,
  withHolder,
  type InflightLedger,
} from '../../domain/llm/inflight.js';
import { deleteIfVersion, getVersioned, putIfVersion, type Bucket } from '../s3.js';

const RACE_ATTEMPTS = 50;

/**
 * An activity's name in in-flight ledgers: the same for every attempt of it, so a retry after a
 * crash takes its own entries over at once, and different for every other activity.
 */
export function activityHolderName(info: Info): string {
  const run = info.workflowExecution;
  return run ? `${run.workflowId}/${run.runId}/${info.activityId}` : `activity/${info.activityId}`;
}

export class InflightEntry {
  /** The ledger as last read or written, and its ETag (null: it does not exist); undefined: not known. */
  private known: { ledger: InflightLedger; etag: string | null } | undefined;
  private held: string[] = [];
  /** Ledger operations of this entry run one at a time (enter, renew and leave may overlap). */
  private queue: Promise<unknown> = Promise.resolve();
  private renewal: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly bucket: Bucket,
    /** The ledger's S3 key. */
    private readonly key: string,
    private readonly holder: string,
    /** Whether the ledger may exist (a listing showed it, or nobody looked); false: a listing just showed it does not, so the first write can create it without a read. */
    ledgerListed: boolean,
    /**
     * A holder that outlives this process (a provider batch, held from its submission to its
     * collection by several activities): its entry lasts `leaseMs`, is not renewed on a timer here,
     * and is renewed (`renewOwn`) and released (`releaseOwn`) by name from whichever process comes next.
     */
    private readonly outliving?: { leaseMs: number },
  ) {
    if (!ledgerListed) this.known = { ledger: EMPTY_LEDGER, etag: null };
  }

  private serial<T>(op: () => Promise<T>): Promise<T> {
    const run = this.queue.then(op, op);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async reload(): Promise<{ ledger: InflightLedger; etag: string | null }> {
    const found = await getVersioned(this.bucket, this.key);
    if (found === null) return (this.known = { ledger: EMPTY_LEDGER, etag: null });
    const parsed = InflightLedgerSchema.safeParse(JSON.parse(found.text));
    if (!parsed.success) throw new Error(`${this.key} is not an in-flight ledger: ${parsed.error.message}`);
    return (this.known = { ledger: parsed.data, etag: found.etag });
  }

  /** Writes the ledger with this entry holding `identities`; false when another write came first. */
  private async tryWrite(identities: readonly string[], now: number): Promise<boolean> {
    const known = this.known ?? (await this.reload());
    const next = withHolder(known.ledger, this.holder, identities, now, randomBytes(8).toString('hex'), this.outliving?.leaseMs);
    if (isEmpty(next)) {
      if (known.etag === null) return true;
      if (!(await deleteIfVersion(this.bucket, this.key, known.etag))) return false;
      this.known = { ledger: EMPTY_LEDGER, etag: null };
      return true;
    }
    const etag = await putIfVersion(this.bucket, this.key, JSON.stringify(next), known.etag);
    if (etag === null) return false;
    this.known = { ledger: next, etag };
    return true;
  }

  /** Retries `attempt` on lost races, re-reading the ledger each time, with a little jitter. */
  private async race<T>(attempt: () => Promise<T | undefined>): Promise<T> {
    for (let i = 0; i < RACE_ATTEMPTS; i++) {
      const result = await attempt();
      if (result !== undefined) return result;
      this.known = undefined;
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(250, 5 * 2 ** i)));
    }
    throw new Error(`lost ${RACE_ATTEMPTS} races in a row for ${this.key}`);
  }

  /**
   * Adds to this entry those of `wanted` that no other live holder has, and returns the ones they
   * have (this activity must not send those: it waits for them instead, see `othersHold`).
   */
  enter(wanted: readonly string[]): Promise<Set<string>> {
    return this.serial(() =>
      this.race(async () => {
        const known = this.known ?? (await this.reload());
        const now = Date.now();
        const others = heldByOthers(known.ledger, this.holder, now);
        const mine = [...new Set([...this.held, ...wanted.filter((i) => !others.has(i))])];
        if (!(await this.tryWrite(mine, now))) return undefined;
        this.held = mine;
        if (!this.renewal && !this.outliving) {
          this.renewal = setInterval(() => void this.renew(), LEASE_MS / 4);
          this.renewal.unref();
        }
        return new Set(wanted.filter((i) => others.has(i)));
      }),
    );
  }

  /** Whether other live holders still hold any of `identities` (read afresh). */
  othersHold(identities: readonly string[]): Promise<boolean> {
    return this.serial(async () => {
      const { ledger } = await this.reload();
      const others = heldByOthers(ledger, this.holder, Date.now());
      return identities.some((i) => others.has(i));
    });
  }

  private renew(): Promise<void> {
    return this.serial(async () => {
      if (this.held.length === 0) return;
      await this.race(async () => ((await this.tryWrite(this.held, Date.now())) ? true : undefined));
    }).catch((err) => {
      // The lease runs on; if S3 stays away longer than it, another activity may take these calls.
      console.warn(`renewing ${this.key} failed: ${(err as Error).message}`);
    });
  }

  /** Renews this holder's entry as the ledger has it (written by an earlier process under the same name); nothing when it has none. */
  renewOwn(): Promise<void> {
    return this.serial(() =>
      this.race(async () => {
        const { ledger } = await this.reload();
        const own = ledger.holders[this.holder]?.identities ?? [];
        if (own.length === 0) return true;
        return (await this.tryWrite(own, Date.now())) ? true : undefined;
      }),
    ).then(() => undefined);
  }

  /** Removes this holder's entry, whichever process wrote it. */
  releaseOwn(): Promise<void> {
    return this.serial(() =>
      this.race(async () => {
        await this.reload();
        return (await this.tryWrite([], Date.now())) ? true : undefined;
      }),
    ).then(() => void (this.held = []));
  }

  /** Removes this entry (call it once the answers of everything it held are stored). */
  leave(): Promise<void> {
    clearInterval(this.renewal);
    this.renewal = undefined;
    return this.serial(async () => {
      if (this.held.length === 0) return;
      await this.race(async () => ((await this.tryWrite([], Date.now())) ? true : undefined));
      this.held = [];
    });
  }
}
