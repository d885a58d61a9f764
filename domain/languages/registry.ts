import { cpp } from './cpp/index.js';
import { cs } from './cs/index.js';
import { d } from './d/index.js';
import { go } from './go/index.js';
import { java } from './java/index.js';
import { jl } from './jl/index.js';
import { js } from './js/index.js';
import { lua } from './lua/index.js';
import { php } from './php/index.js';
import { pl } from './pl/index.js';
import { python } from './python/index.js';
import { r } from './r/index.js';
import { rb } from './rb/index.js';
import { rkt } from './rkt/index.js';
import { rs } from './rs/index.js';
import { scala } from './scala/index.js';
import { runnerOf } from './runner.js';
import { sh } from './sh/index.js';
import { swift } from './swift/index.js';
import { ts } from './ts/index.js';
import type { Language, LanguageRunner, ProcessLanguageIdOf } from './types.js';

export const LANGUAGES = {
  python,
  js,
  ts,
  'go_test.go': go,
  rs,
  java,
  cpp,
  lua,
  rb,
  php,
  pl,
  sh,
  r,
  rkt,
  d,
  jl,
  swift,
  scala,
  cs,
} as const;

export type LanguageId = keyof typeof LANGUAGES;

/**
 * The languages whose programs run on the sandbox's process runner: each must have a toolchain
 * (infra/sandbox/toolchainRegistry.ts's TOOLCHAINS is typed against this, so one missing is a type error).
 */
export type ProcessLanguageId = ProcessLanguageIdOf<typeof LANGUAGES>;

// Each entry is a whole language whose id is its key.
LANGUAGES satisfies { [K in LanguageId]: Language<K> };

export function isLanguageId(id: string): id is LanguageId {
  return Object.prototype.hasOwnProperty.call(LANGUAGES, id);
}

export function isProcessLanguageId(id: string): id is ProcessLanguageId {
  return isLanguageId(id) && languageRunner(id).kind === 'process';
}

/** Which sandbox runs the language's programs (switch on `kind`; the process id comes narrowed). */
export function languageRunner(id: LanguageId): LanguageRunner<ProcessLanguageId> {
  return runnerOf(LANGUAGES, id);
}
