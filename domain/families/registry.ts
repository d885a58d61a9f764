/**
 * The registry of task families: one line per family, each a definition in its own folder (its id
 * is also listed in ids.ts, which stored problems refer to). A sweep config's dataset names its
 * family with `family:`; the entry is validated by that family's schema, its files read and its
 * rows loaded by that family, and every step that prompts, assembles or scores asks the family of
 * the problem at hand.
 */
import { z } from 'zod';
import type { SweepProblem } from '../datasets/problems.js';
import { LANGUAGES, type LanguageId } from '../languages/registry.js';
import type { Language } from '../languages/types.js';
import { appsFamily } from './apps/index.js';
import { ds1000Family } from './ds1000/index.js';
import { evalplusFamily } from './evalplus/index.js';
import { humanevalFamily } from './humaneval/index.js';
import { FAMILY_IDS, type FamilyId } from './ids.js';
import { mbppFamily } from './mbpp/index.js';
import { multiplEFamily } from './multipl-e/index.js';
import { pbeWorldFamily } from './pbe-world/index.js';
import { renamedLibraryFamily } from './renamed-library/index.js';
import { torchdataFamily } from './torchdata/index.js';
import type { DatasetEntryBase, EvaluateSupport, TaskFamily } from './types.js';

export const FAMILIES = {
  humaneval: humanevalFamily,
  'pbe-world': pbeWorldFamily,
  'renamed-library': renamedLibraryFamily,
  mbpp: mbppFamily,
  evalplus: evalplusFamily,
  apps: appsFamily,
  ds1000: ds1000Family,
  'multipl-e': multiplEFamily,
  torchdata: torchdataFamily,
} as const;

/** A family's dataset entry, as its schema resolves it. */
export type EntryOf<F extends FamilyId> = z.output<(typeof FAMILIES)[F]['entrySchema']>;

// Every id of ids.ts has a whole definition here, under its own id.
FAMILIES satisfies { [F in FamilyId]: EntryOf<F> extends DatasetEntryBase<F> ? TaskFamily<F, EntryOf<F>> : never };

/** A dataset entry of a sweep config, resolved: a tagged union over the families. */
export type DatasetEntry = { [F in FamilyId]: EntryOf<F> }[FamilyId];

export type AnyFamily = TaskFamily<FamilyId, DatasetEntry>;

/**
 * The family of a problem or a dataset entry. Its steps take the entry union: each family's entry
 * is the union member of its own tag, which is how callers reach it.
 */
export function familyOf(subject: Pick<SweepProblem, 'family'> | Pick<DatasetEntry, 'family'>): AnyFamily {
  const family = Object.prototype.hasOwnProperty.call(FAMILIES, subject.family) ? FAMILIES[subject.family] : undefined;
  if (!family) throw new Error(`unknown task family ${JSON.stringify(subject.family)} (known: ${FAMILY_IDS.join(', ')})`);
  return family as unknown as AnyFamily;
}

/** The families evaluate.ts recognises problems files by, in the order they are asked (EvaluateSupport.recognize). */
export function recognizingFamilies(): Array<{ id: FamilyId; recognize: NonNullable<Extract<EvaluateSupport, { kind: 'reads' }>['recognize']> }> {
  return Object.values(FAMILIES)
    .flatMap((f) => (f.evaluate.kind === 'reads' && f.evaluate.recognize ? [{ id: f.id, recognize: f.evaluate.recognize }] : []))
    .sort((a, b) => a.recognize.rank - b.recognize.rank);
}

/** The language a problem's programs are written in. */
export function languageOf(problem: SweepProblem): Language<LanguageId> {
  return LANGUAGES[familyOf(problem).language(problem)];
}

type EntrySchema = (typeof FAMILIES)[FamilyId]['entrySchema'];

/** Every family's dataset entry, by its `family:` tag. */
export const DatasetEntrySchema: z.ZodType<DatasetEntry, unknown> = z.discriminatedUnion(
  'family',
  Object.values(FAMILIES).map((f) => f.entrySchema) as [EntrySchema, ...EntrySchema[]],
);

export { FAMILY_IDS, type FamilyId };
