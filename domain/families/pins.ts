/**
 * What a family's stored problems must stay (docs/workflow-versions.md): running sweeps have stored
 * them, so for fixed rows the bytes prepareSweepDataset stores (the problems as the family loads
 * them, one JSON line each) and what every step makes of them once read back (prompts, programs'
 * parts, limits, scores) are pinned as sha256 hashes. Each family keeps its pins in its folder,
 * `domain/families/<id>/pins.ts` exporting `storedPins`; test/families/stored-artefacts.test.ts
 * checks every family of the registry against its own, and names a family that has none. Only
 * that test imports these files.
 */

/** A file's text for a pin: written out, or lines of a file of the reference data (../shared/reference). */
export type PinText = string | { reference: string; firstLines?: number };

export interface StoredProblemPin {
  /** What the pin covers, in a few words (the test names a pin that changed by it). */
  case: string;
  /** The dataset entry as a sweep config resolves it. */
  entry: unknown;
  /** The texts of the entry's files, by role (`rows`, `api_docs`, ...). */
  texts: Record<string, PinText>;
  /** sha256 of the stored problems' bytes. */
  stored: string;
  /** sha256 of what every step makes of them once read back. */
  behaviour: string;
}

/** JSON Lines text of the given lines, each ended by a newline. */
export const jsonLines = (lines: readonly string[]): string => lines.map((line) => line + '\n').join('');
