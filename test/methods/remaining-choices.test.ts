/** remainingChoicesBody: the request asking again for the choices an answer left out. */
import { describe, expect, it } from 'vitest';
import { chatBody } from '../../domain/methods/chat.js';
import { remainingChoicesBody } from '../../domain/methods/sampling.js';

const sampling = { model: 'm', temperature: 0.8, top_p: 0.95, max_tokens: 64, seed: 100 };
const messages = [{ role: 'user' as const, content: 'hi' }];

describe('remainingChoicesBody', () => {
  it('every choice: the body itself', () => {
    const body = chatBody(sampling, messages, 4, 3);
    expect(remainingChoicesBody(body, [0, 1, 2])).toBe(body);
  });

  it('the rest: their count as n, the seed of the first of them, so one left is the one-choice request of its sample', () => {
    const body = chatBody(sampling, messages, 4, 5);
    expect(remainingChoicesBody(body, [1, 2, 4])).toEqual({ ...body, seed: 105, n: 3 });
    expect(remainingChoicesBody(body, [3])).toEqual(chatBody(sampling, messages, 7));
  });

  it('no seed: none is added', () => {
    const { seed: _s, ...unseeded } = sampling;
    const body = chatBody(unseeded, messages, 0, 2);
    expect(remainingChoicesBody(body, [1])).toEqual(chatBody(unseeded, messages, 0));
  });

  it('positions outside the request, repeated or out of order are a bug, said so', () => {
    const body = chatBody(sampling, messages, 0, 3);
    for (const bad of [[], [3], [-1], [1, 1], [2, 1]])
      expect(() => remainingChoicesBody(body, bad)).toThrow(/remaining choices .* of a request for 3/);
  });
});
