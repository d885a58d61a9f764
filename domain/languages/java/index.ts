/** Java, MultiPL-E's `java`: a `class Problem` in Problem.java, compiled by javac with javatuples on the classpath, run with assertions on. */
import { multiplELanguage } from '../multiple.js';

export const java = multiplELanguage({
  id: 'java',
  name: 'Java',
  extension: 'java',
  stopWords: ['\n    }\n'],
  fenceTags: ['java'],
  compiled: true,
});
