/**
 * Which candidate of a subtask becomes the experience carried forward. The paper keeps a
 * successfully executed candidate, preferring one whose output says something; failing that, a
 * failed one (its error is still information). The `random` ablation picks any candidate.
 */

export interface CandidateOutcome {
  /** Ran to the end without an exception. */
  ok: boolean;
  /** Printed something other than whitespace. */
  hasOutput: boolean;
  /** No snippet came back from the model (an LLM error): never selected while others exist. */
  missing?: boolean;
}

export type SelectionMode = 'prefer-passing' | 'random';

/** Index of the selected candidate, or -1 when there is none to select. `seed` drives `random`. */
export function selectCandidate(outcomes: CandidateOutcome[], mode: SelectionMode, seed: number): number {
  const present = outcomes.map((o, i) => ({ o, i })).filter(({ o }) => !o.missing);
  if (present.length === 0) return -1;
  if (mode === 'random') return present[mulberry(seed) % present.length]!.i;
  const withOutput = present.find(({ o }) => o.ok && o.hasOutput);
  if (withOutput) return withOutput.i;
  const ok = present.find(({ o }) => o.ok);
  if (ok) return ok.i;
  return present[0]!.i;
}

/** One step of a small integer hash: deterministic in workflows (no Math.random there anyway). */
function mulberry(seed: number): number {
  let t = (seed + 0x6d2b79f5) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return (t ^ (t >>> 14)) >>> 0;
}

/** True when every present candidate failed: ExploraCoder* then asks the model to debug them. */
export function allFailed(outcomes: CandidateOutcome[]): boolean {
  return outcomes.every((o) => !o.ok);
}
