/**
 * Each language's test cases and benchmark programs, from its own folder: every
 * `domain/languages/<folder>/fixtures.ts` exports `fixtures` (domain/languages/fixtures.ts says
 * what they hold), found here by listing the folders, so that a new language's folder is all the
 * generic tests (test/sandbox/, test/families/multiple*.ts) and scripts/bench/bench-multiple.ts
 * need. They loop over `LANGUAGES` and ask `fixturesOf(id)`, which names what is missing.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { LanguageFixtures, ProcessFixtures } from '../../domain/languages/fixtures.js';
import type { RunnerKind } from '../../domain/languages/types.js';

const LANGUAGES_DIR = fileURLToPath(new URL('../../domain/languages/', import.meta.url));

/** A table of fixtures by language id, and the file each came from. */
export type FixturesTable = ReadonlyMap<string, { fixtures: LanguageFixtures; file: string }>;

async function discover(): Promise<FixturesTable> {
  const found = new Map<string, { fixtures: LanguageFixtures; file: string }>();
  for (const folder of readdirSync(LANGUAGES_DIR, { withFileTypes: true })) {
    if (!folder.isDirectory()) continue;
    const file = join(LANGUAGES_DIR, folder.name, 'fixtures.ts');
    if (!existsSync(file)) continue;
    const mod = (await import(pathToFileURL(file).href)) as { fixtures?: LanguageFixtures };
    const where = `domain/languages/${folder.name}/fixtures.ts`;
    if (!mod.fixtures) throw new Error(`${where} exports no \`fixtures\` (a LanguageFixtures of domain/languages/fixtures.ts)`);
    const earlier = found.get(mod.fixtures.language);
    if (earlier) throw new Error(`${where} and ${earlier.file} both declare the fixtures of language "${mod.fixtures.language}"`);
    found.set(mod.fixtures.language, { fixtures: mod.fixtures, file: where });
  }
  return found;
}

/** Every language folder's fixtures, by the language id each declares. */
export const LANGUAGE_FIXTURES: FixturesTable = await discover();

/**
 * What `languages` (LANGUAGES, or a test's table) lack of their fixtures in `table`: one message per
 * missing piece, naming the language and the file to write; empty when nothing is missing.
 */
export function missingFixtures(languages: Readonly<Record<string, { runner: RunnerKind }>>, table: FixturesTable): string[] {
  const missing: string[] = [];
  for (const [id, language] of Object.entries(languages)) {
    const entry = table.get(id);
    if (!entry) {
      missing.push(
        `language "${id}" has no fixtures: its folder under domain/languages/ needs a fixtures.ts exporting \`fixtures: LanguageFixtures<'${id}'>\` (docs/extending.md)`,
      );
      continue;
    }
    if (language.runner === 'process' && !entry.fixtures.process)
      missing.push(
        `language "${id}" runs on the process runner but ${entry.file} has no \`process\` fixtures (statuses, hostile, wellBehaved, bench)`,
      );
  }
  return missing;
}

/** The language's fixtures; throws naming the file to write when it has none. */
export function fixturesOf(id: string, table: FixturesTable = LANGUAGE_FIXTURES): LanguageFixtures {
  const entry = table.get(id);
  if (!entry) throw new Error(missingFixtures({ [id]: { runner: 'process' } }, table)[0]);
  return entry.fixtures;
}

/** A process-run language's process fixtures; throws naming the language and its file when they are missing. */
export function processFixturesOf(id: string, table: FixturesTable = LANGUAGE_FIXTURES): ProcessFixtures {
  const fixtures = fixturesOf(id, table);
  if (!fixtures.process)
    throw new Error(missingFixtures({ [id]: { runner: 'process' } }, new Map([[id, { fixtures, file: table.get(id)!.file }]]))[0]);
  return fixtures.process;
}

/** The ids of the languages whose toolchain may be missing here, each with why. */
export function toolchainsMayBeMissing(table: FixturesTable = LANGUAGE_FIXTURES): Map<string, string> {
  return new Map(
    [...table].flatMap(([id, { fixtures }]) => (fixtures.toolchainMayBeMissing ? [[id, fixtures.toolchainMayBeMissing]] : [])),
  );
}
