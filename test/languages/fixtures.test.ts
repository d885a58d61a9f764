/**
 * Every language carries its test cases and benchmark programs in its own folder
 * (domain/languages/<folder>/fixtures.ts, typed by domain/languages/fixtures.ts), and the generic
 * tests find them there: a language of `LANGUAGES` without them fails here, naming the language and
 * the file to write, before any generic test reaches it.
 */
import { describe, expect, it } from 'vitest';
import { MULTIPLE_LANGUAGES } from '../../domain/families/multipl-e/languages.js';
import { LANGUAGES } from '../../domain/languages/registry.js';
import { LANGUAGE_FIXTURES, missingFixtures } from '../support/language-fixtures.js';

describe("each language's fixtures, in its folder", () => {
  it('every language of LANGUAGES has its fixtures, and a process-run one its process fixtures', () => {
    expect(missingFixtures(LANGUAGES, LANGUAGE_FIXTURES)).toEqual([]);
  });

  it('no fixtures for a language that is not in LANGUAGES', () => {
    expect([...LANGUAGE_FIXTURES.keys()].filter((id) => !(id in LANGUAGES))).toEqual([]);
  });

  it("each names MultiPL-E's id of its language, and its row's stop tokens are the ones MultiPL-E's family uses for it", () => {
    for (const [id, { fixtures, file }] of LANGUAGE_FIXTURES) {
      const multiplE = Object.entries(MULTIPLE_LANGUAGES).find(([, info]) => info.runsAs === id);
      expect(multiplE?.[0], file).toBe(fixtures.multiple.id);
      expect(fixtures.multiple.row.stop, file).toEqual(multiplE?.[1].stopWords);
    }
  });

  it('a process-run language has three benchmark programs (none where its toolchain may be missing), each made distinct by its suffix', () => {
    for (const [, { fixtures, file }] of LANGUAGE_FIXTURES) {
      if (!fixtures.process) continue;
      if (!fixtures.toolchainMayBeMissing) expect(fixtures.process.bench.rows.length, file).toBeGreaterThanOrEqual(3);
      expect(fixtures.process.bench.distinct(1), file).not.toBe(fixtures.process.bench.distinct(2));
    }
  });
});
