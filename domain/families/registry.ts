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
import { classificationFamily } from './classification/index.js';
import { codeToTextFamily } from './code-to-text/index.js';
import { ds1000Family } from './ds1000/index.js';
import { evalplusFamily } from './evalplus/index.js';
import { humanevalFamily } from './humaneval/index.js';
import { FAMILY_IDS, type FamilyId } from './ids.js';
import { mbppFamily } from './mbpp/index.js';
import { multiplEFamily } from './multipl-e/index.js';
import { palFamily } from './pal/index.js';
import { pbeWorldFamily } from './pbe-world/index.js';
import { renamedLibraryFamily } from './renamed-library/index.js';
import { santaCoderFimFamily } from './santacoder-fim/index.js';
import { torchdataFamily } from './torchdata/index.js';
import { conalaFamily } from './conala/index.js';
import { concodeFamily } from './concode/index.js';
import { spiderFamily } from './spider/index.js';
import { textToTextFamily } from './text-to-text/index.js';
import type { AnyScoreKind } from '../scoring/scoreKind.js';
import { liveCodeBenchFamily } from './livecodebench/index.js';
import { quixBugsFamily } from './quixbugs/index.js';
import { parityFamily } from './parity/index.js';
import { pythonBugsFamily } from './python-bugs/index.js';
import { instructWizardHumanEvalFamily } from './instruct-wizard-humaneval/index.js';
import { instructHumanEvalFamily } from './instruct-humaneval/index.js';
import { humanEvalExplainFamily } from './humanevalexplain/index.js';
import { humanEvalPackFamily } from './humanevalpack/index.js';
import { recodeFamily } from './recode/index.js';
import { mercuryFamily } from './mercury/index.js';
import { studentEvalFamily } from './studenteval/index.js';
import { bigCodeBenchFamily } from './bigcodebench/index.js';
import type { CorpusMetric, DatasetEntryBase, EntrySchema, EvaluateSupport, FlagMeta, TaskFamily } from './types.js';

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
  pal: palFamily,
  classification: classificationFamily,
  conala: conalaFamily,
  concode: concodeFamily,
  spider: spiderFamily,
  'code-to-text': codeToTextFamily,
  'santacoder-fim': santaCoderFimFamily,
  'text-to-text': textToTextFamily,
  livecodebench: liveCodeBenchFamily,
  quixbugs: quixBugsFamily,
  parity: parityFamily,
  'python-bugs': pythonBugsFamily,
  'instruct-wizard-humaneval': instructWizardHumanEvalFamily,
  'instruct-humaneval': instructHumanEvalFamily,
  humanevalpack: humanEvalPackFamily,
  recode: recodeFamily,
  mercury: mercuryFamily,
  studenteval: studentEvalFamily,
  humanevalexplain: humanEvalExplainFamily,
  bigcodebench: bigCodeBenchFamily,
} as const;

/** A family's dataset entry, as its schema resolves it. */
export type EntryOf<F extends FamilyId> = z.output<(typeof FAMILIES)[F]['entrySchema']>;

// Every id of ids.ts has a whole definition here, under its own id.
FAMILIES satisfies { [F in FamilyId]: EntryOf<F> extends DatasetEntryBase<F> ? TaskFamily<F, EntryOf<F>> : never };

/** A dataset entry of a sweep config, resolved: a tagged union over the families. */
export type DatasetEntry = { [F in FamilyId]: EntryOf<F> }[FamilyId];

export type AnyFamily = TaskFamily<FamilyId, DatasetEntry>;

/** A family that scripts/evaluate.ts recognises problems files of (EvaluateSupport.recognize). */
export type RecognizingFamily = { id: FamilyId; recognize: NonNullable<Extract<EvaluateSupport, { kind: 'reads' }>['recognize']> };

/** A family option of scripts/evaluate.ts, as the registry collects them (EvaluateOptionsSchema). */
export interface EvaluateFlag {
  /** Its key in the families' schemas (their entries' field, when declared by familyOptions). */
  key: string;
  /** `--` and the key in kebab case (or the declaration's `flag`). */
  flag: string;
  /** commander's name of the flag's value (the flag in camel case). */
  attribute: string;
  value: string;
  /** The help line: the families that read it and its help (`a, b only: ...`), or each family's (`a: ...; b: ...`). */
  help: string;
  folder: boolean;
  /** A file evaluate.ts reads: the schema parses `{path, text}` (FlagMeta `file`). */
  file: boolean;
  /** Parses the flag's text (or a value given in code): the families' one schema; undefined when they differ (each family's parses it). */
  schema: z.ZodType | undefined;
  /** The families that read it. */
  families: string[];
}

/** A key's flag: `--` and the key in kebab case (`minTimeLimit`, `min_time_limit`: `--min-time-limit`). */
function flagOf(key: string, meta: FlagMeta): string {
  return `--${meta.flag ?? key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`).replaceAll('_', '-')}`;
}

/**
 * What every step asks of the registry, over a set of families: FAMILIES below, or in a test that
 * proves a new family plugs in with one more line (test/families/throwaway-family.test.ts).
 */
export function createRegistry(families: Readonly<Record<string, AnyFamily>>) {
  const ids = () => Object.keys(families);
  /** The family of an id, or undefined when none has it. */
  const findFamily = (id: string): AnyFamily | undefined => (Object.prototype.hasOwnProperty.call(families, id) ? families[id] : undefined);
  /** The family of a problem or a dataset entry; its steps take the entry union, whose member of its tag is its own entry. */
  function familyOf(subject: Pick<SweepProblem, 'family'> | Pick<DatasetEntry, 'family'>): AnyFamily {
    const family = findFamily(subject.family);
    if (!family) throw new Error(`unknown task family ${JSON.stringify(subject.family)} (known: ${ids().join(', ')})`);
    return family;
  }
  // The corpus metrics by id, as the families declare them: one metric per id across the families.
  const metricsById = new Map<string, CorpusMetric>();
  for (const family of Object.values(families))
    for (const metric of family.corpusMetrics ?? []) {
      const known = metricsById.get(metric.id);
      if (known && known !== metric)
        throw new Error(`family ${family.id} declares a corpus metric ${metric.id}, another family's metric's id`);
      metricsById.set(metric.id, metric);
    }
  // The score kinds the families declare (FamilyDefinition.scoreKinds): one declaration per kind's name across the families.
  const scoreKinds: AnyScoreKind[] = [];
  for (const family of Object.values(families))
    for (const kind of family.scoreKinds ?? []) {
      if (scoreKinds.includes(kind)) continue;
      const known = scoreKinds.find((k) => k.sampleKind === kind.sampleKind || k.cellKind === kind.cellKind);
      if (known)
        throw new Error(`family ${family.id} declares a score kind ${kind.sampleKind} (${kind.cellKind}), another declaration's name`);
      scoreKinds.push(kind);
    }
  // Every family's own evaluate.ts options by key: one flag and value name per key across the families; their
  // schemas and helps may differ (`--subset` is a language for one family, a language pair for another).
  const flags = new Map<string, EvaluateFlag & { helps: Map<string, string[]> }>();
  for (const family of Object.values(families)) {
    const schema = family.evaluate.kind === 'reads' ? family.evaluate.options : undefined;
    for (const [key, option] of Object.entries(schema?.shape ?? {})) {
      const meta = (option as z.ZodType).meta() as FlagMeta | undefined;
      if (!meta?.description || !meta.value)
        throw new Error(`family ${family.id}: evaluate option ${key} has no .meta({ description, value }) (FlagMeta)`);
      const flag = flagOf(key, meta);
      const known = flags.get(key);
      if (
        known &&
        (known.flag !== flag ||
          known.value !== meta.value ||
          known.folder !== (meta.folder === true) ||
          known.file !== (meta.file === true))
      )
        throw new Error(
          `family ${family.id} declares evaluate option ${key} as ${flag} <${meta.value}>, which ${known.families.join(', ')} declare as ${known.flag} <${known.value}>` +
            `${known.folder !== (meta.folder === true) ? ' (a folder for one, not for the other)' : ''}`,
        );
      if (known) {
        known.families.push(family.id);
        known.helps.set(meta.description, [...(known.helps.get(meta.description) ?? []), family.id]);
        if (known.schema !== option) known.schema = undefined;
      } else
        flags.set(key, {
          key,
          flag,
          attribute: flag.slice(2).replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase()),
          value: meta.value,
          help: meta.description,
          folder: meta.folder === true,
          file: meta.file === true,
          schema: option as z.ZodType,
          families: [family.id],
          helps: new Map([[meta.description, [family.id]]]),
        });
    }
  }
  const evaluateFlagList: EvaluateFlag[] = [...flags.values()].map(({ helps, ...flag }) => ({
    ...flag,
    help:
      helps.size === 1
        ? `${flag.families.join(', ')} only: ${flag.help}`
        : [...helps].map(([help, ids]) => `${ids.join(', ')}: ${help}`).join('; '),
  }));
  return {
    /**
     * The family that reads a bigcode-evaluation-harness task name (`--tasks`), with the options and
     * cell settings the name implies; undefined for a name no family declares (EvaluateSupport bigcodeTasks).
     */
    bigcodeTask: (
      task: string,
    ): { family: FamilyId; options: Readonly<Record<string, unknown>>; cell: Readonly<Record<string, unknown>> } | undefined => {
      for (const family of Object.values(families)) {
        const read = family.evaluate.kind === 'reads' ? family.evaluate.bigcodeTasks?.read(task) : null;
        if (read) return { family: family.id, options: read.options ?? {}, cell: read.cell ?? {} };
      }
      return undefined;
    },
    /** Every family's bigcode task names, for messages. */
    bigcodeTaskNames: (): string[] =>
      Object.values(families).flatMap((f) =>
        f.evaluate.kind === 'reads' && f.evaluate.bigcodeTasks ? [f.evaluate.bigcodeTasks.names] : [],
      ),
    /** The families' own options of scripts/evaluate.ts (EvaluateSupport `options`), in registry order: its flags. */
    evaluateFlags: (): EvaluateFlag[] => evaluateFlagList,
    findFamily,
    /**
     * The corpus metric with this id among the families' declarations (FamilyDefinition.corpusMetrics),
     * or undefined when no family declares one: what a comparison recomputes a stored cell's metric with.
     */
    corpusMetricById: (id: string): CorpusMetric | undefined => metricsById.get(id),
    /** The score kinds the families declare, each once, in registry order (domain/scoring/scoreKinds.ts adds the shared ones). */
    declaredScoreKinds: (): readonly AnyScoreKind[] => scoreKinds,
    /** Every family, in registry order. */
    allFamilies: (): AnyFamily[] => Object.values(families),
    /** The keys of a cell's record that say what part of its dataset it is over (FamilySteps cellScopeFields), across the families. */
    cellScopeFields: (): readonly string[] => [...new Set(Object.values(families).flatMap((f) => f.cellScopeFields ?? []))],
    familyOf,
    /** The language a problem's programs are written in. */
    languageOf: (problem: SweepProblem): Language<LanguageId> => LANGUAGES[familyOf(problem).language(problem)],
    /** The families evaluate.ts recognises problems files by, in the order they are asked. */
    recognizingFamilies: (): RecognizingFamily[] =>
      Object.values(families)
        .flatMap((f) => (f.evaluate.kind === 'reads' && f.evaluate.recognize ? [{ id: f.id, recognize: f.evaluate.recognize }] : []))
        .sort((a, b) => a.recognize.rank - b.recognize.rank),
    /** Every family's dataset entry, by its `family:` tag (each entry schema is a strict object with a literal `family`: EntrySchema). */
    DatasetEntrySchema: z.discriminatedUnion(
      'family',
      Object.values(families).map((f) => f.entrySchema as unknown as EntrySchema) as [EntrySchema, ...EntrySchema[]],
    ) as unknown as z.ZodType<DatasetEntry, unknown>,
  };
}

// Every family of FAMILIES is a TaskFamily of its own entry (checked above); seen from the steps, its entry is the union's member of its tag.
export const {
  bigcodeTask,
  bigcodeTaskNames,
  evaluateFlags,
  findFamily,
  corpusMetricById,
  declaredScoreKinds,
  allFamilies,
  cellScopeFields,
  familyOf,
  languageOf,
  recognizingFamilies,
  DatasetEntrySchema,
} = createRegistry(FAMILIES as unknown as Record<FamilyId, AnyFamily>);

export { FAMILY_IDS, type FamilyId };
