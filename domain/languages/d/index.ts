/** D, MultiPL-E's `d`: compiled with its unittest blocks (ldc2 -unittest), the tests `assert`s in a `unittest` block. */
import { multiplELanguage } from '../multiple.js';

export const d = multiplELanguage({
  id: 'd',
  name: 'D',
  extension: 'd',
  stopWords: ['\n\n', '\nvoid', '\nbool', '\nint'],
  fenceTags: ['d', 'dlang'],
  compiled: true,
});
