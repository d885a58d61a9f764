/**
 * Each family's test fixtures, from its own folder: `domain/families/<id>/fixtures.ts` exports
 * `onePathFixture` (domain/families/fixtures.ts says what it holds), found here by the family's id,
 * so that a new family's folder is all test/evaluate/one-path.e2e.test.ts needs. A family without
 * one is named with the file to write.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { OnePathFixture } from '../../domain/families/fixtures.js';

const ROOT = path.join(import.meta.dirname, '..', '..');
const fixturesFile = (family: string) => path.join(ROOT, 'domain', 'families', family, 'fixtures.ts');

/** The family's one-path fixture, or the message naming the file to write (and what it must export). */
export async function onePathFixtureOf(family: string): Promise<OnePathFixture | string> {
  const file = fixturesFile(family);
  const where = path.relative(ROOT, file);
  const missing = `family "${family}" has no one-path fixture: ${where} must export \`onePathFixture: OnePathFixture\` (domain/families/fixtures.ts)`;
  if (!existsSync(file)) return missing;
  const mod = (await import(pathToFileURL(file).href)) as { onePathFixture?: OnePathFixture };
  return mod.onePathFixture ?? missing;
}
