/** Scala, MultiPL-E's `scala`: an `object Problem` compiled by scalac (Scala 2.11, as MultiPL-E's image), the tests `assert`s in its `main`. */
import { multiplELanguage } from '../multiple.js';

export const scala = multiplELanguage({
  id: 'scala',
  name: 'Scala',
  extension: 'scala',
  stopWords: ['\n    }\n'],
  fenceTags: ['scala'],
  compiled: true,
});
