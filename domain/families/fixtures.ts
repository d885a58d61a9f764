/**
 * What a family carries for the tests beside its definition: each family's folder holds a
 * `fixtures.ts` exporting `onePathFixture`, the saved answers test/evaluate/one-path.e2e.test.ts
 * scores through a sweep and through evaluate.ts (test/support/family-fixtures.ts finds them by the
 * family's id), so that a new family needs no case in that shared test. Only tests import these
 * files, which may use test/support/'s rows (.dependency-cruiser.cjs allows it them alone): no
 * product entry point does, so they stay out of the product's bundles. A family evaluate.ts reads
 * without one fails the test, which names the file to write.
 */
import type { SweepProblem } from '../datasets/problems.js';
import type { PinText } from './pins.js';
import type { EvaluateOptionValues } from './types.js';

export interface OnePathFixture {
  /** The problems file's text: written out, or the first lines of a file of the reference data (../shared/reference). */
  text: PinText;
  /**
   * The family's options, as evaluate.ts's flags and as loadEvaluateProblems takes them; `dir` is a
   * fresh folder for any file they name (Spider's databases).
   */
  options?(dir: string): { flags: string[]; values: EvaluateOptionValues };
  /** Each task's saved answers; absent: its own dataset solution, then the next task's. */
  generations?(problems: readonly SweepProblem[]): string[][];
  /** evaluate.ts refuses the family here before anything runs (exit 2), its message containing this (what the sandbox lacks). */
  refusedNaming?: string;
  /** Peer files evaluate.ts must write for the family besides bigcode's (evalplus's eval_results.json). */
  peerFiles?: string[];
}
