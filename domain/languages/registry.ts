/** The registry of languages: one line per language, each a definition in its own folder. */
import { python } from './python/index.js';
import type { Language } from './types.js';

export const LANGUAGES = {
  python,
} as const;

export type LanguageId = keyof typeof LANGUAGES;

// Each entry is a whole language whose id is its key.
LANGUAGES satisfies { [K in LanguageId]: Language<K> };

