/**
 * Which LLM calls of a cache group are being asked right now, and by whom: the in-flight ledger.
 *
 * The cache stops a finished request from being sent again; the ledger stops one that is still
 * waiting for its answer from being sent by someone else meanwhile: another sweep whose grid
 * overlaps this one (same dataset, model, method, temperature and seed), or another activity of the
 * same sweep. An activity enters the call identities it is about to send under its own name and
 * leaves when their answers are stored; whoever finds an identity held by a live entry waits for it
 * and then reads the answer from the cache.
 *
 * An entry is live for `leaseMs` after its holder last renewed it. A holder that died (worker
 * killed) is found again by its name: Temporal retries the same activity under the same name, which
 * takes its own entry over at once; nobody else waits longer than the lease.
 */
import { z } from 'zod';

/** How long an entry holds its calls without being renewed; holders renew every quarter of it. */
export const LEASE_MS = 2 * 60_000;

const EntrySchema = z.object({
  identities: z.array(z.string()),
  /** The holder's clock, epoch ms. Holders on other machines compare it with theirs: the lease is generous. */
  renewedAt: z.number(),
  leaseMs: z.number().int().positive(),
});

export const InflightLedgerSchema = z.object({
  /**
   * Random per write: the store's ETag is the body's hash, and two writes of the same body would
   * otherwise make a compare-and-swap mistake an old version for the current one.
   */
  version: z.string(),
  holders: z.record(z.string(), EntrySchema),
});
export type InflightLedger = z.infer<typeof InflightLedgerSchema>;

export const EMPTY_LEDGER: InflightLedger = { version: '', holders: {} };

export function isLive(entry: InflightLedger['holders'][string], now: number): boolean {
  return now < entry.renewedAt + entry.leaseMs;
}

/** Identities held by live entries of holders other than `holder`. */
export function heldByOthers(ledger: InflightLedger, holder: string, now: number): Set<string> {
  const out = new Set<string>();
  for (const [name, entry] of Object.entries(ledger.holders)) {
    if (name === holder || !isLive(entry, now)) continue;
    for (const identity of entry.identities) out.add(identity);
  }
  return out;
}

/**
 * The ledger with `holder` holding `identities` (renewed now), or without it when there are none;
 * expired entries of others are dropped on the way.
 */
export function withHolder(
  ledger: InflightLedger,
  holder: string,
  identities: readonly string[],
  now: number,
  version: string,
  /** How long the entry holds without renewal: LEASE_MS for an activity that renews it while it runs, longer for a batch (batch.ts). */
  leaseMs: number = LEASE_MS,
): InflightLedger {
  const holders: InflightLedger['holders'] = {};
  for (const [name, entry] of Object.entries(ledger.holders)) if (name !== holder && isLive(entry, now)) holders[name] = entry;
  if (identities.length > 0) holders[holder] = { identities: [...identities], renewedAt: now, leaseMs };
  return { version, holders };
}

export function isEmpty(ledger: InflightLedger): boolean {
  return Object.keys(ledger.holders).length === 0;
}
