/** Perl, MultiPL-E's `pl`: interpreted by `perl`, the tests Test::Deep's eq_deeply, `exit 1` on a wrong answer. */
import { multiplELanguage } from '../multiple.js';

export const pl = multiplELanguage({
  id: 'pl',
  name: 'Perl',
  extension: 'pl',
  stopWords: ['\nsub', '\n#', '\n\n'],
  fenceTags: ['perl', 'pl'],
  compiled: false,
});
