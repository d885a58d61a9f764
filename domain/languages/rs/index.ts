/** Rust, MultiPL-E's `rs`: compiled by rustc, the tests a `fn main` of assert_eq!s. */
import { multiplELanguage } from '../multiple.js';

export const rs = multiplELanguage({
  id: 'rs',
  name: 'Rust',
  extension: 'rs',
  stopWords: ['\n}'],
  fenceTags: ['rust', 'rs'],
  compiled: true,
});
