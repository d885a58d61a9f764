/** The lines of a provider batch: input lines, request sets within the limits, answers read back. */
import { describe, expect, it } from 'vitest';
import { batchAnswerOf, inputLine, splitPlan } from '../../domain/llm/batchLines.js';

const line = (id: string, prompt = 'p') => ({ custom_id: id, body: { model: 'm', prompt, max_tokens: 8, temperature: 0, top_p: 1 } });

describe('batch input lines', () => {
  it('are the Batch API shape: custom_id, POST, the endpoint of the API, the body as the method made it', () => {
    expect(JSON.parse(inputLine('chat', line('a')))).toEqual({
      custom_id: 'a',
      method: 'POST',
      url: '/v1/chat/completions',
      body: line('a').body,
    });
    expect(JSON.parse(inputLine('completions', line('a'))).url).toBe('/v1/completions');
  });

  it('are cut into sets within max_requests and max_bytes, in order; a request alone over max_bytes is an error naming it', () => {
    const plan = ['a', 'b', 'c', 'd', 'e'].map((id) => line(id));
    expect(splitPlan('completions', plan, { maxRequests: 2, maxBytes: 1 << 20 }).map((s) => s.map((l) => l.custom_id))).toEqual([
      ['a', 'b'],
      ['c', 'd'],
      ['e'],
    ]);
    const size = new TextEncoder().encode(inputLine('completions', plan[0]!)).length + 1;
    expect(splitPlan('completions', plan, { maxRequests: 100, maxBytes: 3 * size }).map((s) => s.length)).toEqual([3, 2]);
    expect(() => splitPlan('completions', [line('big', 'x'.repeat(5000))], { maxRequests: 10, maxBytes: 1024 })).toThrow(
      /batch request big is \d+ bytes, over max_bytes 1024: raise models\[i\]\.batch\.max_bytes/,
    );
  });
});

describe('a batch output line', () => {
  const ok = (body: unknown) => ({ custom_id: 'a', response: { status_code: 200, body }, error: null });

  it('answers with each choice in index order, and the usage', () => {
    const answer = batchAnswerOf(
      'chat',
      { n: 2 },
      ok({
        choices: [
          { index: 1, message: { content: 'second' }, finish_reason: 'length' },
          { index: 0, message: { content: 'first' }, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: 11, completion_tokens: 4 },
      }),
    );
    expect(answer?.choices).toEqual([
      { text: 'first', finishReason: 'stop' },
      { text: 'second', finishReason: 'length' },
    ]);
    expect([answer?.promptTokens, answer?.completionTokens]).toEqual([11, 4]);
  });

  it('answers nothing when it failed, expired or brought a body the API schema refuses', () => {
    expect(batchAnswerOf('completions', {}, { custom_id: 'a', response: { status_code: 500, body: {} } })).toBeNull();
    expect(
      batchAnswerOf('completions', {}, { custom_id: 'a', response: null, error: { code: 'batch_expired', message: 'late' } }),
    ).toBeNull();
    expect(batchAnswerOf('completions', {}, ok({ choices: [] }))).toBeNull();
    expect(batchAnswerOf('completions', {}, ok({ choices: [{ text: 'a' }, { text: 'b' }] }))).toBeNull();
  });
});
