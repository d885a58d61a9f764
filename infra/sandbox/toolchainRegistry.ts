/**
 * The toolchain of each process-run language (domain/languages/, `runner: 'process'`), by language
 * id: its plain toolchain (process/toolchains/<id>.ts: MultiPL-E's own commands, sandboxed) and,
 * where one exists, its warm toolchain (warm/warmToolchains.ts: the plain one with a faster compile
 * step, or a shared-process run, and the same outcomes; docs/benchmarks.md#multipl-e-languages).
 * The table's type comes from LANGUAGES: a process-run language without an entry, or an entry for
 * no such language, is a type error. This module sits above process/ and warm/, which never import it.
 */
import { type ProcessLanguageId } from '../../domain/languages/registry.js';
import type { Toolchain } from './process/contract.js';
import { cppToolchain } from './process/toolchains/cpp.js';
import { csToolchain } from './process/toolchains/cs.js';
import { dToolchain } from './process/toolchains/d.js';
import { goToolchain } from './process/toolchains/go.js';
import { javaToolchain } from './process/toolchains/java.js';
import { jlToolchain } from './process/toolchains/jl.js';
import { jsToolchain } from './process/toolchains/js.js';
import { luaToolchain } from './process/toolchains/lua.js';
import { rToolchain } from './process/toolchains/r.js';
import { rbToolchain } from './process/toolchains/rb.js';
import { phpToolchain } from './process/toolchains/php.js';
import { plToolchain } from './process/toolchains/pl.js';
import { shToolchain } from './process/toolchains/sh.js';
import { rktToolchain } from './process/toolchains/rkt.js';
import { rsToolchain } from './process/toolchains/rs.js';
import { scalaToolchain } from './process/toolchains/scala.js';
import { swiftToolchain } from './process/toolchains/swift.js';
import { tsToolchain } from './process/toolchains/ts.js';
import {
  warmCppToolchain,
  warmCsToolchain,
  warmDToolchain,
  warmGoToolchain,
  warmJavaToolchain,
  warmJsToolchain,
  warmRsToolchain,
  warmScalaToolchain,
  warmTsToolchain,
} from './warm/warmToolchains.js';

export interface ToolchainEntry {
  /** MultiPL-E's own commands in the sandbox: the baseline, and what a language without a warm toolchain runs with. */
  plain: () => Toolchain;
  /** Optional: the same outcomes, faster. */
  warm?: () => Toolchain;
}

/** One entry per process-run language of a table of languages (ProcessLanguageIdOf), none other. */
export type ToolchainTable<Id extends string> = { readonly [K in Id]: ToolchainEntry };

export const TOOLCHAINS = {
  js: { plain: jsToolchain, warm: warmJsToolchain },
  ts: { plain: tsToolchain, warm: warmTsToolchain },
  'go_test.go': { plain: goToolchain, warm: warmGoToolchain },
  rs: { plain: rsToolchain, warm: warmRsToolchain },
  java: { plain: javaToolchain, warm: warmJavaToolchain },
  cpp: { plain: cppToolchain, warm: warmCppToolchain },
  lua: { plain: luaToolchain },
  rb: { plain: rbToolchain },
  php: { plain: phpToolchain },
  pl: { plain: plToolchain },
  sh: { plain: shToolchain },
  r: { plain: rToolchain },
  rkt: { plain: rktToolchain },
  d: { plain: dToolchain, warm: warmDToolchain },
  jl: { plain: jlToolchain },
  swift: { plain: swiftToolchain },
  scala: { plain: scalaToolchain, warm: warmScalaToolchain },
  cs: { plain: csToolchain, warm: warmCsToolchain },
} as const satisfies ToolchainTable<ProcessLanguageId>;

export class ToolchainNotRegisteredError extends Error {
  override name = 'ToolchainNotRegisteredError';
}

/**
 * The toolchain `id` runs with from a table (TOOLCHAINS, or a test's): the warm one where there is
 * one, or the plain one when asked. An id without an entry (only possible past the types) throws.
 */
export function toolchainFrom<Id extends string>(
  table: ToolchainTable<Id>,
  id: Id,
  variant: 'warm-if-any' | 'plain' = 'warm-if-any',
): Toolchain {
  const entry: ToolchainEntry | undefined = Object.prototype.hasOwnProperty.call(table, id) ? table[id] : undefined;
  if (!entry)
    throw new ToolchainNotRegisteredError(
      `language ${JSON.stringify(id)} runs on the process runner but has no toolchain in infra/sandbox/toolchainRegistry.ts`,
    );
  return variant === 'plain' || !entry.warm ? entry.plain() : entry.warm();
}

/** The toolchain a process-run language runs with (its warm one where it has one). */
export function toolchainFor(id: ProcessLanguageId): Toolchain {
  return toolchainFrom(TOOLCHAINS, id);
}

/** The language's plain toolchain (benchmarks and tests compare the warm ones with it). */
export function plainToolchainFor(id: ProcessLanguageId): Toolchain {
  return toolchainFrom(TOOLCHAINS, id, 'plain');
}
