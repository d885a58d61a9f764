/**
 * bigcode's program-repair tasks through their families: QuixBugs (quixbugs), Parity (parity) and
 * Python Bugs (python-bugs), on rows in their owners' formats (test/support/repair-rows.ts), against
 * bigcode's own code written out in test/families/repair_reference.py: for every prompt format,
 * the prompts, stop words, the solutions a model's raw continuations become (the request's stop
 * words applied, then the family's solution), the programs run (solution, newline, tests) and
 * Python Bugs's mean exact match equal bigcode's; the edge cases its code handles (an answer that
 * stops at once, a continuation with no stop word, a character outside the BMP, bigcode's branch
 * order for prompt_codex's stop words, its refused formats). The runs' outcomes are compared with
 * bigcode's in repair.e2e.test.ts (the sandbox).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parityFamily, PARITY_PROMPTS, type ParityPrompt } from '../../domain/families/parity/index.js';
import {
  pythonBugsFamily,
  PYTHON_BUGS_PROMPTS,
  PYTHON_BUGS_STOP_WORDS,
  type PythonBugsPrompt,
} from '../../domain/families/python-bugs/index.js';
import { QUIXBUGS_PROMPTS, quixBugsFamily, type QuixBugsPrompt } from '../../domain/families/quixbugs/index.js';
import { FAMILIES } from '../../domain/families/registry.js';
import { codePointPrefix, firstBlock } from '../../domain/families/repairText.js';
import type { AnswerEnding } from '../../domain/families/types.js';
import { LANGUAGES } from '../../domain/languages/registry.js';
import { truncateAtStopWords } from '../../domain/llm/extract.js';
import { stopSentTo } from '../../domain/sweep/config.js';
import { CorpusFold, textCheckingOf, textScore } from '../../domain/sweep/textScores.js';
import { loadEvaluateProblems, recognizeFamily } from '../../scripts/lib/evaluate-problems.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import {
  jsonl,
  PARITY_BUGS,
  PARITY_GENERATIONS,
  PYTHON_BUGS_GENERATIONS,
  PYTHON_BUGS_ROWS,
  QUIXBUGS_EDIT_GENERATIONS,
  QUIXBUGS_GENERATIONS,
  QUIXBUGS_ROWS,
} from '../support/repair-rows.js';

const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const SCRIPT = path.resolve(import.meta.dirname, 'repair_reference.py');

interface Reference {
  prompts: string[];
  stop_words: string[];
  solutions: string[][];
  tests?: string[] | string;
  references?: string[];
  metrics?: Record<string, number>;
  unmutated?: string;
}

const bigcode = (task: string, prompt: string, rows: unknown[], generations: string[][]): Reference =>
  JSON.parse(execFileSync(PYTHON, [SCRIPT], { input: JSON.stringify({ task, prompt, rows, generations }) }).toString()) as Reference;

beforeAll(() => {
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'inherit' });
}, 600_000);

/**
 * An endpoint's answer to a raw continuation: the text before the first of the stop words the
 * request carries (the first four, as the API takes them), dropped, finish_reason `stop`; else the
 * whole continuation, cut at max_tokens (`length`).
 */
function endpointAnswer(continuation: string, stops: readonly string[]): AnswerEnding {
  const raw = truncateAtStopWords(continuation, stopSentTo(stops, {}));
  return { raw, finishReason: raw.length < continuation.length ? 'stop' : 'length' };
}

/**
 * The family's solutions of raw continuations, as a sweep makes them: the endpoint's answer, cut at
 * the cell's stop words (the extraction), then the family's solution with how the answer ended.
 */
function solutionsOf(
  family: (typeof FAMILIES)['quixbugs' | 'parity' | 'python-bugs'],
  entry: never,
  generations: string[][],
  problems: never[],
) {
  const stops = family.stopWords(entry);
  return problems.map((p, t) =>
    generations[t]!.map((g) => {
      const ending = endpointAnswer(g, stops);
      return family.solution(p, 'completions', truncateAtStopWords(ending.raw, stops), ending);
    }),
  );
}

const program = (solution: string, tests: string) => LANGUAGES.python.assemble({ solution, tests });

describe('QuixBugs', () => {
  const load = (prompt: QuixBugsPrompt, text = jsonl(QUIXBUGS_ROWS), source = 'quixbugs_python.jsonl') =>
    quixBugsFamily.load({
      entry: { name: 'qb', family: 'quixbugs', path: source, prompt },
      texts: { rows: text },
      sources: { rows: source },
    }).problems;

  it.each(QUIXBUGS_PROMPTS.map((p) => [p]))("prompt %s: prompts, stop words, solutions and programs are bigcode's", (prompt) => {
    const generations = prompt === 'edit' ? QUIXBUGS_EDIT_GENERATIONS : QUIXBUGS_GENERATIONS;
    const reference = bigcode('quixbugs', prompt, QUIXBUGS_ROWS, generations);
    const entry = FAMILIES.quixbugs.entrySchema.parse({ name: 'qb', family: 'quixbugs', path: 'q.jsonl', prompt });
    const problems = load(prompt);
    expect(problems.map((p) => p.task_id)).toEqual(QUIXBUGS_ROWS.map((r) => `quixbugs/${r.name}`));
    expect(problems.map((p) => quixBugsFamily.completionPrompt(p))).toEqual(reference.prompts);
    expect(quixBugsFamily.stopWords(entry)).toEqual(reference.stop_words);
    const solutions = solutionsOf(quixBugsFamily, entry as never, generations, problems as never[]);
    // Every solution is bigcode's, the continuation without a stop word (the token limit) included: nothing.
    expect(solutions).toEqual(reference.solutions);
    const stops = quixBugsFamily.stopWords(entry);
    if (prompt !== 'edit') expect(generations.flat().some((g) => !stops.some((w) => g.includes(w)))).toBe(true);
    expect(problems.map((p) => quixBugsFamily.tests(p, null))).toEqual(reference.tests);
    // bigcode runs candidate + "\n" + tests: the program Python's assemble makes.
    solutions.forEach((s, t) =>
      s.forEach((solution) =>
        expect(program(solution, quixBugsFamily.tests(problems[t]!, null))).toBe(`${solution}\n${(reference.tests as string[])[t]}`),
      ),
    );
  });

  it('the edge cases the generations hold: an answer that stops at once is `def`; a second function is dropped', () => {
    const reference = bigcode('quixbugs', 'prompt', QUIXBUGS_ROWS, QUIXBUGS_GENERATIONS);
    expect(reference.solutions[0]![2]).toBe('def');
    expect(reference.solutions[2]![1]).toBe(QUIXBUGS_ROWS[2]!.solution + '\n');
    // prompt_codex takes the prompt stop words (bigcode's branch order): `\ndef` ends every answer at once.
    const codex = bigcode('quixbugs', 'prompt_codex', QUIXBUGS_ROWS, [[`\n${QUIXBUGS_ROWS[0]!.solution}\n`], ['\n'], ['x']]);
    expect(codex.stop_words).toContain('\ndef');
    expect(codex.solutions).toEqual([[''], [''], ['']]);
  });

  it('a continuation without a stop word: nothing when cut at max_tokens, as bigcode; kept when it ended on a stop word the endpoint dropped', () => {
    const reference = bigcode('quixbugs', 'prompt', QUIXBUGS_ROWS, QUIXBUGS_GENERATIONS);
    const [problem] = load('prompt').slice(2);
    const raw = QUIXBUGS_GENERATIONS[2]![2]!;
    expect(reference.solutions[2]![2]).toBe('');
    expect(quixBugsFamily.solution(problem!, 'completions', raw, { raw, finishReason: 'length' })).toBe('');
    // The same text ended by the endpoint on a stop word it dropped (`\n#`): bigcode's generation ending on it.
    const stopped = bigcode('quixbugs', 'prompt', QUIXBUGS_ROWS, [[], [], [raw + '\n#']]);
    expect(quixBugsFamily.solution(problem!, 'completions', raw, { raw, finishReason: 'stop' })).toBe(stopped.solutions[2]![0]);
    expect(stopped.solutions[2]![0]).toBe('def' + raw);
    // A stop word the request did not carry (`###`, beyond the first four) in an answer cut at max_tokens: the text before it.
    const cut = bigcode('quixbugs', 'prompt', QUIXBUGS_ROWS, [[], [], [raw + '###more']]);
    expect(quixBugsFamily.solution(problem!, 'completions', raw, { raw: raw + '###more', finishReason: 'length' })).toBe(
      cut.solutions[2]![0],
    );
    // A file's completion (no ending known) is read as the endpoint returned it: kept.
    expect(quixBugsFamily.solution(problem!, 'completions', raw)).toBe('def' + raw);
  });

  it('chat answers are the fixed function; saved generations are bigcode post-processed ones; references and limits', () => {
    const [p] = load('prompt');
    const code = QUIXBUGS_ROWS[0]!.solution;
    expect(quixBugsFamily.solution(p!, 'chat', code)).toBe(code);
    expect(quixBugsFamily.solution(p!, 'saved', code)).toBe(code);
    expect(quixBugsFamily.referenceSolution(p!)).toBe(code);
    expect(quixBugsFamily.checking(p!)).toEqual({ kind: 'tests' });
    // bigcode gives QuixBugs 10 s; a longer sweep timeout is kept.
    expect(quixBugsFamily.limits(p!, null, 3000)).toEqual({ timeoutMs: 10_000 });
    expect(quixBugsFamily.limits(p!, null, 30_000)).toEqual({ timeoutMs: 30_000 });
    expect(quixBugsFamily.score(p!, { status: 'passed', stdout: '' })).toEqual({ kind: 'quixbugs', passed: true, success: true });
    expect(quixBugsFamily.score(p!, { status: 'timeout', stdout: '' })).toMatchObject({ passed: false });
  });

  it('evaluate.ts recognises the rows, reads --prompt, refuses edit-openai and unknown formats', () => {
    const text = jsonl(QUIXBUGS_ROWS);
    expect(recognizeFamily(text, 'quixbugs_python.jsonl')).toBe('quixbugs');
    expect(loadEvaluateProblems({ text, source: 'q.jsonl' }).problems).toEqual(load('prompt', text, 'q.jsonl'));
    expect(loadEvaluateProblems({ text, source: 'q.jsonl', options: { prompt: 'edit' } }).problems).toEqual(load('edit', text, 'q.jsonl'));
    expect(loadEvaluateProblems({ text: JSON.stringify(QUIXBUGS_ROWS), source: 'q.json' }).problems).toEqual(
      load('prompt', text, 'q.json'),
    );
    expect(() => loadEvaluateProblems({ text, source: 'q.jsonl', options: { prompt: 'edit-openai' } })).toThrow(
      '--prompt: edit-openai is not a QuixBugs prompt bigcode runs (its QuixBugs constructor refuses it: no stop words for it)',
    );
    expect(() => FAMILIES.quixbugs.entrySchema.parse({ name: 'q', family: 'quixbugs', path: 'q.jsonl', prompt: 'edit-openai' })).toThrow(
      /edit-openai is not a QuixBugs prompt bigcode runs/,
    );
    expect(() => FAMILIES.quixbugs.entrySchema.parse({ name: 'q', family: 'quixbugs', path: 'q.jsonl', prompt: 'diff' })).toThrow(
      /must be one of bigcode's QuixBugs prompts: prompt, edit, prompt_codex/,
    );
  });

  it('bad rows are refused naming the file, the line and the field', () => {
    const bad = (i: number, patch: object) => jsonl(QUIXBUGS_ROWS.map((r, j) => (j === i ? { ...r, ...patch } : r)));
    expect(() => load('prompt', bad(1, { tests: undefined }), 'q.jsonl')).toThrow(/^q\.jsonl:2: tests: /);
    expect(() => load('prompt', bad(2, { name: '' }), 'q.jsonl')).toThrow(/^q\.jsonl:3: name: /);
    expect(() => load('prompt', bad(2, { name: 'gcd' }), 'q.jsonl')).toThrow('q.jsonl:3: name: gcd is given twice (first on line 2)');
    expect(() => load('prompt', '', 'q.jsonl')).toThrow('q.jsonl has no tasks');
  });
});

describe('Parity', () => {
  const load = (prompt: ParityPrompt, text = jsonl(PARITY_BUGS), source = 'parity.jsonl') =>
    parityFamily.load({
      entry: { name: 'parity', family: 'parity', path: source, prompt },
      texts: { rows: text },
      sources: { rows: source },
    }).problems;

  it.each(PARITY_PROMPTS.map((p) => [p]))("prompt %s: prompts, stop words, solutions and the tests are bigcode's", (prompt) => {
    const reference = bigcode('parity', prompt, PARITY_BUGS, PARITY_GENERATIONS);
    const problems = load(prompt);
    expect(problems.map((p) => p.task_id)).toEqual(PARITY_BUGS.map((n) => `parity/${n}-bugs`));
    expect(problems.map((p) => parityFamily.completionPrompt(p))).toEqual(reference.prompts);
    expect(parityFamily.stopWords({} as never)).toEqual(reference.stop_words);
    expect(solutionsOf(parityFamily, {} as never, PARITY_GENERATIONS, problems as never[])).toEqual(reference.solutions);
    for (const p of problems) expect(parityFamily.tests(p, null)).toBe(reference.tests);
  });

  it('the edge cases: an answer that stops at once is `def`; the first block is rstripped; the reference is the function without bugs', () => {
    const reference = bigcode('parity', 'prompt', PARITY_BUGS, PARITY_GENERATIONS);
    expect(reference.solutions[1]![1]).toBe('def');
    expect(reference.solutions[1]![0]!.endsWith('% 2')).toBe(true);
    const [p] = load('prompt');
    expect(parityFamily.referenceSolution(p!)).toBe(reference.unmutated);
    expect(firstBlock('a  \n\t\nclass B', ['\nclass'])).toBe('a');
  });

  it("evaluate.ts reads the bug counts (JSON Lines or bigcode's list) and --prompt; bad counts are refused", () => {
    expect(loadEvaluateProblems({ text: '[1, 2, 3, 4, 5]', source: 'parity.json', family: 'parity' }).problems).toEqual(
      load('prompt', jsonl(PARITY_BUGS), 'parity.json'),
    );
    expect(
      loadEvaluateProblems({ text: jsonl(PARITY_BUGS), source: 'p.jsonl', family: 'parity', options: { prompt: 'diff' } }).problems,
    ).toEqual(load('diff', jsonl(PARITY_BUGS), 'p.jsonl'));
    expect(() => loadEvaluateProblems({ text: '[1]', source: 'p.json', family: 'parity', options: { prompt: 'prompt_codex' } })).toThrow(
      '--prompt: must be one of "prompt", "prompt_carper", "edit", "diff", got a string ("prompt_codex")',
    );
    expect(() => load('prompt', '1\n6\n', 'p.jsonl')).toThrow(/^p\.jsonl:2: \(row\): must be a bug count, 1 to 5/);
    expect(() => load('prompt', '1\n2\n1\n', 'p.jsonl')).toThrow('p.jsonl:3: 1 bugs is given twice (first on line 1)');
  });
});

describe('Python Bugs', () => {
  const load = (prompt: PythonBugsPrompt, text = jsonl(PYTHON_BUGS_ROWS), source = 'python-bugs.jsonl') =>
    pythonBugsFamily.load({
      entry: { name: 'pb', family: 'python-bugs', path: source, prompt },
      texts: { rows: text },
      sources: { rows: source },
    }).problems;

  it.each(PYTHON_BUGS_PROMPTS.map((p) => [p]))("prompt %s: prompts, solutions and mean exact match are bigcode's", (prompt) => {
    const reference = bigcode('python_bugs', prompt, PYTHON_BUGS_ROWS, PYTHON_BUGS_GENERATIONS);
    const problems = load(prompt);
    expect(problems.map((p) => pythonBugsFamily.completionPrompt(p))).toEqual(reference.prompts);
    // The request carries none: the family ends the text as bigcode's stopping criterion does, over bigcode's words.
    expect(pythonBugsFamily.stopWords({} as never)).toEqual([]);
    expect(PYTHON_BUGS_STOP_WORDS).toEqual(reference.stop_words);
    const solutions = solutionsOf(pythonBugsFamily, {} as never, PYTHON_BUGS_GENERATIONS, problems as never[]);
    expect(solutions).toEqual(reference.solutions);
    expect(problems.map((p) => textCheckingOf(p)!.reference)).toEqual(reference.references);
    const fold = new CorpusFold(textCheckingOf(problems[0]!)!.metric);
    problems.forEach((p, t) => solutions[t]!.forEach((s, i) => fold.add(textScore(textCheckingOf(p)!, s).stats, i === 0)));
    expect(fold.result()!.figures).toEqual(reference.metrics);
  });

  it("the prompt formats' scores differ as bigcode's do; the BMP edge: Python's length, not UTF-16's", () => {
    const reference = bigcode('python_bugs', 'prompt', PYTHON_BUGS_ROWS, PYTHON_BUGS_GENERATIONS);
    expect(reference.metrics!['mean exact match']).toBe(3 / 6);
    // Sliced by UTF-16 units the third task's wrong fix would keep its newline: bigcode's keeps code points.
    const correct = PYTHON_BUGS_ROWS[2]!.correct_code;
    expect(reference.solutions[2]![0]).toBe(correct);
    const wrong = 'def' + PYTHON_BUGS_GENERATIONS[2]![1]!;
    expect(reference.solutions[2]![1]).toBe(wrong.slice(0, -2));
    expect(wrong.slice(0, correct.length)).toBe(wrong.slice(0, -1));
    // The stop word is kept before the cut to the correct code's length: an answer that stops at once keeps it.
    expect(reference.solutions[1]![1]).toBe('def\n"');
    expect(codePointPrefix('a😀b', 2)).toBe('a😀');
  });

  it('chat answers and saved generations; evaluate.ts recognises the rows, reads --prompt, refuses prompt_present', () => {
    const [p] = load('prompt');
    const correct = PYTHON_BUGS_ROWS[0]!.correct_code;
    expect(pythonBugsFamily.solution(p!, 'chat', `${correct}\n\nprint(is_even(2))`)).toBe(correct);
    expect(pythonBugsFamily.solution(p!, 'saved', `${correct}\n`)).toBe(`${correct}\n`);
    expect(pythonBugsFamily.referenceSolution(p!)).toBeNull();
    const text = jsonl(PYTHON_BUGS_ROWS);
    expect(recognizeFamily(text, 'train.jsonl')).toBe('python-bugs');
    expect(loadEvaluateProblems({ text, source: 't.jsonl', options: { prompt: 'edit' } }).problems).toEqual(load('edit', text, 't.jsonl'));
    expect(() => loadEvaluateProblems({ text, source: 't.jsonl', options: { prompt: 'prompt_present' } })).toThrow(
      /^--prompt: prompt_present is not a Python Bugs prompt bigcode runs; prompt_present is refused by its mutate_code/,
    );
    expect(() =>
      FAMILIES['python-bugs'].entrySchema.parse({ name: 'p', family: 'python-bugs', path: 't.jsonl', prompt: 'prompt_present' }),
    ).toThrow(/prompt_present is not a Python Bugs prompt bigcode runs/);
  });

  it('bad rows are refused naming the file, the line and the field', () => {
    const bad = (i: number, patch: object) => jsonl(PYTHON_BUGS_ROWS.map((r, j) => (j === i ? { ...r, ...patch } : r)));
    expect(() => load('prompt', bad(1, { task: 'off-by-one' }), 'pb.jsonl')).toThrow(
      /^pb\.jsonl:2: task: must be one of bin-op, var-misuse/,
    );
    expect(() => load('prompt', bad(0, { correct_code: 3 }), 'pb.jsonl')).toThrow(/^pb\.jsonl:1: correct_code: /);
    expect(() => load('prompt', '', 'pb.jsonl')).toThrow('pb.jsonl has no tasks');
  });
});
