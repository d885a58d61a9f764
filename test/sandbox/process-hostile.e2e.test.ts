/**
 * Hostile programs in every process-run language of `LANGUAGES` (each language's own, from its
 * folder: domain/languages/<folder>/fixtures.ts), on the real toolchains and the real sandbox,
 * through the generic suite (test/support/hostile-suite.ts says what each must give). All languages
 * run at once (one executor each), so the whole file takes about as long as its slowest language.
 */
import { describe, expect, it } from 'vitest';
import { isProcessLanguageId, LANGUAGES as ALL_LANGUAGES } from '../../domain/languages/registry.js';
import { toolchainFor } from '../../infra/sandbox/toolchainRegistry.js';
import { describeHostile } from '../support/hostile-suite.js';
import { processFixturesOf } from '../support/language-fixtures.js';
import { MAY_BE_MISSING, runnableOf } from '../support/multiple-rows.js';

/** Every process-run language whose toolchain is here (its fixtures' toolchainMayBeMissing says which may not be). */
const PROCESS_LANGUAGES = Object.keys(ALL_LANGUAGES).filter(isProcessLanguageId);
const LANGUAGES = await runnableOf(PROCESS_LANGUAGES);

describeHostile(
  LANGUAGES.map((language) => {
    const { hostile, wellBehaved } = processFixturesOf(language);
    return { language, toolchain: toolchainFor(language), hostile, wellBehaved };
  }),
);

describe('the languages the hostile programs ran in', () => {
  it('every language ran but those whose toolchain this machine may lack (Julia, Swift)', () => {
    for (const language of PROCESS_LANGUAGES) if (!LANGUAGES.includes(language)) expect(MAY_BE_MISSING).toContain(language);
  });
});
