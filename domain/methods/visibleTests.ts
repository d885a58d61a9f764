/**
 * The tests a method may look at while it works (self-repair's feedback): the task's shown examples,
 * never its hidden tests. PBE World rows list them (`examples`); HumanEval-style prompts show them
 * as doctests (`>>> f(x)` then the expected value, or `>>> f(x) == y`), which are parsed here. A task
 * with neither gets a check that the solution merely runs.
 */
import type { SweepProblem } from '../datasets/problems.js';
import { pyRepr } from '../pbe/pyrepr.js';

export interface VisibleCase {
  /** A Python expression calling the entry point. */
  call: string;
  /** A Python expression for the expected value, or null when `call` is itself a boolean check. */
  expected: string | null;
}

export function visibleCases(problem: SweepProblem): VisibleCase[] {
  if (problem.examples?.length) {
    return problem.examples.map((e) => ({ call: `${problem.entry_point}(${e.input})`, expected: e.output }));
  }
  const lines = problem.prompt.split('\n');
  const cases: VisibleCase[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^\s*>>>\s?(.*)$/.exec(lines[i]!);
    if (!m || !m[1]!.includes(`${problem.entry_point}(`)) continue;
    const next = lines[i + 1]?.trim() ?? '';
    if (next && !next.startsWith('>>>') && !next.startsWith('"""') && !next.startsWith("'''")) {
      cases.push({ call: m[1]!.trim(), expected: next });
      i++;
    } else {
      cases.push({ call: m[1]!.trim(), expected: null });
    }
  }
  return cases;
}

/** What a visible run checks: the expected outputs (our self-repair), or only that the calls run (the paper's). */
export type VisibleCheck = 'outputs' | 'runtime-errors';

/**
 * Python that checks a solution on the visible cases and raises on the first mismatch, saying what
 * came back: the feedback a repairing model gets.
 */
export function visibleTestProgram(
  problem: SweepProblem,
  solution: string,
  check: VisibleCheck = 'outputs',
): { solution: string; rest: string } {
  const cases = visibleCases(problem);
  // The paper's Self-Repair only calls the solution on the example inputs: a runtime error is the feedback.
  if (check === 'runtime-errors') return { solution, rest: `\n${cases.map((c) => `_got = ${c.call}`).join('\n')}\n` };
  const checks = cases.map((c, i) => {
    const label = pyRepr(`example ${i + 1}: ${c.call}`);
    if (c.expected === null) {
      return `_got = ${c.call}\nif not _got:\n    raise AssertionError(${label} + ' is ' + repr(_got) + ', expected True')`;
    }
    return (
      `_got = ${c.call}\n_want = ${c.expected}\n` +
      `if _got != _want:\n    raise AssertionError(${label} + ' returned ' + repr(_got) + ', expected ' + repr(_want))`
    );
  });
  return { solution, rest: `\n${checks.join('\n')}\n` };
}
