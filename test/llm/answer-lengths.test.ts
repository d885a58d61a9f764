import { describe, expect, it } from 'vitest';
import { tallyAnswers, type AnswerTally } from '../../domain/llm/answerLengths.js';

const M = { id: 'm', baseUrl: 'http://h/v1', model: 'x' };
const rec = (over: Record<string, unknown>, body: Record<string, unknown> = { model: 'x' }, baseUrl = 'http://h/v1') => ({
  status: 'ok' as const,
  calls: 1,
  promptTokens: 10,
  completionTokens: 40,
  request: { base_url: baseUrl, body },
  ...over,
});

describe('tallyAnswers', () => {
  it("counts a request's choices as its answers, its usage once, and only the model's answered requests with usage", () => {
    const into = new Map<string, AnswerTally>();
    tallyAnswers(
      [
        rec({}),
        // A request of 3 choices: usage on its first record (90 tokens for 3 answers), 0 on the others.
        rec({ completionTokens: 90 }, { model: 'x', n: 3 }),
        rec({ calls: 0, promptTokens: 0, completionTokens: 0 }, { model: 'x', n: 3 }),
        rec({ calls: 0, promptTokens: 0, completionTokens: 0 }, { model: 'x', n: 3 }),
        rec({ status: 'error', completionTokens: 0 }),
        rec({ promptTokens: 0, completionTokens: 0 }), // a server that reports no usage
        rec({}, { model: 'other' }),
        rec({}, { model: 'x' }, 'http://elsewhere/v1'),
      ],
      [M],
      into,
    );
    expect(into.get('m')).toEqual({ answers: 4, completionTokens: 130 });
  });
});
