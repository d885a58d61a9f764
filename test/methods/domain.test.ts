/** The pure parts of the multi-step methods: parsing the model's plans and reranks, selection, visible tests. */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { resolvePythonExecutable } from '../../infra/sandbox/python.js';
import { normalizeRow, type SweepProblem } from '../../domain/datasets/problems.js';
import { parsePlan } from '../../domain/methods/exploracoder/plan.js';
import { pickPlannerExamples } from '../../domain/methods/exploracoder/prompts.js';
import { parseRerank } from '../../domain/methods/exploracoder/rerank.js';
import { allFailed, selectCandidate } from '../../domain/methods/exploracoder/selection.js';
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

describe('pickPlannerExamples', () => {
  it('never shows a task its own example and rotates the others', () => {
    const all = Array.from({ length: 6 }, (_, i) => ({ task_id: `t${i}`, requirement: `r${i}`, subtasks: ['s'] }));
    for (let t = 0; t < 6; t++) {
      const picked = pickPlannerExamples(all, `t${t}`, t, 4);
      expect(picked).toHaveLength(4);
      expect(picked.map((e) => e.task_id)).not.toContain(`t${t}`);
      expect(new Set(picked.map((e) => e.task_id)).size).toBe(4);
    }
    expect(pickPlannerExamples(all.slice(0, 1), 't0', 0, 4)).toEqual([]);
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

  it("PBE World: the shown examples (never the hidden tests), checked in real Python", () => {
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
