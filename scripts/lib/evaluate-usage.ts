/** A bad input to scripts/evaluate.ts (flags, rows, task ids), named: it exits 2. */
export class UsageError extends Error {}
