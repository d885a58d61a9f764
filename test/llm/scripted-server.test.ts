import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import {
  canonicalBodyKey,
  countTokens,
  startScriptedLlmServer,
  type Reply,
  type Script,
  type ScriptedLlmServer,
  type ScriptedRequest,
} from '../support/scripted-llm-server.js';
import { waitUntil } from '../support/poll.js';

const servers: ScriptedLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(script: Script, options?: Parameters<typeof startScriptedLlmServer>[1]): Promise<ScriptedLlmServer> {
  const server = await startScriptedLlmServer(script, options);
  servers.push(server);
  return server;
}

function client(server: ScriptedLlmServer, extra: Partial<ConstructorParameters<typeof OpenAI>[0]> = {}): OpenAI {
  return new OpenAI({ baseURL: server.url, apiKey: 'x', maxRetries: 0, ...extra });
}

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

describe('scripted LLM server with the openai SDK', () => {
  it('listens on 127.0.0.1 on a port of its own, base URL of its own ending in /v1', async () => {
    const a = await serve(() => ({ content: 'a' }));
    const b = await serve(() => ({ content: 'b' }));
    expect(a.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${a.port}/scripted-[0-9a-f]{12}/v1$`));
    expect(a.url.replace(/:\d+\//, '/')).not.toBe(b.url.replace(/:\d+\//, '/'));
    expect(a.port).toBeGreaterThan(0);
    expect(b.port).not.toBe(a.port);
  });

  it('chat completions: the answer in the API shape, usage by whitespace words', async () => {
    const seen: ScriptedRequest[] = [];
    const server = await serve((req) => {
      seen.push(req);
      return { content: 'def add(a, b):\n    return a + b' };
    });
    const response = await client(server).chat.completions.create({
      model: 'm-1',
      messages: [
        { role: 'system', content: 'You write Python.' },
        { role: 'user', content: 'Write add(a, b).' },
      ],
      temperature: 0.2,
      top_p: 0.95,
      max_tokens: 64,
      seed: 7,
    });
    expect(response.object).toBe('chat.completion');
    expect(response.id).toBe('chatcmpl-scripted-1');
    expect(typeof response.created).toBe('number');
    expect(response.model).toBe('m-1');
    expect(response.choices).toEqual([
      {
        index: 0,
        message: { role: 'assistant', content: 'def add(a, b):\n    return a + b', refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ]);
    // prompt: "You write Python." + "Write add(a, b)." = 3 + 3 words; completion: def add(a, b): return a + b = 7
    expect(response.usage).toEqual({ prompt_tokens: 6, completion_tokens: 7, total_tokens: 13 });

    expect(seen).toHaveLength(1);
    expect(seen[0]!.api).toBe('chat');
    expect(seen[0]!.requestNumber).toBe(1);
    expect(seen[0]!.attempt).toBe(1);
    expect(seen[0]!.body).toMatchObject({ model: 'm-1', temperature: 0.2, top_p: 0.95, max_tokens: 64, seed: 7 });
    expect(seen[0]!.headers.authorization).toBe('Bearer x');

    const [recorded] = server.requests();
    expect(recorded).toMatchObject({ requestNumber: 1, api: 'chat', attempt: 1 });
    expect(recorded!.key).toBe(canonicalBodyKey(recorded!.body));
    expect(recorded!.answeredAt).toBeGreaterThanOrEqual(recorded!.time);
  });

  it('completions: text choices in the API shape', async () => {
    const server = await serve(({ body }) => ({ content: `    return ${String(body.prompt).length}\n` }));
    const response = await client(server).completions.create({ model: 'base', prompt: 'def f():\n', max_tokens: 16, temperature: 0 });
    expect(response.object).toBe('text_completion');
    expect(response.id).toBe('cmpl-scripted-1');
    expect(response.model).toBe('base');
    expect(response.choices).toEqual([{ index: 0, text: '    return 9\n', logprobs: null, finish_reason: 'stop' }]);
    expect(response.usage).toEqual({ prompt_tokens: 2, completion_tokens: 2, total_tokens: 4 });
    expect(server.requests().map((r) => r.api)).toEqual(['completions']);
  });

  it('n > 1 gives n choices, the same text or one per choice', async () => {
    const server = await serve(({ body, requestNumber }) =>
      requestNumber === 1 ? { content: 'same' } : { content: Array.from({ length: Number(body.n) }, (_, i) => `answer ${i}`) },
    );
    const c = client(server);
    const same = await c.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], n: 3 });
    expect(same.choices.map((ch) => [ch.index, ch.message.content])).toEqual([
      [0, 'same'],
      [1, 'same'],
      [2, 'same'],
    ]);
    expect(same.usage!.completion_tokens).toBe(3);
    const each = await c.completions.create({ model: 'm', prompt: 'p', n: 4 });
    expect(each.choices.map((ch) => ch.text)).toEqual(['answer 0', 'answer 1', 'answer 2', 'answer 3']);
    expect(each.usage!.completion_tokens).toBe(8);
  });

  it('applies stop sequences like a real server (unless told not to)', async () => {
    const text = '    return 1\n\ndef other():\n    pass';
    const server = await serve(() => ({ content: text }));
    const response = await client(server).completions.create({ model: 'm', prompt: 'def f():\n', stop: ['\ndef', '\nclass'] });
    expect(response.choices[0]!.text).toBe('    return 1\n');
    const raw = await serve(() => ({ content: text }), { applyStop: false });
    const unchanged = await client(raw).completions.create({ model: 'm', prompt: 'def f():\n', stop: ['\ndef'] });
    expect(unchanged.choices[0]!.text).toBe(text);
  });

  it('429 with retry-after, visible on the SDK error', async () => {
    const server = await serve(() => ({ status: 429, retryAfterSeconds: 7 }));
    const error = await errorOf(client(server).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }));
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const e = error as InstanceType<typeof OpenAI.APIError>;
    expect(e.status).toBe(429);
    expect(e.headers?.get('retry-after')).toBe('7');
    expect(e.code).toBe('rate_limit_exceeded');
    expect(e.type).toBe('requests');
    expect(e.error).toMatchObject({ message: expect.stringContaining('Rate limit'), param: null, code: 'rate_limit_exceeded' });
  });

  it('the SDK retries after a 429 honouring retry-after, and the retry is the same request', async () => {
    const server = await serve(({ attempt }) => (attempt === 1 ? { status: 429, retryAfterSeconds: 0.3 } : { content: 'ok' }));
    const started = Date.now();
    const response = await client(server, { maxRetries: 2 }).chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.choices[0]!.message.content).toBe('ok');
    const requests = server.requests();
    expect(requests.map((r) => r.attempt)).toEqual([1, 2]);
    expect(requests[1]!.time - requests[0]!.time).toBeGreaterThanOrEqual(250);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect([...server.countByKey().values()]).toEqual([2]);
  });

  it('500 in the API error shape', async () => {
    const server = await serve(() => ({ status: 500 }));
    const error = await errorOf(client(server).completions.create({ model: 'm', prompt: 'p' }));
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    const e = error as InstanceType<typeof OpenAI.APIError>;
    expect(e.status).toBe(500);
    expect(e.type).toBe('server_error');
    expect(e.error).toEqual({
      message: 'The server had an error while processing your request. Sorry about that!',
      type: 'server_error',
      param: null,
      code: null,
    });
  });

  it('400 with the scripted message and param', async () => {
    const server = await serve(() => ({
      status: 400,
      message: "This model's maximum context length is 4096 tokens.",
      param: 'messages',
      code: 'context_length_exceeded',
    }));
    const error = await errorOf(client(server).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'long' }] }));
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const e = error as InstanceType<typeof OpenAI.APIError>;
    expect(e.status).toBe(400);
    expect(e.message).toContain('maximum context length');
    expect(e.param).toBe('messages');
    expect(e.code).toBe('context_length_exceeded');
    expect(e.type).toBe('invalid_request_error');
  });

  it('a malformed 200 body makes the SDK throw', async () => {
    const server = await serve(() => ({ malformed: true }));
    const error = await errorOf(client(server).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }));
    expect(error).toBeInstanceOf(Error);
    expect(server.requests()).toHaveLength(1);
  });

  it('a slow answer arrives after its delay', async () => {
    const server = await serve(() => ({ delayMs: 300, content: 'late' }));
    const started = Date.now();
    const response = await client(server).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.choices[0]!.message.content).toBe('late');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    const [r] = server.requests();
    expect(r!.answeredAt! - r!.time).toBeGreaterThanOrEqual(290);
  });

  it('a hung request: the SDK times out; close() ends it', async () => {
    const server = await serve(() => ({ hang: true }));
    const error = await errorOf(
      client(server, { timeout: 300 }).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(error).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);

    const other = await serve(() => ({ hang: true }));
    const pending = errorOf(client(other).completions.create({ model: 'm', prompt: 'p' }));
    await waitUntil(() => other.requests().length === 1, { what: 'the other server to get its request', timeoutMs: 5000, intervalMs: 10 });
    expect(other.inFlight().now).toBe(1);
    await other.close();
    expect(await pending).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(other.requests()[0]!.answeredAt).toBeUndefined();
  });

  it('records every request; countByKey tells distinct requests apart', async () => {
    const server = await serve(() => ({ content: 'x' }));
    const c = client(server);
    const ask = (seed: number) =>
      c.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'q' }], temperature: 0.8, seed });
    await Promise.all([ask(1), ask(2), ask(3)]);
    await ask(2);
    const counts = server.countByKey();
    expect(counts.size).toBe(3);
    const bySeed = new Map([...counts].map(([key, n]) => [(JSON.parse(key) as { seed: number }).seed, n]));
    expect(bySeed).toEqual(
      new Map([
        [1, 1],
        [2, 2],
        [3, 1],
      ]),
    );
    expect(server.requests().map((r) => r.requestNumber)).toEqual([1, 2, 3, 4]);
    expect(
      server
        .requests()
        .filter((r) => r.body.seed === 2)
        .map((r) => r.attempt),
    ).toEqual([1, 2]);
  });

  it('the key does not depend on the order of the body keys', () => {
    expect(canonicalBodyKey({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: 3 } })).toBe(
      canonicalBodyKey({ a: { c: 3, d: [2, { e: 0, f: 1 }] }, b: 1 }),
    );
    expect(canonicalBodyKey({ a: [1, 2] })).not.toBe(canonicalBodyKey({ a: [2, 1] }));
  });

  it('tracks how many requests were in flight at once', async () => {
    const server = await serve(() => ({ delayMs: 200, content: 'x' }));
    const c = client(server);
    await Promise.all([1, 2, 3, 4].map((i) => c.completions.create({ model: 'm', prompt: `p${i}` })));
    expect(server.inFlight()).toEqual({ now: 0, max: 4 });
  });

  it('GET /v1/models lists the configured models', async () => {
    const server = await serve(() => ({ content: '' }), { models: ['a', 'b'] });
    const page = await client(server).models.list();
    expect(page.data.map((m) => m.id)).toEqual(['a', 'b']);
    expect(page.data[0]).toMatchObject({ object: 'model', owned_by: 'scripted' });
  });

  it('checks the API key when given one', async () => {
    const server = await serve(() => ({ content: 'ok' }), { apiKey: 'secret' });
    const error = await errorOf(client(server).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }));
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    const ok = await client(server, { apiKey: 'secret' }).chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(ok.choices[0]!.message.content).toBe('ok');
  });

  it('refuses requests a real server would refuse, without calling the script', async () => {
    let calls = 0;
    const server = await serve(() => {
      calls++;
      return { content: 'x' };
    });
    const c = client(server);
    const missingMessages = await errorOf(c.chat.completions.create({ model: 'm', messages: [] }));
    expect(missingMessages).toBeInstanceOf(OpenAI.BadRequestError);
    expect((missingMessages as InstanceType<typeof OpenAI.APIError>).param).toBe('messages');
    const badTemperature = await errorOf(c.completions.create({ model: 'm', prompt: 'p', temperature: 3 }));
    expect((badTemperature as InstanceType<typeof OpenAI.APIError>).param).toBe('temperature');

    const raw = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toEqual({ error: { message: expect.any(String), type: 'invalid_request_error', param: null, code: null } });
    const unknown = await fetch(`${server.url}/embeddings`, { method: 'POST', body: '{}' });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('unknown_url');
    expect(calls).toBe(0);
    expect(server.requests()).toHaveLength(0);
  });

  it('a script that throws or gives the wrong number of choices becomes a 500', async () => {
    const server = await serve(({ requestNumber }): Reply => {
      if (requestNumber === 1) throw new Error('boom');
      return { content: ['only one'] };
    });
    const c = client(server);
    const thrown = await errorOf(c.completions.create({ model: 'm', prompt: 'p' }));
    expect((thrown as InstanceType<typeof OpenAI.APIError>).status).toBe(500);
    expect((thrown as Error).message).toContain('boom');
    const wrongN = await errorOf(c.completions.create({ model: 'm', prompt: 'p', n: 2 }));
    expect((wrongN as Error).message).toContain('n=2');
  });

  it('countTokens: whitespace-separated words', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('  \n ')).toBe(0);
    expect(countTokens('def f():\n    return 1')).toBe(4);
  });
});
