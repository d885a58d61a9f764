/**
 * A model's `sanitize:` (domain/llm/sanitizer.ts): the sweep config takes it and refuses it where it
 * cannot apply, naming the field; a chat answer's code is then the sanitizer's, not the fenced
 * block's; datasets in another language are refused by name. (The sanitizer's output itself is
 * checked against evalplus in sanitize-reference.test.ts; evaluate.ts's --sanitize in
 * test/evaluate/evaluate-sanitize.e2e.test.ts.)
 */
import type { Parser } from 'web-tree-sitter';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { sanitizeEvalplus } from '../../domain/llm/evalplusSanitize.js';
import { answerSanitizer, sanitizerLanguageProblems } from '../../domain/llm/sanitizer.js';
import { parseSweepConfig } from '../../domain/sweep/config.js';
import { answerCode } from '../../domain/sweep/textScores.js';
import { loadPythonParser } from '../../infra/pythonParser.js';
import { minimalSweepConfig, sweepConfigIssues } from '../support/sweep-config.js';

const F = '```';

let parser: Parser;
beforeAll(async () => {
  parser = await loadPythonParser();
});

function withModel(fields: Record<string, unknown>): Record<string, unknown> {
  const config = minimalSweepConfig();
  const [model] = config.models as Array<Record<string, unknown>>;
  return { ...config, models: [{ ...model, ...fields }] };
}

describe('sanitize: in a sweep config', () => {
  it('is taken on a chat model, and absent by default', () => {
    expect(parseSweepConfig(withModel({ sanitize: 'evalplus' })).models[0]!.sanitize).toBe('evalplus');
    expect(parseSweepConfig(withModel({})).models[0]!).not.toHaveProperty('sanitize');
  });

  it('an unknown sanitizer is refused, naming the field and the choices', () => {
    const issues = sweepConfigIssues(withModel({ sanitize: 'evalplusplus' }));
    expect(issues.find((i) => i.path === 'models[0].sanitize')?.message).toContain(
      'must be one of "evalplus", got a string ("evalplusplus")',
    );
  });

  it('a completion model with a sanitizer is refused', () => {
    const issues = sweepConfigIssues(withModel({ api: 'completions', sanitize: 'evalplus' }));
    expect(issues.find((i) => i.path === 'models[0].sanitize')?.message).toContain('give api: chat');
  });

  it('a misspelt key is named with sanitize among the expected ones', () => {
    const issues = sweepConfigIssues(withModel({ sanitise: 'evalplus' }));
    expect(JSON.stringify(issues)).toContain('sanitize');
  });
});

describe('answerCode with a sanitizer', () => {
  const problem = {
    task_id: 'HumanEval/0',
    prompt: 'def area(r):\n',
    entry_point: 'area',
    test: 'def check(candidate):\n    assert candidate(1) == 3\n',
    family: 'humaneval',
  } as unknown as SweepProblem;
  // The fenced-block rule takes the first python block that defines the entry point, with its
  // example call; evalplus keeps the helper the entry point calls and drops the rest.
  const answer =
    `<think>\nA helper in a block of its own.\n</think>\nFirst a helper:\n${F}python\ndef pi():\n    return 3\n${F}\n` +
    `Then:\n${F}python\ndef area(r):\n    return pi() * r * r\n\nprint(area(2))\n${F}\n`;

  it("is the sanitizer's code for a chat answer (thinking dropped first)", () => {
    const sanitize = answerSanitizer('evalplus', parser);
    const sanitized = answerCode(problem, 'chat', answer, [], sanitize);
    expect(sanitized).toBe(sanitizeEvalplus(parser, answer.slice(answer.indexOf('</think>') + 8), 'area'));
    expect(sanitized).toBe('def area(r):\n    return pi() * r * r');
    expect(answerCode(problem, 'chat', answer, [])).toBe('def area(r):\n    return pi() * r * r\n\nprint(area(2))');
  });

  it('leaves completions to the stop words', () => {
    const sanitize = answerSanitizer('evalplus', parser);
    expect(answerCode(problem, 'completions', '    return 3 * r * r\ndef extra():\n', ['\ndef'], sanitize)).toBe('    return 3 * r * r');
  });
});

describe('sanitizerLanguageProblems', () => {
  it('names the model and the dataset whose problems are in another language', () => {
    const models = [{ id: 'plain' }, { id: 'chatty', sanitize: 'evalplus' as const }];
    expect(sanitizerLanguageProblems(models, [{ name: 'humaneval', languages: new Set(['python']) }])).toEqual([]);
    const problems = sanitizerLanguageProblems(models, [
      { name: 'humaneval', languages: new Set(['python']) },
      { name: 'multiple-js', languages: new Set(['js']) },
    ]);
    expect(problems).toEqual([
      'models[1].sanitize (chatty): evalplus reads python answers, but datasets[multiple-js] has js problems; list the model in another sweep, or leave sanitize out',
    ]);
  });
});
