/**
 * The process runner of `scripts/evaluate.ts` for MultiPL-E's languages other than Python, its
 * toolchain checked first: a missing one is installed when this project can (toolchain-install.ts),
 * else refused naming the language, what is missing and how to install it. Imported only when the problems need it.
 */
import type { ExecutionLimits } from '../../domain/execution/types.js';
import { ProcessExecutor } from '../../infra/sandbox/process/processExecutor.js';
import { isProcessLanguageId } from '../../domain/languages/registry.js';
import { toolchainFor } from '../../infra/sandbox/toolchainRegistry.js';
import { installToolchains } from './toolchain-install.js';

export async function processExecutorFor(
  language: string,
  options: { concurrency: number; limits: Partial<ExecutionLimits>; shareProcess?: boolean; forkServer?: boolean },
): Promise<ProcessExecutor> {
  if (!isProcessLanguageId(language)) throw new Error(`language ${language} has no process runner`);
  const toolchain = toolchainFor(language);
  let check = await toolchain.check();
  // Installed on first need where this project can (its lines on stderr), then checked again.
  if (!check.ok && (await installToolchains([language], (line) => console.error(`evaluate: ${line}`)))) check = await toolchain.check();
  if (!check.ok) throw new Error(`language ${language} (${toolchain.name}) cannot run here: ${check.missing} is missing; ${check.install}`);
  return new ProcessExecutor(toolchain, options);
}
