/** Swift, MultiPL-E's `swift`: compiled by swiftc, the tests top-level `assert`s. */
import { multiplELanguage } from '../multiple.js';

export const swift = multiplELanguage({
  id: 'swift',
  name: 'Swift',
  extension: 'swift',
  stopWords: ['\n}'],
  fenceTags: ['swift'],
  compiled: true,
});
