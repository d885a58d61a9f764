/**
 * The families `scripts/evaluate.ts` reads, by name only: its flags are checked with these before
 * the families themselves are imported (evaluate-problems.ts), which happens while the sandbox
 * starts.
 */
import type { MbppSplit } from '../../domain/families/mbpp/index.js';

/** What `--family` accepts. */
export const EVALUATE_FAMILIES = ['humaneval', 'mbpp', 'pbe-world', 'evalplus', 'apps', 'ds1000', 'multipl-e', 'torchdata'] as const;
export type EvaluateFamily = (typeof EVALUATE_FAMILIES)[number];

/** What `--split` accepts (MBPP's). */
export const MBPP_SPLIT_NAMES = ['all', 'test', 'validation', 'train', 'prompt'] as const satisfies readonly MbppSplit[];

/** How a sample's completion becomes the solution: it continues the prompt, or it is the whole solution. */
export type SampleForm = 'completion' | 'full';

/** Why a family named with `--family` cannot be evaluated here, or null when it can. */
export function unsupportedFamily(family: string): string | null {
  if ((EVALUATE_FAMILIES as readonly string[]).includes(family)) return null;
  if (family === 'renamed-library') {
    return (
      'renamed-library is not read by evaluate.ts: its problems need the library keywords and name-mapping files, which a problems file does not carry; ' +
      'evaluate its generations with a sweep (start-sweep --evaluate-only --load-generations)'
    );
  }
  return `expected one of ${EVALUATE_FAMILIES.join(', ')}, got ${JSON.stringify(family)}`;
}
