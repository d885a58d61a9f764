/**
 * bigcode's `humaneval-unstripped` is the `humaneval` family as it stands: its completion prompt is
 * the row's prompt as written (every HumanEval prompt ends in a newline, 142 also begin with
 * whitespace), where bigcode's `humaneval` strips it. Checked on HumanEval's 164 rows against
 * bigcode's GeneralHumanEval written out in Python (test/families/humaneval_prompt_reference.py):
 * the prompts, the stop words, the solutions of raw completions (prompt + completion cut at the
 * first stop word) and the programs run equal bigcode's with strip_prompt=False, and differ from
 * its stripped prompts on every row. The entry's `strip_prompt: true` is bigcode's `humaneval`:
 * the same checks against strip_prompt=True.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readJsonlText } from '../../infra/sandbox/jsonlFile.js';
import { humanevalFamily } from '../../domain/families/humaneval/index.js';
import { truncateAtStopWords } from '../../domain/llm/extract.js';
import { LANGUAGES } from '../../domain/languages/registry.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { REFERENCE_DIR } from '../support/reference-data.js';

const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const FILE = path.join(REFERENCE_DIR, 'humaneval/HumanEval.jsonl.gz');
const text = readJsonlText(FILE);
const rows = text
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as { prompt: string; test: string; entry_point: string; canonical_solution: string });
const loadProblems = (strip_prompt?: boolean) =>
  humanevalFamily.load({
    entry: {
      name: 'he',
      family: 'humaneval',
      path: FILE,
      program_form: 'prompt_plus_completion',
      ...(strip_prompt === undefined ? {} : { strip_prompt }),
    },
    texts: { rows: text },
    sources: { rows: FILE },
  }).problems;
const problems = loadProblems();

/** A raw completion per task: the canonical body, then what a model writes on (every stop word, in turn, ends it). */
const STOPPERS = [
  '\ndef extra():\n    pass\n',
  '\nif __name__ == "__main__":\n    main()\n',
  '\nprint(1)\n',
  '\n# end\n',
  '\n```\n',
  '\nclass A:\n    pass\n',
];
const generations = rows.map((r, i) => `${r.canonical_solution}${STOPPERS[i % STOPPERS.length]}`);

interface Variant {
  prompts: string[];
  solutions: string[];
  programs: string[];
}
let reference: { stop_words: string[]; unstripped: Variant; stripped: Variant };

beforeAll(() => {
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'inherit' });
  const script = path.resolve(import.meta.dirname, 'humaneval_prompt_reference.py');
  reference = JSON.parse(execFileSync(PYTHON, [script], { input: JSON.stringify({ rows, generations }) }).toString()) as typeof reference;
}, 600_000);

describe("the humaneval family is bigcode's humaneval-unstripped", () => {
  it('the completion prompt is the row prompt, its trailing newline (and any leading whitespace) kept', () => {
    expect(problems).toHaveLength(164);
    const prompts = problems.map((p) => humanevalFamily.completionPrompt(p));
    expect(prompts).toEqual(reference.unstripped.prompts);
    expect(prompts.every((p) => p.endsWith('\n'))).toBe(true);
    expect(prompts.filter((p) => p !== p.trimStart())).toHaveLength(142);
    // bigcode's `humaneval` strips them: none is the same.
    expect(prompts.filter((p, i) => p === reference.stripped.prompts[i])).toEqual([]);
  });

  it("stop words, solutions of raw completions and the programs run are bigcode's with strip_prompt=False", () => {
    expect(humanevalFamily.stopWords({} as never)).toEqual(reference.stop_words);
    const stops = humanevalFamily.stopWords({} as never);
    const solutions = problems.map((p, i) => humanevalFamily.solution(p, 'completions', truncateAtStopWords(generations[i]!, stops)));
    expect(solutions).toEqual(reference.unstripped.solutions);
    // bigcode runs solution + "\n" + "\n" + test + "\n" + check(...); explora the same without the
    // blank line between the solution and the test, which Python does not read.
    const programs = problems.map((p, i) =>
      LANGUAGES.python.assemble({ solution: humanevalFamily.embedSolution(p, solutions[i]!), tests: humanevalFamily.tests(p, null) }),
    );
    expect(programs.map((program, i) => program.replace(`\n${problems[i]!.test}`, `\n\n${problems[i]!.test}`))).toEqual(
      reference.unstripped.programs,
    );
    // What is scored is the tests' outcome of that program: the family's status score.
    expect(humanevalFamily.checking(problems[0]!)).toEqual({ kind: 'tests' });
  });

  it('strip_prompt: false is the default', () => {
    expect(loadProblems(false)).toEqual(problems);
  });

  it('saved generations (bigcode saves prompt + completion) are the solution as they are', () => {
    problems.slice(0, 5).forEach((p, i) => {
      expect(humanevalFamily.solution(p, 'saved', reference.unstripped.solutions[i]!)).toBe(reference.unstripped.solutions[i]);
    });
  });
});

describe("strip_prompt: true is bigcode's humaneval", () => {
  const stripped = loadProblems(true);

  it("prompts, solutions of raw completions and programs are bigcode's with strip_prompt=True", () => {
    expect(stripped.map((p) => humanevalFamily.completionPrompt(p))).toEqual(reference.stripped.prompts);
    const stops = humanevalFamily.stopWords({} as never);
    const solutions = stripped.map((p, i) => humanevalFamily.solution(p, 'completions', truncateAtStopWords(generations[i]!, stops)));
    expect(solutions).toEqual(reference.stripped.solutions);
    const programs = stripped.map((p, i) =>
      LANGUAGES.python.assemble({ solution: humanevalFamily.embedSolution(p, solutions[i]!), tests: humanevalFamily.tests(p, null) }),
    );
    expect(programs.map((program, i) => program.replace(`\n${stripped[i]!.test}`, `\n\n${stripped[i]!.test}`))).toEqual(
      reference.stripped.programs,
    );
  });

  it('the stored problem says so; chat answers, saved generations and the reference solution are read as without it', () => {
    expect(stripped.every((p) => (p as { strip_prompt?: unknown }).strip_prompt === true)).toBe(true);
    expect(problems.some((p) => 'strip_prompt' in p)).toBe(false);
    const chat = '```python\ndef f():\n    return 1\n```';
    stripped.slice(0, 10).forEach((p, i) => {
      expect(humanevalFamily.solution(p, 'chat', '    return 1\n')).toBe(humanevalFamily.solution(problems[i]!, 'chat', '    return 1\n'));
      expect(humanevalFamily.solution(p, 'saved', chat)).toBe(chat);
      expect(humanevalFamily.referenceSolution(p)).toBe(humanevalFamily.referenceSolution(problems[i]!));
    });
  });

  it('a strip_prompt that is not a boolean is refused naming the field', () => {
    const parsed = humanevalFamily.entrySchema.safeParse({ name: 'he', family: 'humaneval', path: 'he.jsonl', strip_prompt: 'yes' });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path).toEqual(['strip_prompt']);
  });
});
