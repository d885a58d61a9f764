/** Bash, MultiPL-E's `sh`: interpreted by `bash`, the tests `[[ ... ]]` comparisons under `set -e`. */
import { multiplELanguage } from '../multiple.js';

export const sh = multiplELanguage({
  id: 'sh',
  name: 'Bash',
  extension: 'sh',
  stopWords: ['\n}'],
  fenceTags: ['bash', 'sh', 'shell'],
  compiled: false,
});
