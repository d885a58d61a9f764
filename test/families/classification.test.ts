/**
 * The classification sets (CodeComplex, BigCloneBench, Devign): rows in their owners' formats, bad
 * rows and unknown labels named by file, line and field, bigcode's prompts, the answers' labels
 * (unparseable ones included), and a cell's accuracy and F1 on crafted answers (checked against
 * scikit-learn in the test venv).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { classificationCellScores } from '../../domain/families/classification/metrics.js';
import {
  parseComplexityAnswer,
  readClassificationRows,
  TASK_SPECS,
  taskOfRow,
  type ClassificationTask,
} from '../../domain/families/classification/tasks.js';
import { CLONE_ROWS, COMPLEXITY_ROWS, DEFECT_ROWS, jsonl } from '../support/classification-rows.js';

const PROJECT_ROOT = path.resolve(import.meta.dirname, '../..');

describe('rows as their owners publish them', () => {
  it("CodeComplex's data.jsonl: the row index is the id, the complexity the label", () => {
    const rows = readClassificationRows('complexity', jsonl(COMPLEXITY_ROWS), 'data.jsonl');
    expect(rows.map((r) => [r.line, r.row.task_id, r.row.label])).toEqual([
      [1, 'codecomplex/0', 'constant'],
      [2, 'codecomplex/1', 'quadratic'],
      [3, 'codecomplex/2', 'nlogn'],
      [4, 'codecomplex/3', 'quadratic'],
    ]);
    expect(rows[1]!.row.code).toEqual([COMPLEXITY_ROWS[1].src]);
  });

  it("CodeXGLUE's BigCloneBench and Devign rows: their ids, both snippets, booleans as bigcode's \"1\"/\"0\"", () => {
    const clone = readClassificationRows('clone', jsonl(CLONE_ROWS), 'test.jsonl');
    expect(clone.map((r) => [r.row.task_id, r.row.label])).toEqual([
      ['bigclonebench/0', '1'],
      ['bigclonebench/1', '0'],
      ['bigclonebench/2', '0'],
      ['bigclonebench/3', '1'],
    ]);
    expect(clone[0]!.row.code).toEqual([CLONE_ROWS[0].func1, CLONE_ROWS[0].func2]);
    const defect = readClassificationRows('defect', jsonl(DEFECT_ROWS), 'test.jsonl');
    expect(defect.map((r) => [r.row.task_id, r.row.label])).toEqual([
      ['devign/0', '1'],
      ['devign/1', '0'],
      ['devign/2', '1'],
      ['devign/3', '0'],
    ]);
    // CodeXGLUE's own release writes the target as 0/1: the same labels.
    const ints = DEFECT_ROWS.map((r) => ({ ...r, target: r.target ? 1 : 0 }));
    expect(readClassificationRows('defect', jsonl(ints), 'f.jsonl').map((r) => r.row.label)).toEqual(['1', '0', '1', '0']);
  });

  it('tells the set from a row', () => {
    expect(taskOfRow(COMPLEXITY_ROWS[0])).toBe('complexity');
    expect(taskOfRow(CLONE_ROWS[0])).toBe('clone');
    expect(taskOfRow(DEFECT_ROWS[0])).toBe('defect');
    expect(taskOfRow({ task_id: 'x', prompt: '' })).toBeNull();
  });

  it('refuses an unknown label naming it, and bad rows naming the file, line and field', () => {
    const cases: Array<[ClassificationTask, string, string | RegExp]> = [
      [
        'complexity',
        jsonl([COMPLEXITY_ROWS[0], { ...COMPLEXITY_ROWS[1], complexity: 'exponential' }]),
        'data.jsonl:2: complexity: unknown label "exponential" (known: constant, logn, linear, nlogn, quadratic, cubic, np)',
      ],
      ['defect', jsonl([{ ...DEFECT_ROWS[0], target: 2 }]), 'data.jsonl:1: target: unknown label 2 (known: true, false, 1, 0)'],
      ['clone', jsonl([CLONE_ROWS[0], { ...CLONE_ROWS[1], label: 'yes' }]), 'data.jsonl:2: label: unknown label "yes"'],
      ['clone', jsonl([CLONE_ROWS[0], { ...CLONE_ROWS[1], func2: undefined }]), /^data\.jsonl:2: func2: /],
      ['defect', jsonl([DEFECT_ROWS[0], { ...DEFECT_ROWS[1], id: 'one' }]), /^data\.jsonl:2: id: /],
      ['complexity', jsonl([COMPLEXITY_ROWS[0]]) + '{"src": \n', /^data\.jsonl:2: not valid JSON/],
      ['defect', jsonl([DEFECT_ROWS[0], DEFECT_ROWS[0]]), 'data.jsonl:2: duplicate task_id devign/0 (first on line 1)'],
      ['defect', '\n', 'data.jsonl has no tasks'],
      [
        'clone',
        jsonl(DEFECT_ROWS),
        "data.jsonl:1: task clone needs CodeXGLUE BigCloneBench's id, id1, id2, func1, func2, label; this row has CodeXGLUE Devign's",
      ],
    ];
    for (const [task, text, message] of cases) expect(() => readClassificationRows(task, text, 'data.jsonl'), text).toThrow(message);
  });
});

describe("prompts: bigcode's instruct tasks, and CodeComplex's in their form", () => {
  it('defect and clone as bigcode writes them', () => {
    expect(TASK_SPECS.defect.prompt(['int f() { return 0; }\n'])).toBe(
      'Question: int f() { return 0; }\n\nIs there a defect in the Code, and respond to YES or NO.\n\nAnswer:',
    );
    expect(TASK_SPECS.clone.prompt(['void a() {}', 'void b() {}'])).toBe(
      'Question: Code1: void a() {}.\nCode2: void b() {}.\nIs there a clone relation between the Code1 and Code2, and respond to YES or NO.\n\nAnswer:',
    );
    const complexity = TASK_SPECS.complexity.prompt(['class A {}']);
    expect(complexity).toMatch(/^Question: class A \{\}\nWhat is the worst-case time complexity of the Code\? Respond with one of constant/);
    expect(complexity.endsWith('np (exponential).\n\nAnswer:')).toBe(true);
  });
});

describe("answers' labels", () => {
  it.each([
    [' YES', '1'],
    [' No.', '0'],
    [' no, the two differ', '0'],
    [' There is a clone relation', '1'],
    [' It depends', '-1'],
    ['', '-1'],
  ])('clone %j -> %s', (answer, label) => expect(TASK_SPECS.clone.parse(answer)).toBe(label));

  it.each([
    [' Yes, the buffer overflows', '1'],
    [' NO', '0'],
    [' The code has a defect', '1'],
    [' Maybe', '-1'],
  ])('defect %j -> %s', (answer, label) => expect(TASK_SPECS.defect.parse(answer)).toBe(label));

  it.each([
    [' quadratic', 'quadratic'],
    [' O(n log n)', 'nlogn'],
    ['np', 'np'],
    // A chat model's sentence naming one label.
    ['The time complexity is **linear**, since the loop runs n times.', 'linear'],
    ['Two nested loops: O(n^2)\n', '-1'],
    // Naming two labels is no answer.
    ['Either linear or quadratic.', '-1'],
    ['I cannot tell.', '-1'],
  ])('complexity %j -> %s', (answer, label) => expect(parseComplexityAnswer(answer)).toBe(label));
});

// Crafted answers whose scores differ between the metrics (an unparseable answer, an absent class).
const BINARY: Array<{ prediction: string; reference: string }> = [
  { prediction: '1', reference: '1' },
  { prediction: '1', reference: '0' },
  { prediction: '0', reference: '1' },
  { prediction: '-1', reference: '1' },
  { prediction: '0', reference: '0' },
  { prediction: '0', reference: '0' },
];
const COMPLEXITY: Array<{ prediction: string; reference: string }> = [
  { prediction: 'linear', reference: 'linear' },
  { prediction: 'linear', reference: 'quadratic' },
  { prediction: 'quadratic', reference: 'quadratic' },
  { prediction: '-1', reference: 'cubic' },
  { prediction: 'np', reference: 'np' },
  { prediction: 'constant', reference: 'np' },
  { prediction: 'cubic', reference: 'cubic' },
];

describe("a cell's accuracy and F1", () => {
  let sklearn: { binary: { accuracy: number; f1: number; f1_macro: number }; complexity: { accuracy: number; f1_macro: number } };
  beforeAll(() => {
    execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'ignore' });
    const script = `
import json, sys
from sklearn.metrics import accuracy_score, f1_score
d = json.load(sys.stdin)
b, c = d["binary"], d["complexity"]
bt, bp = [x["reference"] for x in b], [x["prediction"] for x in b]
ct, cp = [x["reference"] for x in c], [x["prediction"] for x in c]
classes = sorted((set(ct) | set(cp)) - {"-1"})
print(json.dumps({
  "binary": {"accuracy": accuracy_score(bt, bp), "f1": f1_score(bt, bp, labels=["1"], average="macro"),
             "f1_macro": f1_score(bt, bp, average="macro")},
  "complexity": {"accuracy": accuracy_score(ct, cp), "f1_macro": f1_score(ct, cp, labels=classes, average="macro")},
}))`;
    const python = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
    sklearn = JSON.parse(execFileSync(python, ['-c', script], { input: JSON.stringify({ binary: BINARY, complexity: COMPLEXITY }) }).toString());
  }, 600_000);

  it('binary: accuracy (unparseable is wrong), F1 of the positive class, bigcode\'s macro F1 with "-1" as a class', () => {
    const scores = classificationCellScores('defect', BINARY);
    expect(scores).toMatchObject({ answers: 6, unparseable: 1 });
    expect(scores.accuracy).toBeCloseTo(3 / 6, 12);
    // Positive class: tp 1, fp 1, fn 2 -> 2 / 5.
    expect(scores.f1).toBeCloseTo(0.4, 12);
    expect(scores.accuracy).toBeCloseTo(sklearn.binary.accuracy, 12);
    expect(scores.f1).toBeCloseTo(sklearn.binary.f1, 12);
    expect(scores.f1_macro).toBeCloseTo(sklearn.binary.f1_macro, 12);
  });

  it('complexity: macro F1 over the classes seen, the unparseable answer costing only its class', () => {
    const scores = classificationCellScores('complexity', COMPLEXITY);
    expect(scores.f1).toBeUndefined();
    expect(scores).toMatchObject({ answers: 7, unparseable: 1 });
    expect(scores.accuracy).toBeCloseTo(4 / 7, 12);
    expect(scores.accuracy).toBeCloseTo(sklearn.complexity.accuracy, 12);
    expect(scores.f1_macro).toBeCloseTo(sklearn.complexity.f1_macro, 12);
  });
});
