/**
 * MultiPL-E's language ids that explora runs, and what each is to explora: every process-run
 * language (domain/languages/, whose ids are MultiPL-E's own), so that a language added there is
 * one of MultiPL-E's here without a line of its own, and `py`, MultiPL-E's Python, which runs on
 * explora's Python sandbox.
 */
import { isProcessLanguageId, LANGUAGES, type LanguageId, type ProcessLanguageId } from '../../languages/registry.js';

const PROCESS_LANGUAGE_IDS = Object.keys(LANGUAGES).filter(isProcessLanguageId);

export type MultiplELanguageId = ProcessLanguageId | 'py';
/** In LANGUAGES' order, `py` last (a non-empty tuple, as zod's enum takes). */
export const MULTIPLE_LANGUAGE_IDS = (PROCESS_LANGUAGE_IDS as MultiplELanguageId[]).concat(['py']) as [
  MultiplELanguageId,
  ...MultiplELanguageId[],
];

interface MultiplELanguageInfo {
  runsAs: LanguageId;
  name: string;
  fence: string;
  stopWords: readonly string[];
}

export const MULTIPLE_LANGUAGES: Record<MultiplELanguageId, MultiplELanguageInfo> = {
  ...(Object.fromEntries(
    PROCESS_LANGUAGE_IDS.map((id) => [
      id,
      { runsAs: id, name: LANGUAGES[id].name, fence: LANGUAGES[id].fenceTag, stopWords: LANGUAGES[id].stopWords },
    ]),
  ) as Record<ProcessLanguageId, MultiplELanguageInfo>),
  // MultiPL-E's Python rows run on explora's Python sandbox.
  py: { runsAs: 'python', name: 'Python', fence: 'python', stopWords: ['\ndef', '\n#', '\nif', '\nclass'] },
};
