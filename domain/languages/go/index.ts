/**
 * Go, MultiPL-E's `go_test.go` (its id is the file name its programs need: a `*_test.go` file of a
 * `package <name>_test`, run by `go test`). The folder is named `go` for readability.
 */
import { multiplELanguage } from '../multiple.js';

export const go = multiplELanguage({
  id: 'go_test.go',
  name: 'Go',
  extension: 'go',
  stopWords: ['\nfunc', 'struct', '\n// '],
  fenceTags: ['go', 'golang'],
  compiled: true,
});
