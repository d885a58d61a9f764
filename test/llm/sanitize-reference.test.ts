/**
 * explora's evalplus sanitizer (domain/llm/evalplusSanitize.ts) against evalplus 0.3.1's own
 * `sanitize`, run in the tests' Python (scripts/install-test-python.sh installs it, without its
 * dependencies, in .tools/test-python-evalplus), byte for byte on the chat answers of
 * sanitize-answers.ts; and explora's stand-in for CPython's `ast.parse` (`isPythonSyntax`) against
 * evalplus's `syntax_check` on every run of lines evalplus's `code_extract` tries in them, and on
 * snippets where tree-sitter and CPython 3.11 may disagree.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Parser } from 'web-tree-sitter';
import { beforeAll, describe, expect, it } from 'vitest';
import { isPythonSyntax, longestValidCode, sanitizeEvalplus } from '../../domain/llm/evalplusSanitize.js';
import { loadPythonParser } from '../../infra/pythonParser.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { seededUniform } from '../../domain/compare/stats.js';
import { CHAT_ANSWERS, PYTHON_SNIPPETS, splicedAnswers } from './sanitize-answers.js';

/** The written answers, then 300 spliced from their lines. */
const ANSWERS = [...CHAT_ANSWERS, ...splicedAnswers(300, seededUniform(43))];

const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const EVALPLUS = path.join(PROJECT_ROOT, '.tools/test-python-evalplus');

let reference: { sanitized: string[]; extracted: string[]; syntax: boolean[][]; snippets: boolean[] };
let parser: Parser;

beforeAll(async () => {
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'inherit' });
  const out = execFileSync(PYTHON, [path.join(import.meta.dirname, 'sanitize_reference.py')], {
    input: JSON.stringify({ answers: ANSWERS.map(({ answer, entryPoint }) => ({ answer, entryPoint })), snippets: PYTHON_SNIPPETS }),
    env: { ...process.env, PYTHONPATH: EVALPLUS },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  reference = JSON.parse(out) as typeof reference;
  parser = await loadPythonParser();
}, 300_000);

describe('sanitizeEvalplus', () => {
  it('the corpus covers what evalplus does: kept and dropped definitions, the fallback, no code', () => {
    expect(CHAT_ANSWERS.length).toBeGreaterThanOrEqual(30);
    expect(reference.sanitized).toHaveLength(ANSWERS.length);
    const outcomes = CHAT_ANSWERS.map((c, k) => ({ ...c, out: reference.sanitized[k]! }));
    // Some answers lose definitions to the entry point's reachability, some fall back to the
    // longest valid code, some keep nothing useful: the corpus is not one of identities.
    expect(outcomes.filter((o) => o.out !== '' && !o.answer.includes(o.out)).length).toBeGreaterThan(5);
    expect(outcomes.filter((o) => o.out === '').length).toBeGreaterThan(0);
  });

  for (const [k, c] of CHAT_ANSWERS.entries()) {
    it(`as evalplus: ${c.what}`, () => {
      expect(sanitizeEvalplus(parser, c.answer, c.entryPoint)).toBe(reference.sanitized[k]);
    });
  }

  it('as evalplus on 300 answers spliced from the corpus at random', () => {
    const spliced = ANSWERS.slice(CHAT_ANSWERS.length);
    const differ = spliced.filter(
      (c, k) => sanitizeEvalplus(parser, c.answer, c.entryPoint) !== reference.sanitized[CHAT_ANSWERS.length + k],
    );
    expect(differ.map((c) => c.answer)).toEqual([]);
  });

  it("longestValidCode is evalplus's code_extract on every answer", () => {
    const differ = ANSWERS.filter((c, k) => longestValidCode(parser, c.answer) !== reference.extracted[k]);
    expect(differ.map((c) => c.what)).toEqual([]);
  });

  it("without an entry point, '' and null are the same (evalplus tests its truthiness)", () => {
    const answer = CHAT_ANSWERS.find((c) => c.entryPoint === null)!.answer;
    expect(sanitizeEvalplus(parser, answer, '')).toBe(sanitizeEvalplus(parser, answer, null));
  });
});

describe('isPythonSyntax', () => {
  it("agrees with evalplus's syntax_check (CPython's ast.parse) on every run of lines code_extract tries", () => {
    let runs = 0;
    let valid = 0;
    for (const [k, c] of ANSWERS.entries()) {
      const lines = c.answer.split('\n');
      const mine: boolean[] = [];
      for (let i = 0; i < lines.length; i++)
        for (let j = i + 1; j < lines.length; j++) mine.push(isPythonSyntax(parser, lines.slice(i, j + 1).join('\n')));
      expect(mine, c.what).toEqual(reference.syntax[k]);
      runs += mine.length;
      valid += mine.filter(Boolean).length;
    }
    // Both answers occur often enough for the comparison to mean something.
    expect(runs).toBeGreaterThan(1000);
    expect(valid).toBeGreaterThan(runs / 10);
    expect(valid).toBeLessThan(runs - runs / 10);
  });

  it('agrees with syntax_check where tree-sitter and CPython 3.11 may disagree', () => {
    const mine = PYTHON_SNIPPETS.map((s) => isPythonSyntax(parser, s));
    const differ = PYTHON_SNIPPETS.filter((_, k) => mine[k] !== reference.snippets[k]);
    expect(differ).toEqual([]);
    // Most of them are refused by CPython: each is a rule isPythonSyntax adds to tree-sitter's.
    expect(reference.snippets.filter((ok) => !ok).length).toBeGreaterThan(40);
  });
});
