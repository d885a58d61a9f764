/**
 * The multipl-e family on rows written in MultiPL-E's published format: programs assembled as
 * MultiPL-E's evaluator does (prompt + completion cut at the row's stop tokens + "\n" + tests),
 * the rows' language and stop tokens kept, and bad input refused naming file, line and field.
 */
import { describe, expect, it } from 'vitest';
import { FAMILIES, languageOf } from '../../domain/families/registry.js';
import { chatCompletion, MULTIPLE_LANGUAGE_IDS, multiplEFamily, type MultiplEEntry } from '../../domain/families/multipl-e/index.js';
import { isProcessLanguageId, LANGUAGES } from '../../domain/languages/registry.js';
import { stopWordsFor } from '../../domain/sweep/config.js';
import { addRow, COMPLETIONS, jsonl } from '../support/multiple-rows.js';

const family = FAMILIES['multipl-e'];

function load(language: MultiplEEntry['language'], text: string, source = 'humaneval.jsonl') {
  return family.load({
    entry: { name: 'm', family: 'multipl-e', path: source, language },
    texts: { rows: text },
    sources: { rows: source },
  });
}

describe('multipl-e rows', () => {
  it.each(MULTIPLE_LANGUAGE_IDS)(
    '%s: task id = name, language and stop tokens kept, program = prompt + cut completion + "\\n" + tests',
    (language) => {
      const row = addRow(language);
      const [problem] = load(language, jsonl([row])).problems;
      expect(problem).toMatchObject({
        family: 'multipl-e',
        task_id: 'HumanEval_53_add',
        entry_point: 'add',
        language,
        stop_tokens: row.stop_tokens,
        prompt: row.prompt,
      });
      const solution = family.solution(problem!, 'completions', COMPLETIONS[language].right);
      // Cut at the first stop token: what came after it (junk) is gone.
      expect(solution.startsWith(row.prompt)).toBe(true);
      expect(solution).not.toContain('kept past a stop token');
      const program = languageOf(problem!).assemble({ solution, tests: family.tests(problem!, null) });
      expect(program).toBe(`${solution}\n${row.tests}`);
      expect(languageOf(problem!).id).toBe(language === 'py' ? 'python' : language);
    },
  );

  it("a sweep's completion requests stop at the language's MultiPL-E stop tokens", () => {
    for (const language of MULTIPLE_LANGUAGE_IDS) {
      const entry = { name: 'm', family: 'multipl-e' as const, path: 'x.jsonl', language };
      expect(stopWordsFor({ api: 'completions' }, entry)).toEqual(addRow(language).stop_tokens);
    }
    expect(LANGUAGES.java.stopWords).toEqual(['\n    }\n']);
  });

  it('reads a JSON array, as well as JSON lines', () => {
    const rows = [addRow('rs', 1), addRow('rs', 2)];
    expect(load('rs', JSON.stringify(rows), 'x.json').problems.map((p) => p.task_id)).toEqual(['HumanEval_1_add', 'HumanEval_2_add']);
  });

  it("a chat answer's code is anchored after the prompt's signature line and cut at the stop tokens", () => {
    const [problem] = load('cpp', jsonl([addRow('cpp')])).problems;
    const code = `#include <bits/stdc++.h>\nlong add(long x, long y) {\n    return x + y;\n}\nint main() { return 1; }\n`;
    expect(chatCompletion(multiplEFamily.read(problem!), code)).toBe('    return x + y;');
    expect(family.solution(problem!, 'chat', code)).toBe(`${problem!.prompt}    return x + y;`);
  });
});

describe('bad MultiPL-E input is refused, naming the file, the line and the field', () => {
  it('a row missing a field', () => {
    const { tests: _tests, ...noTests } = addRow('js', 2);
    expect(() => load('js', jsonl([addRow('js', 1), noTests]), 'humaneval-js.jsonl')).toThrow(
      /humaneval-js\.jsonl:2: tests: missing: a MultiPL-E row has name, language, prompt/,
    );
    const { stop_tokens: _stop, ...noStop } = addRow('js', 2);
    expect(() => load('js', JSON.stringify([addRow('js', 1), noStop]), 'h.json')).toThrow(/h\.json: \[1\]: stop_tokens/);
  });

  it('an unknown language, in a row or in the dataset entry', () => {
    // Every process-run language of LANGUAGES, in its order, then Python's `py` (a new language is one without an edit here).
    const KNOWN = [...Object.keys(LANGUAGES).filter(isProcessLanguageId), 'py'].join(', ');
    expect(KNOWN).toMatch(/^js, ts, go_test\.go, rs, java, cpp, .*, py$/);
    expect(() => load('js', jsonl([addRow('js', 1), { ...addRow('js', 2), language: 'cobol' }]), 'h.jsonl')).toThrow(
      `h.jsonl:2: language: "cobol" is not one of MultiPL-E's languages explora runs (${KNOWN})`,
    );
    expect(() => load('js', jsonl([addRow('rs', 1)]), 'h.jsonl')).toThrow(
      /h\.jsonl:1: language: "rs" differs from the dataset entry's language js/,
    );
    const parsed = family.entrySchema.safeParse({ name: 'm', family: 'multipl-e', path: 'h.jsonl', language: 'cobol' });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain(`must be one of MultiPL-E's language ids: ${KNOWN}`);
  });

  it('a duplicate name', () => {
    expect(() => load('ts', jsonl([addRow('ts', 1), addRow('ts', 1)]), 'h.jsonl')).toThrow(
      /h\.jsonl:2: duplicate name HumanEval_1_add \(first on line 1\)/,
    );
  });
});
