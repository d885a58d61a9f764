/**
 * bigcode's instruct_wizard_humaneval through its family, on HumanEval's rows as published: the
 * prompts, the answers raw continuations become (bigcode's post-processing and WizardCoder's
 * clean_comp: fences, prose, `</s>`, a __main__ guard, "# Example usage", "Here's"), the programs
 * run (answer, newline, "\n" + test + "\n" + check(...)) equal bigcode's code written out in
 * test/families/wizard_humaneval_reference.py; the one place bigcode's code raises (a fence never
 * closed) is kept here. The runs' outcomes are compared in instruct-wizard-humaneval.e2e.test.ts.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cleanComp, instructWizardHumanEvalFamily as wizard } from '../../domain/families/instruct-wizard-humaneval/index.js';
import { LANGUAGES } from '../../domain/languages/registry.js';
import { loadEvaluateProblems, recognizeFamily } from '../../scripts/lib/evaluate-problems.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { jsonl } from '../support/repair-rows.js';
import { WIZARD_GENERATIONS, WIZARD_ROWS } from '../support/wizard-humaneval-rows.js';

const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const SCRIPT = path.resolve(import.meta.dirname, 'wizard_humaneval_reference.py');
const load = (text = jsonl(WIZARD_ROWS), source = 'HumanEval.jsonl') =>
  wizard.load({
    entry: { name: 'w', family: 'instruct-wizard-humaneval', path: source },
    texts: { rows: text },
    sources: { rows: source },
  }).problems;

let reference: { prompts: string[]; solutions: Array<Array<string | null>>; references: string[] };
beforeAll(() => {
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'inherit' });
  reference = JSON.parse(
    execFileSync(PYTHON, [SCRIPT], { input: JSON.stringify({ rows: WIZARD_ROWS, generations: WIZARD_GENERATIONS }) }).toString(),
  ) as typeof reference;
}, 600_000);

describe('instruct_wizard_humaneval', () => {
  it("prompts, answers of raw completions and the programs run are bigcode's", () => {
    const problems = load();
    expect(problems.map((p) => p.task_id)).toEqual(WIZARD_ROWS.map((r) => r.task_id));
    expect(problems.map((p) => wizard.completionPrompt(p))).toEqual(reference.prompts);
    // bigcode's task has no stop words: nothing is cut before the family's post-processing.
    expect(wizard.stopWords({} as never)).toEqual([]);
    const solutions = problems.map((p, t) => WIZARD_GENERATIONS[t]!.map((g) => wizard.solution(p, 'completions', g)));
    // bigcode raises on the fence never closed (task 0, sample 2): explora keeps the code after it, stripped as bigcode strips it.
    const expected = reference.solutions.map((s, t) =>
      s.map((solution) => solution ?? `\n${WIZARD_ROWS[t]!.prompt}${WIZARD_ROWS[t]!.canonical_solution}`.trimEnd()),
    );
    expect(reference.solutions[0]![2]).toBeNull();
    expect(solutions).toEqual(expected);
    problems.forEach((p, t) =>
      solutions[t]!.forEach((s) =>
        expect(LANGUAGES.python.assemble({ solution: s, tests: wizard.tests(p, null) })).toBe(`${s}\n${reference.references[t]}`),
      ),
    );
  });

  it("the cleaning's edge cases: prose and fences, </s>, the __main__ guard, Example usage, Here's", () => {
    const [first, second, third] = reference.solutions;
    expect(first![0]).toBe(`${WIZARD_ROWS[0]!.prompt}${WIZARD_ROWS[0]!.canonical_solution}`.trim());
    expect(second![0]).toBe(`${WIZARD_ROWS[1]!.prompt}${WIZARD_ROWS[1]!.canonical_solution}`.trim());
    expect(second![2]).toBe('');
    expect(third![0]).toBe('def truncate_number(number: float) -> float:\n    return number % 1.0');
    expect(cleanComp('x\n__name__ == "__main__"')).toBe('x\n__name__ == "__main__"');
  });

  it('chat answers and saved generations are the program; the reference solution is the whole function', () => {
    const [p] = load();
    expect(wizard.solution(p!, 'chat', 'def f():\n\treturn 1')).toBe('def f():\n\treturn 1');
    expect(wizard.solution(p!, 'saved', 'x')).toBe('x');
    expect(wizard.referenceSolution(p!)).toBe(WIZARD_ROWS[0]!.prompt + WIZARD_ROWS[0]!.canonical_solution);
    expect(wizard.checking(p!)).toEqual({ kind: 'tests' });
  });

  it("evaluate.ts reads HumanEval's rows by the task name (they are recognised as humaneval's otherwise)", () => {
    const text = jsonl(WIZARD_ROWS);
    expect(recognizeFamily(text, 'HumanEval.jsonl')).toBe('humaneval');
    const loaded = loadEvaluateProblems({ text, source: 'HumanEval.jsonl', family: 'instruct-wizard-humaneval' });
    expect(loaded).toMatchObject({ family: 'instruct-wizard-humaneval', form: 'full' });
    expect(loaded.problems).toEqual(load(text));
    expect(() => load(jsonl([{ ...WIZARD_ROWS[0], entry_point: undefined }]), 'h.jsonl')).toThrow(/^h\.jsonl:1: entry_point: /);
  });
});
