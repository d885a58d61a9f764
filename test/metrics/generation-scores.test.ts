/**
 * The pure scoring of PAL, the yes/no and complexity classification answers, Spider's execution
 * comparison and SantaCoder-FIM's exact match, on cases bigcode's and Spider's own code define
 * (bigcode_eval/tasks/gsm.py, custom_metrics/pal_metric/, instruct_codexglue_*.py, santacoder_fim.py;
 * test-suite-sql-eval's exec_eval.py).
 */
import { describe, expect, it } from 'vitest';
import { CLONE_KEYWORDS, DEFECT_KEYWORDS, parseComplexity, parseYesNo } from '../../domain/metrics/classification.js';
import { fimExactMatch } from '../../domain/metrics/exactMatch.js';
import { chooseAnswer, gsm8kReference, palAnswer, palProgram, palScore, palScores } from '../../domain/metrics/pal.js';
import { pyFloat } from '../../domain/metrics/pythonText.js';
import { firstLineAfter } from '../../domain/metrics/smoothedBleu.js';
import { orderMatters, pythonFloatRepr, sameDenotation, type SqlRow, type SqlValue } from '../../domain/metrics/spiderExec.js';

describe('PAL (bigcode gsm.py + pal_metric)', () => {
  const shot = (q: string) => `Q: ${q}\n\n# solution in Python:\n\n\ndef solution():\n    """${q}"""\n    return 1\n\n\n\n\n\n`;
  const prompt = `${Array.from({ length: 8 }, (_, i) => shot(`question ${i}`)).join('')}Q: last\n\n# solution in Python:\n\n\n`;

  it('the program is the text after the 9th "# solution in Python:", cut before "Q:", with print(solution())', () => {
    const completion = 'def solution():\n    return 6 * 7\n\n\n\nQ: an invented next question';
    expect(palProgram(prompt + completion)).toBe('def solution():\n    return 6 * 7\n\n\n\n\nprint(solution())');
    // A completion without the prompt (nothing to split at) is used whole.
    expect(palProgram('  def solution():\n    return 1\n')).toBe('def solution():\n    return 1\nprint(solution())');
    // Beyond the 9th marker the rest is one piece: a 10th marker in the completion stays in the program.
    expect(palProgram(`${prompt}x = 1 # solution in Python: y`)).toBe('x = 1 # solution in Python: y\nprint(solution())');
  });

  it("GSM8K's reference: after the last '#### ', commas dropped, int when int() takes it", () => {
    expect(gsm8kReference('She has 3 + 4 = <<3+4=7>>7 left.\n#### 7')).toBe(7);
    expect(gsm8kReference('...\n#### 1,000')).toBe(1000);
    expect(gsm8kReference('#### 2.5')).toBe(2.5);
    expect(gsm8kReference('#### -3')).toBe(-3);
    expect(gsm8kReference('#### seven')).toBe('seven');
  });

  it('the answer is the last printed line, stripped; failures are "failed: ..."', () => {
    expect(palAnswer({ kind: 'exited', output: 'debug\n42\n' })).toBe('42');
    expect(palAnswer({ kind: 'exited', output: 'debug\n 42.0 ' })).toBe('42.0');
    // readlines() of "42\n\n" ends with "\n": an empty answer, not a failure.
    expect(palAnswer({ kind: 'exited', output: '42\n\n' })).toBe('');
    expect(palAnswer({ kind: 'exited', output: '' })).toBe('failed: list index out of range');
    expect(palAnswer({ kind: 'raised', message: 'division by zero' })).toBe('failed: division by zero');
    expect(palAnswer({ kind: 'timed-out' })).toBe('failed: timed out');
  });

  it('greedy takes the first answer that did not fail; majority voting the most common, first seen on ties', () => {
    expect(chooseAnswer(['failed: x', '3', '4'], 'greedy')).toBe('3');
    expect(chooseAnswer(['failed: x', 'failed: y'], 'greedy')).toBe('');
    expect(chooseAnswer(['1', '2', '2', 'failed: t', '1', '3'], 'majority_voting')).toBe('1');
    expect(chooseAnswer(['5', '2', '2', 'failed: t', 'failed: t', 'failed: t'], 'majority_voting')).toBe('2');
    // Answers vote as strings: "18" and "18.0" are different answers.
    expect(chooseAnswer(['18.0', '18', '18'], 'majority_voting')).toBe('18');
  });

  it('right within 1e-3 (strict), float() refusing either side counts as failed', () => {
    expect(palScore('18', 18)).toBe(1);
    expect(palScore('18.0009', 18)).toBe(1);
    expect(palScore('18.001', 18)).toBe(0);
    expect(palScore('1_000', 1000)).toBe(1);
    expect(palScore('  -2.5e1 ', -25)).toBe(1);
    expect(palScore('nan', 1)).toBe(0);
    expect(palScore('inf', 1)).toBe(0);
    expect(palScore('$18', 18)).toBeUndefined();
    expect(palScore('', 18)).toBeUndefined();
    expect(palScore('18', 'eighteen')).toBeUndefined();
    expect(palScore('3', '3.0')).toBe(1);
  });

  it("Python's float() grammar", () => {
    expect(pyFloat('1.')).toBe(1);
    expect(pyFloat('.5')).toBe(0.5);
    expect(pyFloat('1__0')).toBeUndefined();
    expect(pyFloat('_1')).toBeUndefined();
    expect(pyFloat('0x10')).toBeUndefined();
    expect(pyFloat('Infinity')).toBe(Infinity);
    expect(pyFloat('-iNF')).toBe(-Infinity);
    expect(pyFloat('\u00851e3\u3000')).toBe(1000);
    expect(pyFloat('1e')).toBeUndefined();
  });

  it('accuracy and num_failed_execution as compute() reports them', () => {
    const result = palScores(
      [
        { reference: 7, answers: ['7'] },
        { reference: 1000, answers: ['failed: timed out'] },
        { reference: 2.5, answers: ['2.4'] },
        { reference: 3, answers: ['three'] },
      ],
      'greedy',
    );
    expect(result.accuracy).toBe(0.25);
    expect(result.num_failed_execution).toBe(2);
    expect(result.perTask.map((t) => t.answer)).toEqual(['7', '', '2.4', 'three']);
    const voted = palScores([{ reference: 9, answers: ['9', '8', '9', '8', '8'] }], 'majority_voting');
    expect(voted.accuracy).toBe(0);
    expect(palScores([{ reference: 9, answers: ['9', '8', '9', '8', '8'] }], 'greedy').accuracy).toBe(1);
  });
});

describe('yes/no answers (bigcode instruct_codexglue_defect_detection / clone_detection)', () => {
  const prompt = 'Question: int f() { return 0; }\nIs there a defect in the Code, and respond to YES or NO.\n\nAnswer:';
  it.each([
    [' YES, because the pointer is freed twice.', '1'],
    [' No.', '0'],
    [' There is a defect: the buffer overflows', '1'],
    // The first clause has both "yes" and "no": the keyword phrases decide.
    [' Yes or no is hard to say. There is no defect here', '0'],
    // "not" contains "no", as in bigcode.
    [' I am not sure', '0'],
    [' It compiles', '-1'],
    [' Answer: yes', '1'],
  ])('defect %j -> %s', (reply, label) => {
    expect(parseYesNo(prompt + reply, DEFECT_KEYWORDS)).toBe(label);
  });
  it('clone detection has its own phrases', () => {
    // The first clause says both: clone detection reads "there is no", defect detection only "there is no defect".
    expect(parseYesNo(`${prompt} Yes and no, there is no clone relation`, CLONE_KEYWORDS)).toBe('0');
    expect(parseYesNo(`${prompt} Yes and no, there is no clone relation`, DEFECT_KEYWORDS)).toBe('-1');
  });
  it('only the text after the last "\\nAnswer:" counts', () => {
    expect(parseYesNo('Question: yes?\n\nAnswer: no\nAnswer: yes', CLONE_KEYWORDS)).toBe('1');
  });
});

describe('CodeComplex answers (explora, prompted)', () => {
  it.each([
    ['linear', 'linear'],
    ['O(n log n)', 'nlogn'],
    ['O(n^2) because of the two loops', '-1'],
    ['O(n^2)\nbecause of the two loops', 'quadratic'],
    ['**O(1)**', 'constant'],
    ['O(log n)', 'logn'],
    ['O(2^n)', 'np'],
    ['fast', '-1'],
  ])('%j -> %s', (reply, label) => expect(parseComplexity(reply)).toBe(label));
});

describe('code-to-text first line', () => {
  it('keeps the first line after the prompt delimiter, stripped before the cut', () => {
    const delimiter = '\n/* The goal of this function is to:\n';
    expect(firstLineAfter(`func f() {}${delimiter}  Return the answer.\n More text */`, delimiter)).toBe('Return the answer.');
    expect(() => firstLineAfter('no delimiter', delimiter)).toThrow(/delimiter/);
  });
});

describe("Spider execution comparison (test-suite-sql-eval's result_eq)", () => {
  const int = (v: number): SqlValue => ({ kind: 'integer', value: BigInt(v) });
  const real = (v: number): SqlValue => ({ kind: 'real', value: v });
  const text = (v: string): SqlValue => ({ kind: 'text', value: v });
  const nul: SqlValue = { kind: 'null' };
  const rows = (...r: SqlValue[][]): SqlRow[] => r;

  it('order counts only when the gold query says "order by"', () => {
    const a = rows([text('x'), int(1)], [text('y'), int(2)]);
    const b = rows([text('y'), int(2)], [text('x'), int(1)]);
    expect(sameDenotation(a, b, false)).toBe(true);
    expect(sameDenotation(a, b, true)).toBe(false);
    expect(orderMatters('SELECT name FROM t ORDER BY age')).toBe(true);
    expect(orderMatters('SELECT name FROM t ORDER  BY age')).toBe(false);
    expect(orderMatters('SELECT name FROM t')).toBe(false);
  });

  it('columns may come in any order; rows compare as bags (duplicates count)', () => {
    const gold = rows([text('x'), int(1), real(2.5)], [text('x'), int(1), real(2.5)], [text('y'), int(2), nul]);
    const swapped = rows([real(2.5), text('x'), int(1)], [nul, text('y'), int(2)], [real(2.5), text('x'), int(1)]);
    expect(sameDenotation(gold, swapped, false)).toBe(true);
    const fewerDuplicates = rows([real(2.5), text('x'), int(1)], [nul, text('y'), int(2)], [nul, text('y'), int(2)]);
    expect(sameDenotation(gold, fewerDuplicates, false)).toBe(false);
  });

  it('a column permutation must be one permutation for every row', () => {
    const gold = rows([int(1), int(2)], [int(3), int(4)]);
    expect(sameDenotation(gold, rows([int(2), int(1)], [int(4), int(3)]), true)).toBe(true);
    expect(sameDenotation(gold, rows([int(2), int(1)], [int(3), int(4)]), false)).toBe(false);
  });

  it('ordered: rows must match in sequence under the permutation, not just as a bag', () => {
    // Each row's values agree in sequence (the evaluator's quick check passes), but no single column
    // order puts the rows in the gold order; as bags they are equal.
    const gold = rows([int(1), int(2)], [int(2), int(1)], [int(3), int(4)]);
    const predicted = rows([int(2), int(1)], [int(1), int(2)], [int(3), int(4)]);
    expect(sameDenotation(gold, predicted, true)).toBe(false);
    expect(sameDenotation(gold, predicted, false)).toBe(true);
  });

  it('more than 3 columns (where the evaluator samples rows to narrow permutations)', () => {
    const gold = rows([int(1), int(2), int(3), int(4), int(5)], [int(6), int(7), int(8), int(9), int(10)]);
    const perm = [4, 2, 0, 3, 1];
    expect(
      sameDenotation(
        gold,
        gold.map((r) => perm.map((i) => r[i]!)),
        true,
      ),
    ).toBe(true);
    const changed = rows([int(1), int(2), int(3), int(4), int(5)], [int(6), int(7), int(8), int(10), int(10)]);
    expect(sameDenotation(gold, changed, false)).toBe(false);
  });

  it('INTEGER equals REAL of the same value; text "1" and NULL do not', () => {
    expect(sameDenotation(rows([int(1)]), rows([real(1)]), false)).toBe(true);
    expect(sameDenotation(rows([int(1)]), rows([text('1')]), false)).toBe(false);
    expect(sameDenotation(rows([nul]), rows([text('None')]), false)).toBe(false);
  });

  it('shapes: both empty are equal; row or column counts differ are not', () => {
    expect(sameDenotation([], [], true)).toBe(true);
    expect(sameDenotation(rows([int(1)]), [], false)).toBe(false);
    expect(sameDenotation(rows([int(1), int(1)]), rows([int(1)]), false)).toBe(false);
  });

  it("Python's float repr, the evaluator's in-row sort key", () => {
    expect([1, 0.1, 1e16, 1e15, 1.5e-5, 123.456, -0, 2.5e-4].map(pythonFloatRepr)).toEqual([
      '1.0',
      '0.1',
      '1e+16',
      '1000000000000000.0',
      '1.5e-05',
      '123.456',
      '-0.0',
      '0.00025',
    ]);
  });
});

describe('SantaCoder-FIM exact match (bigcode santacoder_fim.py)', () => {
  it('strip()-equal samples over all samples, per language; 0 for a language without tasks', () => {
    const scores = fimExactMatch([
      { language: 'py', reference: '    return x\n', samples: ['return x', 'return y'] },
      { language: 'py', reference: 'pass', samples: [' pass\n\u0085'] },
      { language: 'js', reference: 'x++;', samples: ['x += 1;'] },
    ]);
    expect(scores).toEqual({ 'py Exact Match': 2 / 3, 'js Exact Match': 0, 'java Exact Match': 0 });
  });
});
