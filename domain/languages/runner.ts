/**
 * Which sandbox runs a language's programs, as the tagged union every caller switches on: a
 * runner kind a caller does not handle is a type error there, and a language whose runner this
 * code does not know (a cast, a table built at run time) throws. Nothing falls back to another
 * sandbox: a process-run language without its toolchain used to run in the Python sandbox.
 */
import type { LanguageRunner, ProcessLanguageIdOf, RunnerKind } from './types.js';

export class UnknownRunnerError extends Error {
  override name = 'UnknownRunnerError';
}

/** The runner of `id` in a table of languages (LANGUAGES, or a test's own). */
export function runnerOf<Table extends Record<string, { runner: RunnerKind }>>(
  languages: Table,
  id: keyof Table & string,
): LanguageRunner<ProcessLanguageIdOf<Table>> {
  const language = Object.prototype.hasOwnProperty.call(languages, id) ? languages[id] : undefined;
  if (!language)
    throw new UnknownRunnerError(`language ${JSON.stringify(id)} is not in the table of languages (domain/languages/registry.ts)`);
  const runner = language.runner;
  switch (runner) {
    case 'python-zygote':
      return { kind: 'python-zygote' };
    case 'process':
      // The table's type says the ids whose runner is 'process'; this is one of them.
      return { kind: 'process', language: id as ProcessLanguageIdOf<Table> };
    default:
      throw new UnknownRunnerError(
        `language ${JSON.stringify(id)} has runner ${JSON.stringify(runner satisfies never)}, which no sandbox implements`,
      );
  }
}
