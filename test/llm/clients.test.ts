/**
 * The OpenAI client pool the LLM and embedding activities share: one client per endpoint, key and
 * timeout; a key variable the worker lacks fails for good, naming the variable and the endpoint.
 */
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { OpenAiClients } from '../../infra/llm/openaiClients.js';

const endpoint = { baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'EXPLORA_TEST_KEY', requestTimeoutS: 30 };

describe('OpenAiClients', () => {
  it('refuses an endpoint whose key variable the worker lacks or has empty, for good, naming both', () => {
    for (const env of [{}, { EXPLORA_TEST_KEY: '' }]) {
      const clients = new OpenAiClients(env);
      let caught: unknown;
      try {
        clients.for(endpoint, 'model gpt-x');
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(ApplicationFailure);
      expect((caught as ApplicationFailure).nonRetryable).toBe(true);
      expect((caught as ApplicationFailure).type).toBe('LlmConfigError');
      expect((caught as Error).message).toBe('model gpt-x: the worker has no EXPLORA_TEST_KEY in its environment');
    }
  });

  it('keeps one client per endpoint, key and timeout, with the SDK retries off', () => {
    const env: Record<string, string> = { EXPLORA_TEST_KEY: 'k1' };
    const clients = new OpenAiClients(env);
    const a = clients.for(endpoint, 'model a');
    expect(clients.for({ ...endpoint }, 'model b')).toBe(a);
    expect(a.maxRetries).toBe(0);
    expect(a.apiKey).toBe('k1');
    expect(a.timeout).toBe(30_000);
    expect(clients.for({ ...endpoint, requestTimeoutS: 5 }, 'model a')).not.toBe(a);
    expect(clients.for({ ...endpoint, baseUrl: 'http://127.0.0.1:10/v1' }, 'model a')).not.toBe(a);
    env.EXPLORA_TEST_KEY = 'k2'; // a rotated key gets a client of its own
    expect(clients.for(endpoint, 'model a').apiKey).toBe('k2');
    // Without a key variable the endpoint needs none.
    expect(clients.for({ baseUrl: endpoint.baseUrl, requestTimeoutS: 30 }, 'local').apiKey).toBe('unused');
  });
});
