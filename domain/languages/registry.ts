/** The registry of languages: one line per language, each a definition in its own folder. */
import { cpp } from './cpp/index.js';
import { go } from './go/index.js';
import { java } from './java/index.js';
import { js } from './js/index.js';
import { python } from './python/index.js';
import { rs } from './rs/index.js';
import { ts } from './ts/index.js';
import type { Language } from './types.js';

export const LANGUAGES = {
  python,
  js,
  ts,
  'go_test.go': go,
  rs,
  java,
  cpp,
} as const;

export type LanguageId = keyof typeof LANGUAGES;

// Each entry is a whole language whose id is its key.
LANGUAGES satisfies { [K in LanguageId]: Language<K> };

export function isLanguageId(id: string): id is LanguageId {
  return Object.prototype.hasOwnProperty.call(LANGUAGES, id);
}
