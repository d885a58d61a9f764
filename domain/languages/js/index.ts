/** JavaScript, MultiPL-E's `js`: run by Node.js (infra/sandbox/process/toolchains/js.ts). */
import { multiplELanguage } from '../multiple.js';

export const js = multiplELanguage({
  id: 'js',
  name: 'JavaScript',
  extension: 'js',
  stopWords: ['\nfunction ', '\n/*', '\n//', '\nconsole.log'],
  fenceTags: ['javascript', 'js', 'node'],
  compiled: false,
});
