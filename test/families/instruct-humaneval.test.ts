/**
 * bigcode's instruct-humaneval and instruct-humaneval-nocontext through the instruct-humaneval
 * family, on rows in codeparrot/instructhumaneval's format (test/support/instruct-humaneval-rows.ts),
 * against bigcode's code written out in test/families/instruct_humaneval_reference.py: prompts with
 * StarChat's instruction tokens and with bigcode's default ones, the stop words, the answers raw
 * continuations become (the request's stop words and the model's EOS ending them, then
 * _parse_instruction and the task's post-processing) and the programs run. Outcomes in the sandbox:
 * instruct-humaneval.e2e.test.ts.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { instructHumanEvalFamily as family, parseInstruction, removeAfterReturn } from '../../domain/families/instruct-humaneval/index.js';
import { FAMILIES } from '../../domain/families/registry.js';
import { LANGUAGES } from '../../domain/languages/registry.js';
import { truncateAtStopWords } from '../../domain/llm/extract.js';
import { loadEvaluateProblems, recognizeFamily } from '../../scripts/lib/evaluate-problems.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import {
  INSTRUCT_CONTEXT_GENERATIONS,
  INSTRUCT_NOCONTEXT_GENERATIONS,
  INSTRUCT_ROWS,
  STARCHAT_EOS,
  STARCHAT_TOKENS,
} from '../support/instruct-humaneval-rows.js';
import { jsonl } from '../support/repair-rows.js';

const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const SCRIPT = path.resolve(import.meta.dirname, 'instruct_humaneval_reference.py');

type Tokens = [string, string, string];
const entryOf = (context: boolean, tokens: Tokens) =>
  FAMILIES['instruct-humaneval'].entrySchema.parse({
    name: 'ih',
    family: 'instruct-humaneval',
    path: 'test.jsonl',
    context,
    instruction_tokens: tokens,
  });
const load = (context: boolean, tokens: Tokens, text = jsonl(INSTRUCT_ROWS), source = 'test.jsonl') =>
  family.load({ entry: entryOf(context, tokens), texts: { rows: text }, sources: { rows: source } }).problems;

const bigcode = (context: boolean, tokens: Tokens, generations: string[][]) =>
  JSON.parse(
    execFileSync(PYTHON, [SCRIPT], {
      input: JSON.stringify({ rows: INSTRUCT_ROWS, context, tokens, eos: STARCHAT_EOS, generations }),
    }).toString(),
  ) as { prompts: string[]; stop_words: string[]; solutions: string[][]; references: string[] };

beforeAll(() => {
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'inherit' });
}, 600_000);

describe.each([
  ['instruct-humaneval', true, INSTRUCT_CONTEXT_GENERATIONS],
  ['instruct-humaneval-nocontext', false, INSTRUCT_NOCONTEXT_GENERATIONS],
] as const)('%s', (_task, context, generations) => {
  it.each([
    ['StarChat tokens', STARCHAT_TOKENS],
    ["bigcode's defaults", ['', '', '\n'] as Tokens],
  ])("with %s: prompts, stop words, answers and programs are bigcode's", (_what, tokens) => {
    const reference = bigcode(context, tokens, generations as string[][]);
    const entry = entryOf(context, tokens);
    const problems = load(context, tokens);
    expect(problems.map((p) => family.completionPrompt(p))).toEqual(reference.prompts);
    // bigcode's list is the family's with the tokenizer's EOS, which ends a completion at the server.
    expect([...family.stopWords(entry), STARCHAT_EOS].sort()).toEqual([...reference.stop_words].sort());
    const stops = family.stopWords(entry);
    const solutions = problems.map((p, t) =>
      generations[t]!.map((g) => family.solution(p, 'completions', truncateAtStopWords(g, [...stops, STARCHAT_EOS]))),
    );
    expect(solutions).toEqual(reference.solutions);
    problems.forEach((p, t) =>
      solutions[t]!.forEach((s) =>
        expect(LANGUAGES.python.assemble({ solution: s, tests: family.tests(p, null) })).toBe(`${s}\n${reference.references[t]}`),
      ),
    );
  });
});

describe('the pieces', () => {
  it("_parse_instruction and remove_after_return as bigcode's", () => {
    expect(parseInstruction('U x E A code', ['U', 'E', 'A'])).toBe(' code');
    expect(parseInstruction('U x E code', ['U', 'E', ''])).toBe(' code');
    expect(parseInstruction('no tokens', ['', '', ''])).toBe('no tokens');
    expect(parseInstruction('x A text ```python\ncode', ['', '', 'A```python'])).toBe('x A text ```python\ncode');
    expect(removeAfterReturn('def f():\n    return 1\n\nprint(1)\n')).toBe('def f():\n    return 1\n\n');
  });

  it('chat answers get the context before the function; saved generations are read as they are; the reference solution', () => {
    const [p] = load(true, STARCHAT_TOKENS);
    expect(family.solution(p!, 'chat', 'def has_close_elements(a, b):\n    return False')).toBe(
      'from typing import List\ndef has_close_elements(a, b):\n    return False',
    );
    expect(family.solution(p!, 'saved', 'x')).toBe('x');
    expect(family.referenceSolution(p!)).toBe(INSTRUCT_ROWS[0]!.prompt + INSTRUCT_ROWS[0]!.canonical_solution);
  });

  it('evaluate.ts recognises the rows; the task names set the variant; --instruction-tokens is checked', () => {
    const text = jsonl(INSTRUCT_ROWS);
    expect(recognizeFamily(text, 'test.jsonl')).toBe('instruct-humaneval');
    const tokens = STARCHAT_TOKENS.join(',');
    expect(loadEvaluateProblems({ text, source: 'test.jsonl', options: { instruction_tokens: tokens } }).problems).toEqual(
      load(true, STARCHAT_TOKENS),
    );
    expect(
      loadEvaluateProblems({ text, source: 'test.jsonl', options: { instruction_tokens: tokens, instructVariant: 'nocontext' } }).problems,
    ).toEqual(load(false, STARCHAT_TOKENS));
    expect(FAMILIES['instruct-humaneval'].evaluate).toMatchObject({ kind: 'reads' });
    expect(() => loadEvaluateProblems({ text, source: 'test.jsonl', options: { instruction_tokens: 'a,b' } })).toThrow(
      /^--instruction-tokens: must be exactly 3 tokens: user, end, assistant/,
    );
    expect(() => load(true, STARCHAT_TOKENS, jsonl([{ ...INSTRUCT_ROWS[0], instruction: undefined }]), 'i.jsonl')).toThrow(
      /^i\.jsonl:1: instruction: /,
    );
    expect(() => FAMILIES['instruct-humaneval'].entrySchema.parse({ name: 'i', family: 'instruct-humaneval', path: 'i.jsonl' })).toThrow(
      /instruction_tokens/,
    );
  });
});
