/**
 * Refuses, before anything runs, problems whose language's toolchain is not installed: names the
 * dataset, the language, what is missing and how to install it.
 */
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { familyOf } from '../../domain/families/registry.js';
import { languageRunner } from '../../domain/languages/registry.js';
import { toolchainFor } from './toolchainRegistry.js';

/**
 * The process languages the problems use that cannot run here, each with why; empty when all can.
 * Their checks run side by side (a sweep over MultiPL-E's languages waits for the slowest, not the sum).
 */
export async function missingToolchains(problems: readonly SweepProblem[]): Promise<Array<{ language: string; message: string }>> {
  // Tasks scored from their text run nothing: their language needs no toolchain here.
  const languages = new Set(problems.filter((p) => familyOf(p).checking(p).kind !== 'text').map((p) => familyOf(p).language(p)));
  const verdicts = await Promise.all(
    [...languages].sort().map(async (language) => {
      const runner = languageRunner(language);
      switch (runner.kind) {
        case 'python-zygote':
          // The Python sandbox's own needs (its interpreter, a dataset's libraries) are checked apart (scripts/lib/requirements.ts).
          return undefined;
        case 'process': {
          const toolchain = toolchainFor(runner.language);
          const check = await toolchain.check();
          return check.ok
            ? undefined
            : {
                language,
                message: `language ${language} (${toolchain.name}) cannot run here: ${check.missing} is missing; ${check.install}`,
              };
        }
      }
    }),
  );
  return verdicts.filter((v) => v !== undefined);
}
