/** C++, MultiPL-E's `cpp`: compiled by g++ -std=c++17, the tests a `main` of asserts. */
import { multiplELanguage } from '../multiple.js';

export const cpp = multiplELanguage({
  id: 'cpp',
  name: 'C++',
  extension: 'cpp',
  stopWords: ['\n}'],
  fenceTags: ['cpp', 'c++', 'cxx', 'cc'],
  compiled: true,
});
