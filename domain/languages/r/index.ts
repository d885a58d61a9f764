/** R, MultiPL-E's `r`: interpreted by `Rscript`, the tests `stopifnot(isTRUE(all.equal(...)))` calls. */
import { multiplELanguage } from '../multiple.js';

export const r = multiplELanguage({
  id: 'r',
  name: 'R',
  extension: 'r',
  stopWords: ['\n#', '\n```'],
  fenceTags: ['r', 'R'],
  compiled: false,
});
