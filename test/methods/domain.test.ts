/** The pure parts of the multi-step methods: parsing the model's plans and reranks, selection, visible tests. */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { resolvePythonExecutable } from '../../infra/sandbox/python.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { normalizeRow } from '../../domain/families/humanevalStyle.js';
import { parsePlan } from '../../methods/exploracoder/plan.js';
import { copiedDemo, pickPlannerExamples, plannerMessages, plannerTurn } from '../../methods/exploracoder/prompts.js';
import { taskRequirement } from '../../methods/exploracoder/requirement.js';
import { estimateMethodCost, findMethod, METHOD_NAMES } from '../../domain/methods/registry.js';
import { MethodOptionsSchema } from '../../domain/methods/options.js';
import { parseRerank } from '../../methods/exploracoder/rerank.js';
import { allFailed, selectCandidate } from '../../methods/exploracoder/selection.js';
import { visibleCases, visibleTestProgram } from '../../domain/methods/visibleTests.js';
import { generateTask } from '../../domain/pbe/generate.js';
import { resolvePbeParams } from '../../domain/pbe/params.js';
import { pyRepr } from '../../domain/pbe/pyrepr.js';

describe('parsePlan', () => {
  it('reads a numbered list among other text, in order, stopping at a second list', () => {
    const text = 'Sure! Here is the plan:\n\n1. Strip the ends.\n2) Replace ab with ba\n**3.** Upper-case it\n\nSummary:\n1. again\n';
    expect(parsePlan(text, 8)).toEqual({ subtasks: ['Strip the ends.', 'Replace ab with ba', 'Upper-case it'], cut: 0 });
  });
  it('cuts a long plan and says how much; no list is null', () => {
    const long = Array.from({ length: 10 }, (_, i) => `${i + 1}. step ${i + 1}`).join('\n');
    expect(parsePlan(long, 4)).toEqual({ subtasks: ['step 1', 'step 2', 'step 3', 'step 4'], cut: 6 });
    expect(parsePlan('I would first strip, then replace.', 4)).toBeNull();
    expect(parsePlan('2. starts at two\n3. then three', 4)).toBeNull();
  });
});

describe('parseRerank', () => {
  const offered = ['str.strip', 'str.rstrip', 'str.replace', 'str.upper'];
  it('keeps offered paths in the order named, never a path inside a longer one', () => {
    expect(parseRerank('str.rstrip\nstr.replace', offered, 5)).toEqual(['str.rstrip', 'str.replace']);
    expect(parseRerank('Use `str.replace`, then str.strip; str.replace again', offered, 5)).toEqual(['str.replace', 'str.strip']);
    expect(parseRerank('str.upper str.strip str.replace', offered, 2)).toEqual(['str.upper', 'str.strip']);
  });
  it('ignores invented APIs; naming none is null', () => {
    expect(parseRerank('str.reverse\nstr.title', offered, 5)).toBeNull();
    expect(parseRerank('NONE', offered, 5)).toBeNull();
  });
});

describe('selectCandidate', () => {
  const ok = (hasOutput: boolean) => ({ ok: true, hasOutput });
  const failed = { ok: false, hasOutput: true };
  it('prefers a passing candidate with output, then a passing one, then a failed one', () => {
    expect(selectCandidate([failed, ok(false), ok(true), ok(true)], 'prefer-passing', 0)).toBe(2);
    expect(selectCandidate([failed, ok(false)], 'prefer-passing', 0)).toBe(1);
    expect(selectCandidate([failed, failed], 'prefer-passing', 0)).toBe(0);
    expect(selectCandidate([{ ...failed, missing: true }, failed], 'prefer-passing', 0)).toBe(1);
    expect(selectCandidate([{ ...failed, missing: true }], 'prefer-passing', 0)).toBe(-1);
  });
  it('random selection is deterministic per seed and reaches every candidate', () => {
    const five = [failed, ok(false), ok(true), failed, ok(true)];
    const picks = Array.from({ length: 200 }, (_, seed) => selectCandidate(five, 'random', seed));
    expect(new Set(picks)).toEqual(new Set([0, 1, 2, 3, 4]));
    expect(Array.from({ length: 200 }, (_, seed) => selectCandidate(five, 'random', seed))).toEqual(picks);
    expect(allFailed([failed, failed])).toBe(true);
    expect(allFailed([failed, ok(false)])).toBe(false);
  });
});

describe('planner demos and template', () => {
  const demos = [
    {
      id: 'slug',
      requirement: 'Make a URL slug from a title, lower case with dashes.',
      subtasks: ['Convert to lower case using str.lower', 'Replace spaces using str.replace'],
    },
    { id: 'digits', requirement: 'Check whether a code consists of digits only.', subtasks: ['Test the digits using str.isdigit'] },
    { id: 'title', requirement: 'Write a name with capital initials.', subtasks: ['Capitalise each word using str.title'] },
  ];

  it('picks the demos most similar to the requirement (BM25), best first', () => {
    expect(pickPlannerExamples(demos, 'Does the code hold only digits?', 2).map((d) => d.id)).toEqual(['digits', 'slug']);
    expect(pickPlannerExamples(demos, 'a slug for a title, in lower case', 1).map((d) => d.id)).toEqual(['slug']);
    expect(pickPlannerExamples(demos, 'anything', 0)).toEqual([]);
    expect(pickPlannerExamples(demos, 'anything', 10)).toHaveLength(3);
  });

  it('puts each demo in its own user/assistant turns, in the template the target uses too', () => {
    const library = {
      name: 'python-str',
      summary: 'SUMMARY',
      docs: [{ import_path: 'str.lower', name: 'lower', signature: '', description: 'd' }],
      runtime: { kind: 'builtin' as const },
    };
    const messages = plannerMessages({ requirement: 'TARGET REQUIREMENT', library, demos: demos.slice(0, 2), withSummary: true });
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(messages[0]!.content).toContain('SUMMARY');
    expect(messages[1]!.content).toBe(plannerTurn(demos[0]!.requirement));
    expect(messages[2]!.content).toBe('1. Convert to lower case using str.lower\n2. Replace spaces using str.replace');
    expect(messages[5]!.content).toBe(plannerTurn('TARGET REQUIREMENT'));
    expect(plannerTurn('X')).toBe('[Task]\nX\n[Subtasks]');
    const bare = plannerMessages({ requirement: 'T', library, demos, withSummary: false });
    expect(bare.map((m) => m.role)).toEqual(['system', 'user']);
    expect(bare[0]!.content).not.toContain('SUMMARY');
  });

  it('tells a plan that copies a demo word for word', () => {
    expect(copiedDemo(['convert to lower case using str.lower.', 'Replace  spaces using str.replace'], demos)?.id).toBe('slug');
    expect(copiedDemo(['Convert to lower case using str.lower'], demos)).toBeUndefined();
  });

  it("states the target's requirement in words: PBE examples as a task, a stub's natural-language part", () => {
    const library = {
      name: 'm',
      summary: 's',
      docs: [{ import_path: 'm.f', name: 'f', signature: '', description: 'd' }],
      runtime: { kind: 'module' as const, module: 'zorp', source: 'x' },
    };
    const pbe: SweepProblem = {
      family: 'pbe-world',
      task_id: 't',
      entry_point: 'apply_pipeline',
      form: 'full',
      test: '',
      prompt: 'def apply_pipeline(s):\n    ...',
      examples: [
        { input: "'ab'", output: "'AB'" },
        { input: "'c'", output: "'C'" },
      ],
    };
    expect(taskRequirement(pbe, library)).toBe(
      "Write apply_pipeline(s) that transforms the string s the same fixed way as these examples: 'ab' becomes 'AB' and 'c' becomes 'C'. Use the zorp module.",
    );
    const stub: SweepProblem = {
      family: 'renamed-library',
      task_id: 'm/1',
      entry_point: 'f',
      form: 'completion',
      test: '',
      prompt: 'import monkey as mk\n# Drop the rows with missing values\ndef f(kf):\n    """Return the cleaned frame."""\n',
    };
    expect(taskRequirement(stub, library)).toBe('Drop the rows with missing values\nReturn the cleaned frame.');
  });
});

function runPython(program: string): { ok: boolean; stderr: string } {
  try {
    execFileSync(resolvePythonExecutable(), ['-c', program], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { ok: true, stderr: '' };
  } catch (err) {
    return { ok: false, stderr: String((err as { stderr?: string }).stderr ?? '') };
  }
}

describe('visible tests', () => {
  const task = generateTask(resolvePbeParams({ count: 3, seed: 9 }), 1);
  const problem: SweepProblem = normalizeRow(task as never, 'full', 'pbe-world');

  it('PBE World: the shown examples (never the hidden tests), checked in real Python', () => {
    expect(visibleCases(problem)).toHaveLength(task.examples.length);
    const good = visibleTestProgram(problem, task.canonical_solution);
    expect(runPython(good.solution + good.rest)).toEqual({ ok: true, stderr: '' });
    const bad = visibleTestProgram(problem, `def ${task.entry_point}(s):\n    return s + '#'\n`);
    const res = runPython(bad.solution + bad.rest);
    expect(res.ok).toBe(false);
    expect(res.stderr).toContain(`AssertionError: example 1: ${task.entry_point}(`);
    expect(res.stderr).toMatch(/returned '.*#', expected '/);
    for (const hidden of task.tests) expect(good.rest).not.toContain(`${task.entry_point}(${pyRepr(hidden.input)})`);
    for (const shown of task.examples) expect(good.rest).toContain(`${task.entry_point}(${pyRepr(shown.input)})`);
  });

  it('HumanEval-style prompts: doctests, both `>>> call` + expected line and `>>> call == value`', () => {
    const he: SweepProblem = {
      family: 'humaneval',
      task_id: 'x',
      entry_point: 'add',
      form: 'completion',
      test: '',
      prompt: 'def add(a, b):\n    """\n    >>> add(1, 2)\n    3\n    >>> add(2, 2) == 4\n    """\n',
    };
    expect(visibleCases(he)).toEqual([
      { call: 'add(1, 2)', expected: '3' },
      { call: 'add(2, 2) == 4', expected: null },
    ]);
    const wrong = visibleTestProgram(he, 'def add(a, b):\n    return a - b\n');
    expect(runPython(wrong.solution + wrong.rest).stderr).toContain('AssertionError: example 1: add(1, 2) returned -1, expected 3');
  });
});

describe('method names and estimates of issue 20', () => {
  it("the paper's ablations are switches that combine; the single-ablation names stay", () => {
    const spec = (name: string) => findMethod(name)!;
    expect(spec('exploracoder-debug-no-summary').variant).toEqual({
      debug: true,
      summaryAndExamples: false,
      explore: true,
      selection: 'prefer-passing',
    });
    expect(spec('exploracoder-debug-random-selection').variant).toMatchObject({ debug: true, selection: 'random' });
    expect(spec('exploracoder-debug-no-exploration').variant).toMatchObject({ debug: true, explore: false });
    expect(spec('exploracoder-no-summary-random-selection').variant).toEqual({
      debug: false,
      summaryAndExamples: false,
      explore: true,
      selection: 'random',
    });
    expect(findMethod('exploracoder-debug-no-exploration-random-selection')).toBeUndefined();
    const names = METHOD_NAMES.filter((n) => n.startsWith('exploracoder'));
    expect(names).toHaveLength(12);
    for (const n of ['capir', 'capir-self-repair', 'epigen']) expect(spec(n).kind).toBe('capir');
  });

  it("estimates follow the request protocols: CoAE over samples_per_request, the authors' debug, CAPIR's one generation", () => {
    const options = MethodOptionsSchema.parse({});
    // 4 assumed subtasks; m = 5 in requests of 5 choices: 1 per subtask.
    const explora = estimateMethodCost('exploracoder', 10, 2, options, 5);
    expect(explora.llmRequests).toBe(10 * (1 + 4 + 1 + 4) + 10);
    expect(explora.llmAnswers).toBe(10 * (1 + 4 + 1 + 20) + 20);
    // Debug: ceil(4 x 0.32) = 2 subtasks, one request each (sequential); all-at-once: m per round.
    expect(
      estimateMethodCost('exploracoder-debug', 10, 2, options).llmRequests - estimateMethodCost('exploracoder', 10, 2, options).llmRequests,
    ).toBe(10 * 2);
    const allAtOnce = MethodOptionsSchema.parse({ debug_mode: 'all-at-once', debug_rounds: 2 });
    expect(
      estimateMethodCost('exploracoder-debug', 10, 2, allAtOnce).llmRequests -
        estimateMethodCost('exploracoder', 10, 2, allAtOnce).llmRequests,
    ).toBe(10 * 2 * 5 * 2);
    expect(estimateMethodCost('capir', 10, 2, options)).toMatchObject({ llmRequests: 10 * (1 + 4) + 20, sandboxRuns: 20 });
    expect(estimateMethodCost('epigen', 10, 2, options).llmRequests).toBe(10 * (1 + 4) + 20);
    // Two requests (feedback, code) per assumed repair.
    expect(estimateMethodCost('capir-self-repair', 10, 2, options).llmRequests).toBe(10 * (1 + 4) + 20 + 20 * 2 * 2);
  });
});

describe("the paper's defaults", () => {
  it("method_options default to the paper: no real subtask cap, the authors' debug, global rerank over every candidate, masking, runtime-error repairs", () => {
    expect(MethodOptionsSchema.parse({})).toMatchObject({
      max_subtasks: 40,
      debug_rounds: 1,
      debug_temperature: 0,
      debug_mode: 'sequential',
      global_rerank: 'all-candidates',
      global_k: 15,
      planner_examples: 4,
      doc_masking: 'auto',
      repair_check: 'runtime-errors',
    });
  });

  it('runtime-errors repair checks only run the example calls: a wrong value passes, an exception fails (real Python)', () => {
    const task = generateTask(resolvePbeParams({ count: 2, seed: 9 }), 0);
    const problem: SweepProblem = normalizeRow(task as never, 'full', 'pbe-world');
    const wrong = visibleTestProgram(problem, `def ${task.entry_point}(s):\n    return s + '#'\n`, 'runtime-errors');
    expect(runPython(wrong.solution + wrong.rest)).toEqual({ ok: true, stderr: '' });
    const raising = visibleTestProgram(problem, `def ${task.entry_point}(s):\n    raise ValueError('no')\n`, 'runtime-errors');
    expect(runPython(raising.solution + raising.rest).stderr).toContain('ValueError: no');
    // The outputs check (not the paper's) fails the wrong value.
    const checked = visibleTestProgram(problem, `def ${task.entry_point}(s):\n    return s + '#'\n`, 'outputs');
    expect(runPython(checked.solution + checked.rest).ok).toBe(false);
  });
});
