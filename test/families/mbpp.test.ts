/**
 * MBPP through its family: both files of Google's release (read from ../shared/reference/mbpp/),
 * their splits, bigcode's prompt and the paper's three-shot prompt, the tests, the stop words, and
 * errors that name the file, the line or index, and the field.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FAMILIES } from '../../domain/families/registry.js';
import { MBPP_BIGCODE_STOP_WORDS, type MbppEntry } from '../../domain/families/mbpp/index.js';
import { parseSweepConfig, stopWordsFor } from '../../domain/sweep/config.js';
import { referenceOf } from '../../domain/sweep/results.js';
import { minimalSweepConfig } from '../support/sweep-config.js';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/reference/mbpp');
const FULL = readFileSync(path.join(DIR, 'mbpp.jsonl'), 'utf8');
const SANITIZED = readFileSync(path.join(DIR, 'sanitized-mbpp.json'), 'utf8');
const fullRows = FULL.trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { task_id: number; text: string; code: string; test_list: string[]; test_setup_code: string });

const entry = (extra: Partial<MbppEntry> = {}): MbppEntry => ({
  name: 'mbpp',
  family: 'mbpp',
  path: 'mbpp.jsonl',
  prompt: 'bigcode',
  ...extra,
});
const load = (text: string, extra: Partial<MbppEntry> = {}, source = 'mbpp.jsonl') =>
  FAMILIES.mbpp.load({ entry: entry(extra), texts: { rows: text }, sources: { rows: source } });

describe('MBPP files', () => {
  it('the full file: the test split (task ids 11-510) by default, the others by name', () => {
    const test = load(FULL).problems;
    expect(test).toHaveLength(500);
    expect(test[0]!.task_id).toBe('11');
    expect(test.at(-1)!.task_id).toBe('510');
    expect(load(FULL, { split: 'prompt' }).problems.map((p) => p.task_id)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
    expect(load(FULL, { split: 'validation' }).problems).toHaveLength(90);
    expect(load(FULL, { split: 'train' }).problems).toHaveLength(374);
    expect(load(FULL, { split: 'all' }).problems).toHaveLength(974);
  });

  it('the sanitized file (a JSON array): every row by default', () => {
    const problems = load(SANITIZED, {}, 'sanitized-mbpp.json').problems;
    expect(problems).toHaveLength(427);
    expect(problems.every((p) => p.family === 'mbpp')).toBe(true);
  });

  it("bigcode's prompt: the description and the first test in a docstring; the tests are test_list after the setup code", () => {
    const row = fullRows.find((r) => r.task_id === 11)!;
    const p = load(FULL).problems[0]!;
    expect(p.prompt).toBe(`"""\n${row.text}\n${row.test_list[0]}\n"""\n`);
    expect(p.form).toBe('completion');
    expect(FAMILIES.mbpp.tests(p, null)).toBe(row.test_list.join('\n'));
    expect(referenceOf(p)).toBe(row.test_list.join('\n') + '\n');
    expect(p.entry_point).toBe('remove_Occ');
    // A completion continues the docstring: the solution is both, as bigcode saves it.
    expect(FAMILIES.mbpp.solution(p, 'completions', 'def remove_Occ(s, ch):\n    pass\n')).toBe(
      p.prompt + 'def remove_Occ(s, ch):\n    pass\n',
    );
    const withSetup = load(FULL, { split: 'all' }).problems.find((q) => q.task_id === '367')!;
    const raw = fullRows.find((r) => r.task_id === 367)!;
    expect(withSetup.test.startsWith(raw.test_setup_code.replace(/\r\n/g, '\n'))).toBe(true);
  });

  it("the paper's three-shot prompt: tasks 2, 3 and 4 worked between [BEGIN] and [DONE], the task's tests stated; the answer is the solution", () => {
    const p = load(FULL, { prompt: 'three-shot' }).problems[0]!;
    const shots = [2, 3, 4].map((id) => fullRows.find((r) => r.task_id === id)!);
    for (const s of shots)
      expect(p.prompt).toContain(
        `${s.text} Your code should pass these tests:\n\n${s.test_list.join('\n')}\n[BEGIN]\n${s.code.replace(/\r\n/g, '\n')}\n[DONE]\n`,
      );
    const row = fullRows.find((r) => r.task_id === 11)!;
    expect(
      p.prompt.endsWith(
        `You are an expert Python programmer, and here is your task: ${row.text} Your code should pass these tests:\n\n${row.test_list.join('\n')}\n[BEGIN]\n`,
      ),
    ).toBe(true);
    expect(p.form).toBe('full');
    expect(FAMILIES.mbpp.solution(p, 'completions', 'def f(): pass\n')).toBe('def f(): pass\n');
    expect(FAMILIES.mbpp.stopWords(entry({ prompt: 'three-shot' }))).toEqual(['[DONE]']);
    expect(() =>
      load(
        fullRows
          .filter((r) => r.task_id !== 3)
          .map((r) => JSON.stringify(r))
          .join('\n'),
        { prompt: 'three-shot' },
      ),
    ).toThrow(/three-shot needs tasks 2, 3, 4/);
  });

  it("completion models stop at bigcode's MBPP stop words unless the model gives its own", () => {
    const config = parseSweepConfig({
      ...minimalSweepConfig(),
      datasets: [{ name: 'mbpp', family: 'mbpp', path: 'mbpp.jsonl' }],
      models: [{ id: 'm', base_url: 'http://x', model: 'm', api: 'completions' }],
    });
    expect(stopWordsFor(config.models[0]!, config.datasets[0]!)).toEqual([...MBPP_BIGCODE_STOP_WORDS]);
    expect(config.datasets[0]).toEqual({ name: 'mbpp', family: 'mbpp', path: 'mbpp.jsonl', prompt: 'bigcode' });
  });

  it('bad rows are named by file and line (JSONL) or index (JSON), with the field', () => {
    const rows = FULL.trim().split('\n').slice(0, 12);
    const broken = [...rows.slice(0, 11), JSON.stringify({ ...JSON.parse(rows[11]!), test_list: [] })].join('\n');
    expect(() => load(broken)).toThrow('mbpp.jsonl:12: test_list: must have at least one test');
    const sanitized = JSON.parse(SANITIZED) as Array<Record<string, unknown>>;
    sanitized[5] = { ...sanitized[5], prompt: 7 };
    expect(() => load(JSON.stringify(sanitized), {}, 'sanitized-mbpp.json')).toThrow(/^sanitized-mbpp\.json: \[5\]: prompt: /);
    expect(() => load([rows[0], rows[0]].join('\n'), { split: 'all' })).toThrow('mbpp.jsonl:2: duplicate task_id 1 (first on line 1)');
    expect(() => load(rows.slice(0, 5).join('\n'))).toThrow('mbpp.jsonl: split test holds no task of this file');
  });
});
