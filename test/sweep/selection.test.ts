/** Task selection as bigcode selects tasks: by id, then from limit_start, at most limit. */
import { describe, expect, it } from 'vitest';
import { parseSweepConfig } from '../../domain/sweep/config.js';
import { rowsNeeded, selectionOf, selectionProblem, selectTasks } from '../../domain/sweep/selection.js';
import { minimalSweepConfig, sweepConfigIssues } from '../support/sweep-config.js';

const ids = ['a', 'b', 'c', 'd', 'e'];
const pick = (s: Parameters<typeof selectTasks>[1]) => selectTasks(ids, s, (id) => id);

describe('selectTasks', () => {
  it('keeps the listed ids in dataset order, then starts at limit_start and takes at most limit', () => {
    expect(pick({})).toEqual(ids);
    expect(pick({ limit: 2 })).toEqual(['a', 'b']);
    expect(pick({ start: 3 })).toEqual(['d', 'e']);
    expect(pick({ start: 1, limit: 2 })).toEqual(['b', 'c']);
    expect(pick({ tasks: ['e', 'b', 'zz'] })).toEqual(['b', 'e']);
    expect(pick({ tasks: ['e', 'b', 'd'], start: 1, limit: 1 })).toEqual(['d']);
  });

  it('a generated dataset is read only as far as the selection needs', () => {
    expect(rowsNeeded({ start: 3, limit: 2 })).toBe(5);
    expect(rowsNeeded({ limit: 2 })).toBe(2);
    expect(rowsNeeded({ start: 3 })).toBeUndefined();
    expect(rowsNeeded({ tasks: ['a'], limit: 2 })).toBeUndefined();
  });

  it('names ids no dataset has, a dataset with none selected, and a start past the end', () => {
    const datasets = new Map([
      ['one', ['a', 'b']],
      ['two', ['c']],
    ]);
    expect(selectionProblem({ tasks: ['a', 'c'] }, datasets)).toBeNull();
    expect(selectionProblem({ tasks: ['a', 'x', 'c', 'y'] }, datasets)).toBe('tasks: "x", "y" in no dataset of the sweep');
    expect(selectionProblem({ tasks: ['a'] }, datasets)).toBe(
      'dataset two: tasks selects none of its tasks (list some of its ids, or give it a sweep of its own)',
    );
    expect(selectionProblem({ start: 1 }, datasets)).toBe('limit_start: 1 is past the last of the 1 tasks of dataset two');
    expect(selectionProblem({ tasks: ['a', 'b', 'c'], start: 1 }, datasets)).toBe(
      'limit_start: 1 is past the last of the 1 selected tasks of dataset two',
    );
  });
});

describe('tasks and limit_start in a sweep config', () => {
  it('integer ids (MBPP) are kept as text; the selection reads the config', () => {
    const config = parseSweepConfig({ ...minimalSweepConfig(), tasks: [11, 'HumanEval/3'], limit_start: 1, limit: 5 });
    expect(config.tasks).toEqual(['11', 'HumanEval/3']);
    expect(selectionOf(config)).toEqual({ tasks: ['11', 'HumanEval/3'], start: 1, limit: 5 });
    expect(selectionOf(parseSweepConfig(minimalSweepConfig()))).toEqual({});
  });

  it('refuses an empty list, a repeated id (11 and "11" are one), a negative start', () => {
    expect(sweepConfigIssues({ ...minimalSweepConfig(), tasks: [] })).toEqual([
      { path: 'tasks', message: 'needs at least one task id (or leave tasks out for all)' },
    ]);
    expect(sweepConfigIssues({ ...minimalSweepConfig(), tasks: [11, '11'] })).toEqual([
      { path: 'tasks[1]', message: 'duplicate of tasks[0] ("11")' },
    ]);
    expect(sweepConfigIssues({ ...minimalSweepConfig(), limit_start: -1 }).map((i) => i.path)).toEqual(['limit_start']);
  });
});
