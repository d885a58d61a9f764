/** APPS rows: loading codeparrot/apps's format, bigcode's prompt, the difficulty split, and bad rows named by file, line and field. */
import { describe, expect, it } from 'vitest';
import { appsFamily, AppsEntrySchema, type AppsEntry } from '../../domain/families/apps/index.js';
import { APPS_TASKS, appsJsonl } from '../support/apps-rows.js';

const entry = (extra: Partial<AppsEntry> = {}): AppsEntry => AppsEntrySchema.parse({ name: 'apps', family: 'apps', path: 'test.jsonl', ...extra });
const load = (text: string, extra: Partial<AppsEntry> = {}) => appsFamily.load({ entry: entry(extra), texts: { rows: text }, sources: { rows: 'test.jsonl' } });

describe('APPS rows', () => {
  it("loads every task with bigcode's prompt: question, starter code, the call format, ANSWER", () => {
    const { problems } = load(appsJsonl(APPS_TASKS));
    expect(problems.map((p) => p.task_id)).toEqual(['4001', '4002', '4003', '4004']);
    expect(problems[0]!.prompt).toBe(`\nQUESTION:\n${JSON.parse(APPS_TASKS[0]!.line).question}\nUse Standard Input format\nANSWER:\n`);
    expect(problems[2]!.prompt).toMatch(/Return the sum of the two largest numbers of the list\.\nclass Solution:\n {4}def topTwo\(self, nums: List\[int\]\) -> int:\n {8}\nUse Call-Based format\nANSWER:\n$/);
    expect(problems[2]!.entry_point).toBe('topTwo');
    expect(problems[0]!.canonical_solution).toContain('print(sum(xs))');
    expect(appsFamily.stopWords()).toEqual(['\nQUESTION', '\n---', '\nANSWER']);
    // A completion that repeats the prompt keeps what follows ANSWER, as bigcode's postprocessing.
    expect(appsFamily.solution(problems[0]!, 'completions', 'QUESTION:\nx\nANSWER:\nprint(1)\n')).toBe('\nprint(1)\n');
  });

  it('difficulty: only the levels named', () => {
    expect(load(appsJsonl(APPS_TASKS), { difficulty: ['interview'] }).problems.map((p) => p.task_id)).toEqual(['4002', '4003']);
    expect(() => load(appsJsonl(APPS_TASKS.slice(0, 1)), { difficulty: ['competition'] })).toThrow('test.jsonl: no task of difficulty competition');
    expect(AppsEntrySchema.safeParse({ name: 'a', family: 'apps', path: 'a.jsonl', difficulty: ['hard'] }).success).toBe(false);
  });

  it('a row without test cases is left out with a note; a bad row is named by file, line and field', () => {
    const good = APPS_TASKS[0]!.line;
    const untested = JSON.stringify({ ...JSON.parse(good), problem_id: 9, input_output: '' });
    const loaded = load(`${good}\n${untested}\n`);
    expect(loaded.problems).toHaveLength(1);
    expect(loaded.notes).toEqual(['test.jsonl: 1 rows without test cases (empty input_output) left out']);
    const bad = (fields: Record<string, unknown>) => JSON.stringify({ ...JSON.parse(good), problem_id: 10, ...fields });
    const cases: Array<[string, string | RegExp]> = [
      [bad({ input_output: '{"inputs": ["1"]' }), /^test\.jsonl:2: input_output: not valid JSON/],
      [bad({ input_output: '{"inputs": ["1\\n"], "outputs": []}' }), 'test.jsonl:2: input_output: 1 inputs but 0 outputs'],
      [bad({ input_output: '{"inputs": [], "outputs": []}' }), 'test.jsonl:2: input_output.inputs: must have at least one test case'],
      [bad({ difficulty: 'easy' }), /^test\.jsonl:2: difficulty: /],
      [bad({ question: undefined }), /^test\.jsonl:2: question: /],
      [bad({ solutions: '"print(1)"' }), 'test.jsonl:2: solutions: must be JSON text of a list of programs'],
      [bad({ problem_id: 4001 }), 'test.jsonl:2: duplicate task_id 4001 (first on line 1)'],
    ];
    for (const [second, message] of cases) expect(() => load(`${good}\n${second}\n`), second).toThrow(message);
  });
});
