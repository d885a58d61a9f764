/**
 * Whether a language's programs can run here, for `scripts/evaluate.ts`: a process-run language's
 * toolchain is checked before its runner starts; a missing one is installed when this project can
 * (toolchain-install.ts), else refused naming the language, what is missing and how to install it
 * (Python's sandbox is checked when it starts).
 */
import { languageRunner, type LanguageId } from '../../domain/languages/registry.js';
import { toolchainFor } from '../../infra/sandbox/toolchainRegistry.js';
import { installToolchains } from './toolchain-install.js';

/** Why the language's programs cannot run here, or null when they can. */
export async function toolchainProblem(language: LanguageId): Promise<string | null> {
  const runsOn = languageRunner(language);
  if (runsOn.kind !== 'process') return null;
  const toolchain = toolchainFor(runsOn.language);
  let check = await toolchain.check();
  // Installed on first need where this project can (its lines on stderr), then checked again.
  if (!check.ok && (await installToolchains([runsOn.language], (line) => console.error(`evaluate: ${line}`))))
    check = await toolchain.check();
  return check.ok ? null : `language ${language} (${toolchain.name}) cannot run here: ${check.missing} is missing; ${check.install}`;
}
