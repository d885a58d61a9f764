/**
 * The three classification sets bigcode-evaluation-harness lists as downstream tasks, each as its
 * owner publishes its rows on Hugging Face:
 * - `complexity`: CodeComplex (codeparrot/codecomplex, `data.jsonl`: src, complexity, problem,
 *   from), the time complexity of a Java program, one of seven classes;
 * - `clone`: BigCloneBench as CodeXGLUE publishes it (code_x_glue_cc_clone_detection_big_clone_bench:
 *   id, id1, id2, func1, func2, label), whether two Java functions are clones;
 * - `defect`: Devign as CodeXGLUE publishes it (code_x_glue_cc_defect_detection: id, func, target,
 *   project, commit_id), whether a C function has a defect.
 * bigcode fine-tunes a classifier on each (its `finetuning/` folder); here a model is prompted. The
 * clone and defect prompts and answer parsing are bigcode's own prompted tasks
 * (instruct_codexglue_clone_detection, instruct_codexglue_defect_detection); CodeComplex has none
 * in bigcode, so its prompt asks for one of the dataset's labels in the same Question/Answer form.
 */
import { z } from 'zod';
import { datasetRowsProblem } from '../../datasets/problems.js';
import { firstRow, parseJsonl, type Sourced } from '../../datasets/jsonl.js';
import { CLONE_KEYWORDS, COMPLEXITY_LABELS, DEFECT_KEYWORDS, parseComplexity, parseYesNo } from '../../metrics/classification.js';

export const CLASSIFICATION_TASKS = ['complexity', 'clone', 'defect'] as const;
export type ClassificationTask = (typeof CLASSIFICATION_TASKS)[number];

/** What a task's label reads as in results: a class of its set, or `-1` when the answer names none. */
export const UNPARSEABLE = '-1';

/** A binary set's labels as bigcode writes them (`str(int(label))`): "1" is the positive class. */
export const BINARY_LABELS = ['0', '1'] as const;

/** A row of a set, as the family keeps it: an id, the code shown, and its true label. */
export interface ClassificationRow {
  task_id: string;
  /** The code the model is shown: one snippet, or two for clone detection. */
  code: readonly string[];
  label: string;
}

/** A label field's value, refused naming it (and the labels the set knows) when it is not one. */
function labelField<T extends string>(known: Readonly<Record<string, T>>, knownText: string) {
  return z.unknown().transform((value, ctx): T => {
    const key = typeof value === 'string' ? `s:${value}` : typeof value === 'boolean' || typeof value === 'number' ? `v:${String(value)}` : '';
    const label = Object.prototype.hasOwnProperty.call(known, key) ? known[key] : undefined;
    if (label === undefined) {
      ctx.addIssue({ code: 'custom', message: `unknown label ${JSON.stringify(value) ?? String(value)} (known: ${knownText})` });
      return z.NEVER;
    }
    return label;
  });
}

// Hugging Face's rows carry a bool; CodeXGLUE's own release files carry 0/1: both read the same.
const BOOLEAN_LABEL = labelField<'0' | '1'>({ 'v:true': '1', 'v:false': '0', 'v:1': '1', 'v:0': '0' }, 'true, false, 1, 0');
const COMPLEXITY_LABEL = labelField(
  Object.fromEntries(COMPLEXITY_LABELS.map((l) => [`s:${l}`, l])) as Record<string, (typeof COMPLEXITY_LABELS)[number]>,
  COMPLEXITY_LABELS.join(', '),
);

export const ComplexityRowSchema = z.looseObject({
  src: z.string().min(1),
  complexity: COMPLEXITY_LABEL,
  problem: z.string().optional(),
  from: z.string().optional(),
});
export const CloneRowSchema = z.looseObject({
  id: z.int().nonnegative(),
  id1: z.int().optional(),
  id2: z.int().optional(),
  func1: z.string().min(1),
  func2: z.string().min(1),
  label: BOOLEAN_LABEL,
});
export const DefectRowSchema = z.looseObject({
  id: z.int().nonnegative(),
  func: z.string().min(1),
  target: BOOLEAN_LABEL,
  project: z.string().optional(),
  commit_id: z.string().optional(),
});

/** Which set a row belongs to, from the fields it has (evaluate.ts's recognition, a config without `task:`). */
export function taskOfRow(row: Readonly<Record<string, unknown>>): ClassificationTask | null {
  if ('src' in row && 'complexity' in row) return 'complexity';
  if ('func1' in row && 'func2' in row && 'label' in row) return 'clone';
  if ('func' in row && 'target' in row) return 'defect';
  return null;
}

/** The set's language, for fences and the docs (nothing runs). */
export const TASK_LANGUAGE = { complexity: 'Java', clone: 'Java', defect: 'C' } as const satisfies Record<ClassificationTask, string>;

export interface TaskSpec {
  /** The classes, in the order results list them. */
  labels: readonly string[];
  /** The positive class of a binary set (whose F1 is the headline); null for a multi-class set. */
  positive: string | null;
  /** bigcode's instruction line (the complexity set's own), which follows the code. */
  instruction: string;
  /** The text a completion model continues: bigcode's Question/Answer prompt. */
  prompt(code: readonly string[]): string;
  /** The answer's label (UNPARSEABLE when it names none of the set's). */
  parse(answer: string): string;
  /** What a chat model is asked, before the code. */
  chatInstruction: string;
}

const YES_NO_CHAT = 'Reply with YES or NO first, then explain if you wish.';

export const COMPLEXITY_INSTRUCTION =
  'What is the worst-case time complexity of the Code? Respond with one of constant (O(1)), logn (O(log n)), ' +
  'linear (O(n)), nlogn (O(n log n)), quadratic (O(n^2)), cubic (O(n^3)) or np (exponential).';

export const TASK_SPECS: Record<ClassificationTask, TaskSpec> = {
  complexity: {
    labels: COMPLEXITY_LABELS,
    positive: null,
    instruction: COMPLEXITY_INSTRUCTION,
    prompt: ([code]) => `Question: ${code}\n${COMPLEXITY_INSTRUCTION}\n\nAnswer:`,
    parse: parseComplexityAnswer,
    chatInstruction: `${COMPLEXITY_INSTRUCTION} Reply with the class alone on the first line.`,
  },
  clone: {
    labels: BINARY_LABELS,
    positive: '1',
    instruction: 'Is there a clone relation between the Code1 and Code2, and respond to YES or NO.',
    // bigcode's prompt, the periods after each snippet included.
    prompt: ([code1, code2]) =>
      `Question: Code1: ${code1}.\nCode2: ${code2}.\nIs there a clone relation between the Code1 and Code2, and respond to YES or NO.\n\nAnswer:`,
    parse: (answer) => parseYesNo(answer, CLONE_KEYWORDS),
    chatInstruction: `Is there a clone relation between the Code1 and Code2 below (do they do the same thing)? ${YES_NO_CHAT}`,
  },
  defect: {
    labels: BINARY_LABELS,
    positive: '1',
    instruction: 'Is there a defect in the Code, and respond to YES or NO.',
    prompt: ([code]) => `Question: ${code}\nIs there a defect in the Code, and respond to YES or NO.\n\nAnswer:`,
    parse: (answer) => parseYesNo(answer, DEFECT_KEYWORDS),
    chatInstruction: `Is there a defect (a bug or a vulnerability) in the Code below? ${YES_NO_CHAT}`,
  },
};

const LABEL_WORD = new RegExp(`(?<![A-Za-z0-9_])(${COMPLEXITY_LABELS.join('|')})(?![A-Za-z0-9_(])`, 'gi');

/**
 * A complexity answer's label: the first line as a label or its Big-O (parseComplexity); failing
 * that, the one label named as a word anywhere in the answer (a chat model's "The complexity is
 * **linear**."); an answer naming none, or several, is unparseable.
 */
export function parseComplexityAnswer(answer: string): string {
  const first = parseComplexity(answer);
  if (first !== UNPARSEABLE) return first;
  const named = new Set([...answer.matchAll(LABEL_WORD)].map((m) => m[1]!.toLowerCase()));
  return named.size === 1 ? [...named][0]! : UNPARSEABLE;
}

/** A row of the set's own schema as the family keeps it; `index` is its 0-based row number (CodeComplex has no id). */
export function classificationRow(task: ClassificationTask, row: unknown, index: number): ClassificationRow {
  switch (task) {
    case 'complexity': {
      const r = row as z.output<typeof ComplexityRowSchema>;
      return { task_id: `codecomplex/${index}`, code: [r.src], label: r.complexity };
    }
    case 'clone': {
      const r = row as z.output<typeof CloneRowSchema>;
      return { task_id: `bigclonebench/${r.id}`, code: [r.func1, r.func2], label: r.label };
    }
    case 'defect': {
      const r = row as z.output<typeof DefectRowSchema>;
      return { task_id: `devign/${r.id}`, code: [r.func], label: r.target };
    }
  }
}

export const ROW_SCHEMAS = { complexity: ComplexityRowSchema, clone: CloneRowSchema, defect: DefectRowSchema } as const;

/** The fields each set's rows must have, for messages. */
export const ROW_FIELDS: Record<ClassificationTask, string> = {
  complexity: "CodeComplex's src, complexity, problem, from",
  clone: "CodeXGLUE BigCloneBench's id, id1, id2, func1, func2, label",
  defect: "CodeXGLUE Devign's id, func, target, project, commit_id",
};

/**
 * A file's rows of the set, validated: errors name the source, the line and the field; rows of
 * another set are named as such rather than field by field.
 */
export function readClassificationRows(task: ClassificationTask, text: string, source: string): Array<Sourced<ClassificationRow>> {
  const first = firstRow(text, source);
  if (first && typeof first.row === 'object' && first.row !== null) {
    const looks = taskOfRow(first.row as Record<string, unknown>);
    if (looks !== null && looks !== task) {
      throw new Error(`${source}:${first.line}: task ${task} needs ${ROW_FIELDS[task]}; this row has ${ROW_FIELDS[looks]} (task: ${looks}?)`);
    }
  }
  const rows = parseJsonl(text, ROW_SCHEMAS[task] as z.ZodType<unknown>, source).map(({ line, row }, index) => ({
    line,
    row: classificationRow(task, row, index),
  }));
  const problem = datasetRowsProblem(rows, source);
  if (problem) throw new Error(problem);
  return rows;
}
