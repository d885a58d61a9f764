/** TypeScript, MultiPL-E's `ts`: compiled by tsc (a type error is a compile error), run by Node.js. */
import { multiplELanguage } from '../multiple.js';

export const ts = multiplELanguage({
  id: 'ts',
  name: 'TypeScript',
  extension: 'ts',
  stopWords: ['\nfunction ', '\n/*', '\n//', '\nclass'],
  fenceTags: ['typescript', 'ts'],
  compiled: true,
});
