/** Racket, MultiPL-E's `rkt`: run by `racket`, the tests rackunit checks (`check-within`). */
import { multiplELanguage } from '../multiple.js';

export const rkt = multiplELanguage({
  id: 'rkt',
  name: 'Racket',
  extension: 'rkt',
  stopWords: ['\n(define ', '\n#|', '\n;', '\n('],
  fenceTags: ['racket', 'rkt', 'scheme'],
  compiled: false,
});
