/**
 * MultiPL-E rows for tests, in the exact shape MultiPL-E's dataset builder publishes
 * (`{name, language, prompt, doctests, original, prompt_terminology, tests, stop_tokens}`): its
 * HumanEval_53_add ("Add two numbers x and y") in each of its languages, as MultiPL-E's own
 * translators make it: each language carries its row in its folder (domain/languages/<folder>/fixtures.ts).
 * `addRow(language, n)` makes the task under the name HumanEval_<n>_add with `(task n)` in its
 * comment, so that several rows of one file differ.
 *
 * For each language, completions as a completion model would return them (running past the stop
 * tokens, which must cut them): right, wrong, one that does not compile, and a hostile one (also
 * from its fixtures).
 */
import { MULTIPLE_LANGUAGE_IDS, type MultiplELanguageId } from '../../domain/families/multipl-e/index.js';
import { MULTIPLE_LANGUAGES } from '../../domain/families/multipl-e/languages.js';
import type { CompletionKind, MultiplEFixtures } from '../../domain/languages/fixtures.js';
import { isProcessLanguageId } from '../../domain/languages/registry.js';
import { toolchainFor } from '../../infra/sandbox/toolchainRegistry.js';
import { fixturesOf, toolchainsMayBeMissing } from './language-fixtures.js';

export interface MultiplERowFixture {
  name: string;
  language: MultiplELanguageId;
  prompt: string;
  doctests: string;
  original: string;
  prompt_terminology: string;
  tests: string;
  stop_tokens: string[];
}

function row(language: MultiplELanguageId, n: number, prompt: string, tests: string, stop: string[]): MultiplERowFixture {
  return {
    name: `HumanEval_${n}_add`,
    language,
    prompt,
    doctests: 'transform',
    original: '../datasets/originals-with-cleaned-doctests/HumanEval_53_add.py',
    prompt_terminology: 'reworded',
    tests,
    stop_tokens: stop,
  };
}

/** The fixtures of MultiPL-E's language `id` (its language's folder: domain/languages/<folder>/fixtures.ts). */
function multiplEFixtures(id: MultiplELanguageId): MultiplEFixtures {
  const runsAs = MULTIPLE_LANGUAGES[id].runsAs;
  const fixtures = fixturesOf(runsAs);
  if (fixtures.multiple.id !== id)
    throw new Error(`the fixtures of language "${runsAs}" are MultiPL-E's "${fixtures.multiple.id}", not "${id}"`);
  return fixtures.multiple;
}

/**
 * HumanEval_53_add as MultiPL-E's own translators write it, in every language (each language's
 * fixtures, `multiple.row`): prompt, tests and stop tokens byte for byte.
 */
const TRANSLATED = Object.fromEntries(MULTIPLE_LANGUAGE_IDS.map((id) => [id, multiplEFixtures(id).row])) as Record<
  MultiplELanguageId,
  MultiplEFixtures['row']
>;

/**
 * Rows several of one file: each task is HumanEval_<n>_add, and (n != 53) the translator's prompt
 * gets ` (task n)` after its first line's text, so that every row's prompt differs; n = 53 is the
 * translator's row as it is.
 */
export function addRow(language: MultiplELanguageId, n = 53): MultiplERowFixture {
  const made = TRANSLATED[language];
  const prompt = n === 53 ? made.prompt : made.prompt.replace('Add two numbers x and y', `Add two numbers x and y (task ${n})`);
  return row(language, n, prompt, made.tests, made.stop);
}

export type { CompletionKind };

/**
 * A completion of each kind, as a model returns it (each language's fixtures, `multiple.completions`):
 * the body, then text past a stop token that would break the program if it were kept. `hostile` is
 * a different attack per language; each passes only if the sandbox contained it (`HOSTILE_PASSES`)
 * or must time out / run out of memory.
 */
export const COMPLETIONS = Object.fromEntries(MULTIPLE_LANGUAGE_IDS.map((id) => [id, multiplEFixtures(id).completions])) as Record<
  MultiplELanguageId,
  Record<CompletionKind, string>
>;

/** Whether the language's hostile completion passes once contained (else it must time out or run out of memory). */
export const HOSTILE_PASSES = Object.fromEntries(MULTIPLE_LANGUAGE_IDS.map((id) => [id, multiplEFixtures(id).hostilePasses])) as Record<
  MultiplELanguageId,
  boolean
>;

export function jsonl(rows: readonly object[]): string {
  return rows.map((r) => JSON.stringify(r) + '\n').join('');
}

/**
 * Languages declared whose toolchain this project cannot install from the registries it reaches
 * (their fixtures' `toolchainMayBeMissing`: Julia and Swift, not in Debian bookworm). The tests run
 * every other language and fail when one of those cannot run here; these are run where installed,
 * else their refusal is tested.
 */
export const MAY_BE_MISSING: readonly MultiplELanguageId[] = MULTIPLE_LANGUAGE_IDS.filter((id) =>
  toolchainsMayBeMissing().has(MULTIPLE_LANGUAGES[id].runsAs),
);

/** Whether the language's toolchain is there (py's is the Python sandbox, always). */
export async function runnableHere(language: MultiplELanguageId): Promise<boolean> {
  return !isProcessLanguageId(language) || (await toolchainFor(language).check()).ok;
}

/** The languages of `languages` whose toolchains are there, checked side by side. */
export async function runnableOf<L extends MultiplELanguageId>(languages: readonly L[]): Promise<L[]> {
  const here = await Promise.all(languages.map(runnableHere));
  return languages.filter((_, k) => here[k]);
}
