/**
 * Which runner evaluate.ts starts before its problems are loaded (scripts/lib/evaluate-early-runner.ts):
 * the process runner of the language a MultiPL-E file's first row names, nothing (Python's) otherwise.
 */
import { describe, expect, it } from 'vitest';
import { processLanguageHint } from '../../scripts/lib/evaluate-early-runner.js';

const row = (language: string) => JSON.stringify({ name: 'HumanEval_0_f', language, prompt: 'p', tests: 't', stop_tokens: [] });

describe('processLanguageHint', () => {
  it("names a MultiPL-E file's process-run language from its first row, with or without --family multipl-e", () => {
    expect(processLanguageHint(`${row('go_test.go')}\n${row('go_test.go')}\n`, undefined)).toBe('go_test.go');
    expect(processLanguageHint(row('java'), 'multipl-e')).toBe('java');
  });
  it("names nothing for Python rows, other families' rows, another --family, JSON arrays and bad lines", () => {
    expect(processLanguageHint(row('py'), undefined)).toBeUndefined();
    expect(processLanguageHint(row('js'), 'humaneval')).toBeUndefined();
    expect(
      processLanguageHint(JSON.stringify({ task_id: 'HumanEval/0', prompt: 'p', test: 't', entry_point: 'f' }), undefined),
    ).toBeUndefined();
    expect(processLanguageHint(`[${row('js')}]`, undefined)).toBeUndefined();
    expect(processLanguageHint('{"name": "x", "language": "js", "tests": ', undefined)).toBeUndefined();
    expect(processLanguageHint(row('cobol'), undefined)).toBeUndefined();
    expect(processLanguageHint('', undefined)).toBeUndefined();
  });
});
