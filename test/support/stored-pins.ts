/**
 * The generic check of a family's stored-problem pins (domain/families/pins.ts): each family keeps
 * its own in its folder (`domain/families/<id>/pins.ts`), and test/families/stored-artefacts.test.ts
 * checks every family of the registry against them; a family without pins is named with the file
 * to write. What a pin covers: the bytes prepareSweepDataset stores for the pin's rows, and what
 * every step makes of the stored problems once read back (prompts, solutions, programs' parts,
 * limits, scores).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { SweepProblemSchema, type SweepProblem } from '../../domain/datasets/problems.js';
import { parseJsonl } from '../../domain/datasets/jsonl.js';
import type { PinText, StoredProblemPin } from '../../domain/families/pins.js';
import { familyOf, findFamily } from '../../domain/families/registry.js';
import type { TaskChecking } from '../../domain/families/types.js';

export const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
const ROOT = path.join(import.meta.dirname, '..', '..');
const REF = path.join(ROOT, '..', 'shared', 'reference');

/** Where a family's pins are: its folder's pins.ts (a test may place a throwaway family's elsewhere). */
export type PinsLocator = (family: string) => string;
export const pinsInFolder: PinsLocator = (family) => path.join(ROOT, 'domain', 'families', family, 'pins.ts');

/** The families of `families` whose pins file is missing, each named with the file to write. */
export function missingPins(families: readonly string[], locate: PinsLocator = pinsInFolder): string[] {
  return families
    .filter((family) => !existsSync(locate(family)))
    .map(
      (family) =>
        `family "${family}" has no stored-problem pins: ${path.relative(ROOT, locate(family))} must export \`storedPins: StoredProblemPin[]\` (domain/families/pins.ts)`,
    );
}

/** The family's pins; throws naming the file when it is missing or holds none. */
export async function storedPinsOf(family: string, locate: PinsLocator = pinsInFolder): Promise<StoredProblemPin[]> {
  const [missing] = missingPins([family], locate);
  if (missing) throw new Error(missing);
  const { storedPins } = (await import(pathToFileURL(locate(family)).href)) as { storedPins?: StoredProblemPin[] };
  if (!storedPins?.length) throw new Error(`${path.relative(ROOT, locate(family))} exports no \`storedPins\` (or none at all)`);
  return storedPins;
}

/** A pin's text (or a fixture's): written out, or read from the reference data. */
export function textOf(text: PinText): string {
  if (typeof text === 'string') return text;
  const bytes = readFileSync(path.join(REF, text.reference));
  const whole = (text.reference.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
  return text.firstLines === undefined ? whole : whole.split('\n').slice(0, text.firstLines).join('\n') + '\n';
}

/** The bytes prepareSweepDataset stores: each problem as the family loaded it, one JSON line each. */
function storedBytes(family: string, entry: unknown, texts: Record<string, string>): string {
  const sources = Object.fromEntries(Object.keys(texts).map((role) => [role, `fixture ${role}`]));
  const definition = findFamily(family) as unknown as { load(input: unknown): { problems: unknown[] } } | undefined;
  if (!definition) throw new Error(`family "${family}" is not in the registry`);
  return definition
    .load({ entry, texts, sources })
    .problems.map((p) => JSON.stringify(p) + '\n')
    .join('');
}

/** What a problem's checking makes of it: a run's program parts and score, or a text score (no run, nothing else asked). */
function checkingArtefacts(
  family: ReturnType<typeof familyOf>,
  problem: SweepProblem,
  checking: TaskChecking,
  outcome: { status: 'passed'; stdout: string },
): Record<string, unknown> {
  switch (checking.kind) {
    case 'tests':
      return {
        checking,
        tests: family.tests(problem, null),
        limits: family.limits(problem, null, 3000),
        score: family.score(problem, outcome),
      };
    case 'reference-outputs':
      return {
        checking: { kind: checking.kind, program: checking.program, limits: checking.limits, cacheKey: checking.cacheKey },
        score: family.score(problem, outcome),
      };
    case 'text':
      return {
        checking: { kind: checking.kind, metric: checking.metric.id, reference: checking.reference },
        score: [checking.reference, 'def f(x):\n    return x\n', ''].map((text) => checking.stats(text)),
      };
  }
}

/** What every step makes of a stored problem once read back: prompts, solutions, programs' parts, limits, scores. */
export function behaviour(problem: SweepProblem): unknown {
  const family = familyOf(problem);
  const checking = family.checking(problem);
  const outcome = { status: 'passed' as const, stdout: '' };
  return {
    core: [
      problem.task_id,
      problem.prompt,
      problem.entry_point,
      problem.test,
      problem.form,
      problem.canonical_solution ?? null,
      problem.examples ?? null,
    ],
    pipelineLength: family.pipelineLength(problem) ?? null,
    language: family.language(problem),
    completionPrompt: family.completionPrompt(problem),
    chatInstruction: family.chatInstruction(problem),
    solutions: (['completions', 'chat', 'saved'] as const).map((api) => family.solution(problem, api, 'def f(x):\n    return x\n')),
    reference: family.referenceSolution(problem),
    embedded: family.embedSolution(problem, 'SOLUTION\n'),
    ...checkingArtefacts(family, problem, checking, outcome),
    requirements: family.requirements(problem),
  };
}

/** The two hashes a pin holds, as the code computes them now. */
export function pinnedHashes(family: string, pin: Pick<StoredProblemPin, 'entry' | 'texts'>): { stored: string; behaviour: string } {
  const texts = Object.fromEntries(Object.entries(pin.texts).map(([role, text]) => [role, textOf(text)]));
  const stored = storedBytes(family, pin.entry, texts);
  const read = parseJsonl(stored, SweepProblemSchema, 'stored').map((r) => r.row);
  return { stored: sha(stored), behaviour: sha(JSON.stringify(read.map(behaviour))) };
}
