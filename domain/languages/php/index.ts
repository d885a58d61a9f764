/** PHP, MultiPL-E's `php`: interpreted by `php`, the tests a function that throws on a wrong answer. */
import { multiplELanguage } from '../multiple.js';

export const php = multiplELanguage({
  id: 'php',
  name: 'PHP',
  extension: 'php',
  stopWords: ['\nfunction', '\n?>', '\n//', '\n#'],
  fenceTags: ['php'],
  compiled: false,
});
