/** MultiPL-E's language ids that explora runs, and what each is to explora. */
import { LANGUAGES, type LanguageId } from '../../languages/registry.js';

export const MULTIPLE_LANGUAGE_IDS = ['js', 'ts', 'go_test.go', 'rs', 'java', 'cpp', 'py'] as const;
export type MultiplELanguageId = (typeof MULTIPLE_LANGUAGE_IDS)[number];

export const MULTIPLE_LANGUAGES: Record<MultiplELanguageId, { runsAs: LanguageId; name: string; fence: string; stopWords: readonly string[] }> = {
  js: { runsAs: 'js', name: 'JavaScript', fence: 'javascript', stopWords: LANGUAGES['js'].stopWords },
  ts: { runsAs: 'ts', name: 'TypeScript', fence: 'typescript', stopWords: LANGUAGES['ts'].stopWords },
  'go_test.go': { runsAs: 'go_test.go', name: 'Go', fence: 'go', stopWords: LANGUAGES['go_test.go'].stopWords },
  rs: { runsAs: 'rs', name: 'Rust', fence: 'rust', stopWords: LANGUAGES['rs'].stopWords },
  java: { runsAs: 'java', name: 'Java', fence: 'java', stopWords: LANGUAGES['java'].stopWords },
  cpp: { runsAs: 'cpp', name: 'C++', fence: 'cpp', stopWords: LANGUAGES['cpp'].stopWords },
  // MultiPL-E's Python rows run on explora's Python sandbox.
  py: { runsAs: 'python', name: 'Python', fence: 'python', stopWords: ['\ndef', '\n#', '\nif', '\nclass'] },
};
