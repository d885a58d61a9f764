/**
 * The warm strategies' common shape: one per MultiPL-E language, each compiling (where the
 * language compiles) and running one program per call, in the jail of jail.ts, with the statuses
 * MultiPL-E's evaluator gives (`OK`, `Exception`, `Timeout`, `SyntaxError` for anything that does
 * not compile). A strategy may keep a long-lived compiler (start/close); calls may overlap, one
 * per concurrency slot.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type MultiplStatus = 'OK' | 'Exception' | 'Timeout' | 'SyntaxError';

export interface WarmOutcome {
  status: MultiplStatus;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  compileMs: number;
  runMs: number;
}

/** A concurrency slot: its uid and its private directory for one program at a time. */
export interface Slot {
  index: number;
  uid: number;
}

export interface WarmStrategy {
  readonly language: string;
  start(): Promise<void>;
  evaluate(program: string, slot: Slot, timeouts?: { compileMs: number; runMs: number }): Promise<WarmOutcome>;
  close(): Promise<void>;
}

export const DEFAULT_TIMEOUTS = { compileMs: 30_000, runMs: 15_000 };

/** First uid of the jails; slot i runs as BASE_UID + 1 + i, long-lived compilers as BASE_UID. */
export const BASE_UID = 61000;
export const SERVER_UID = BASE_UID;
export const slotUid = (index: number): number => BASE_UID + 1 + index;

const isRoot = process.getuid?.() === 0;

/** Host directory holding the jobs of one strategy: traversable, not listable by the jails. */
export function jobsRoot(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `explora-${prefix}-`));
  chmodSync(dir, 0o711);
  return dir;
}

/** A fresh private directory for one job, owned by `uid` (when we are root). */
export function freshJobDir(root: string, name: string, uid: number): string {
  const dir = join(root, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { mode: 0o700 });
  if (isRoot) chownSync(dir, uid, uid);
  return dir;
}

/** Hands a job directory and what is in it (compiler output) to another uid. */
export function chownTree(dir: string, uid: number): void {
  if (!isRoot) return;
  chownSync(dir, uid, uid);
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) chownTree(path, uid);
    else chownSync(path, uid, uid);
  }
}

export function removeJobDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
