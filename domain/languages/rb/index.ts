/** Ruby, MultiPL-E's `rb`: interpreted by `ruby`, the tests a Test::Unit case (test/unit). */
import { multiplELanguage } from '../multiple.js';

export const rb = multiplELanguage({
  id: 'rb',
  name: 'Ruby',
  extension: 'rb',
  stopWords: ['\nclass', '\ndef', '\n#', '\n\n'],
  fenceTags: ['ruby', 'rb'],
  compiled: false,
});
