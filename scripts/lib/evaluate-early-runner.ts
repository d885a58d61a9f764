/**
 * Which runner `scripts/evaluate.ts` starts before the problems' family has been imported and their
 * rows read: a MultiPL-E row names its language, so a file whose first JSON line is such a row
 * with a process-run language starts that language's toolchain at once, in parallel with the rest,
 * instead of the Python sandbox (whose zygote would only compete for the CPU and be closed).
 * Only a guess: evaluate.ts still takes the runner from the loaded problems and replaces a wrong one.
 */
import { isProcessLanguageId, type ProcessLanguageId } from '../../domain/languages/registry.js';

export function processLanguageHint(problemsText: string, family: string | undefined): ProcessLanguageId | undefined {
  if (family !== undefined && family !== 'multipl-e') return undefined;
  const end = problemsText.indexOf('\n');
  const firstLine = (end === -1 ? problemsText : problemsText.slice(0, end)).trim();
  if (!firstLine.startsWith('{')) return undefined;
  let row: unknown;
  try {
    row = JSON.parse(firstLine);
  } catch {
    return undefined;
  }
  if (typeof row !== 'object' || row === null) return undefined;
  const { language, tests, name } = row as Record<string, unknown>;
  if (typeof language !== 'string' || typeof tests !== 'string' || typeof name !== 'string') return undefined;
  return isProcessLanguageId(language) ? language : undefined;
}
