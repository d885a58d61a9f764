/**
 * The embedded model server against the real model (Qwen2.5-Coder-0.5B-Instruct on llama.cpp, CPU):
 * both generating routes, the chat template, n > 1, seeds, stop, max_tokens, usage, embeddings,
 * errors in the API's shape, and simultaneous requests decoded as one batch (4 slots here).
 * Completions are kept to a few tokens.
 */
import OpenAI, { APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep, waitUntil } from '../support/poll.js';
import { ChatResponseSchema, CompletionResponseSchema } from '../../domain/llm/request.js';
import { FIM_PRESETS, fimPrompt } from '../../domain/llm/fim.js';
import { startModelServer, type ModelServer } from '../../stack/model-server/index.js';
import { expectApiError, get, installedModelPath, post, type Answer } from './support.js';

const MODEL = 'qwen2.5-coder-0.5b-instruct';
const SLOTS = 4;
let server: ModelServer;
let url: string;

beforeAll(async () => {
  server = await startModelServer({ host: '127.0.0.1', port: 0, modelPath: installedModelPath(), slots: SLOTS });
  url = server.url;
});
afterAll(async () => {
  await server?.close();
});

const completion = (body: Record<string, unknown>) => post(url, '/completions', { model: MODEL, ...body });
const chat = (body: Record<string, unknown>) => post(url, '/chat/completions', { model: MODEL, ...body });

describe('model server: routes and shapes', () => {
  it('lists the one model it serves, and finds it by id', async () => {
    expect(url).toBe(`http://127.0.0.1:${server.port}/v1`);
    const list = await get(url, '/models');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ object: 'list', data: [{ id: MODEL, object: 'model', created: expect.any(Number), owned_by: 'explora' }] });
    const one = await get(url, `/models/${MODEL}`);
    expect(one.body.id).toBe(MODEL);
    expectApiError(await get(url, '/models/gpt-4o'), 404, { code: 'model_not_found', param: 'model' });
  });

  it('completions: text, finish_reason, usage in the API shape', async () => {
    const r = await completion({ prompt: 'def add(a, b):\n', max_tokens: 8, temperature: 0 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ object: 'text_completion', model: MODEL, id: expect.stringMatching(/^cmpl-/) });
    expect(r.body.choices).toHaveLength(1);
    const [choice] = r.body.choices;
    expect(choice).toEqual({ index: 0, text: expect.any(String), logprobs: null, finish_reason: expect.stringMatching(/^(stop|length)$/) });
    expect(choice.text).toContain('return a + b');
    // "def add(a, b):\n" is 6 tokens for Qwen2.5's tokenizer.
    expect(r.body.usage.prompt_tokens).toBe(6);
    expect(r.body.usage.completion_tokens).toBeGreaterThan(0);
    expect(r.body.usage.completion_tokens).toBeLessThanOrEqual(8);
    expect(r.body.usage.total_tokens).toBe(r.body.usage.prompt_tokens + r.body.usage.completion_tokens);
  });

  it("chat: applies the model's chat template (same tokens and text as the rendered prompt sent to completions)", async () => {
    const question = 'Name one Python keyword.';
    const viaChat = await chat({ messages: [{ role: 'user', content: question }], max_tokens: 6, temperature: 0 });
    expect(viaChat.status).toBe(200);
    expect(viaChat.body).toMatchObject({ object: 'chat.completion', model: MODEL, id: expect.stringMatching(/^chatcmpl-/) });
    const [choice] = viaChat.body.choices;
    expect(choice.message).toEqual({ role: 'assistant', content: expect.any(String), refusal: null });
    expect(choice.message.content.length).toBeGreaterThan(0);
    // Qwen2.5's template, written out: default system prompt, ChatML turns, generation prompt.
    const rendered =
      '<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n' +
      `<|im_start|>user\n${question}<|im_end|>\n<|im_start|>assistant\n`;
    const viaCompletions = await completion({ prompt: rendered, max_tokens: 6, temperature: 0 });
    expect(viaCompletions.body.usage).toEqual(viaChat.body.usage);
    expect(viaCompletions.body.choices[0].text).toBe(choice.message.content);
    // A system message replaces the default one: fewer prompt tokens than with it.
    const withSystem = await chat({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: question },
      ],
      max_tokens: 1,
      temperature: 0,
    });
    expect(withSystem.body.usage.prompt_tokens).toBeLessThan(viaChat.body.usage.prompt_tokens);
  });

  it('max_tokens: stops after exactly that many tokens with finish_reason length', async () => {
    const r = await completion({ prompt: '# A long list of Python keywords, one per line:\n', max_tokens: 5, temperature: 0 });
    expect(r.body.choices[0].finish_reason).toBe('length');
    expect(r.body.usage.completion_tokens).toBe(5);
    const c = await chat({
      messages: [{ role: 'user', content: 'Write a long essay about Python.' }],
      max_completion_tokens: 3,
      temperature: 0,
    });
    expect(c.body.choices[0].finish_reason).toBe('length');
    expect(c.body.usage.completion_tokens).toBe(3);
  });

  it('stop: the text ends before the first stop sequence, which is not included', async () => {
    const prompt = 'def is_even(n):\n    """Return True if n is even."""\n';
    const free = await completion({ prompt, max_tokens: 12, temperature: 0 });
    const text: string = free.body.choices[0].text;
    expect(text.length).toBeGreaterThan(4);
    // A stop sequence taken from inside the free text, and a second one that comes later or never.
    const stop = text.slice(3, 5);
    const stopped = await completion({ prompt, max_tokens: 12, temperature: 0, stop: [text.slice(-1) + 'NEVER', stop] });
    expect(stopped.body.choices[0].finish_reason).toBe('stop');
    expect(stopped.body.choices[0].text).toBe(text.slice(0, text.indexOf(stop)));
    expect(stopped.body.usage.completion_tokens).toBeLessThan(free.body.usage.completion_tokens + 1);
    // A single string works too (the API accepts both).
    const single = await completion({ prompt, max_tokens: 12, temperature: 0, stop });
    expect(single.body.choices[0].text).toBe(stopped.body.choices[0].text);
  });

  it("completions: a FIM prompt's special tokens are read as such (one token each), and the model fills the gap", async () => {
    const { prefix, suffix, middle } = FIM_PRESETS['qwen2.5-coder'];
    const one = await completion({ prompt: prefix, max_tokens: 1, temperature: 0 });
    expect(one.body.usage.prompt_tokens).toBe(1);
    // Another model's FIM token is plain text to Qwen's tokenizer: several tokens.
    const other = await completion({ prompt: FIM_PRESETS.starcoder.prefix, max_tokens: 1, temperature: 0 });
    expect(other.body.usage.prompt_tokens).toBeGreaterThan(1);
    const fim = await completion({
      prompt: fimPrompt(FIM_PRESETS['qwen2.5-coder'], { prefix: 'def add(a, b):\n    ', suffix: '\n\nprint(add(1, 2))\n' }),
      max_tokens: 6,
      temperature: 0,
    });
    expect(fim.body.choices[0].text).toMatch(/^return a \+ b/);
    expect(fim.body.choices[0].text).not.toContain(middle);
    expect(fim.body.choices[0].text).not.toContain(suffix);
  });

  it('embeddings: one vector per input, deterministic, float or base64', async () => {
    const r = await post(url, '/embeddings', { model: MODEL, input: ['def f(): pass', 'hello world'] });
    expect(r.status).toBe(200);
    expect(r.body.object).toBe('list');
    expect(r.body.data.map((d: any) => [d.object, d.index])).toEqual([
      ['embedding', 0],
      ['embedding', 1],
    ]);
    const a: number[] = r.body.data[0].embedding;
    const b: number[] = r.body.data[1].embedding;
    expect(a).toHaveLength(896);
    expect(a.every(Number.isFinite)).toBe(true);
    expect(a).not.toEqual(b);
    expect(r.body.usage.prompt_tokens).toBeGreaterThan(2);
    const again = await post(url, '/embeddings', { model: MODEL, input: 'def f(): pass', encoding_format: 'base64' });
    const floats = new Float32Array(Buffer.from(again.body.data[0].embedding, 'base64').buffer.slice(0));
    expect(Array.from(floats)).toEqual(a.map((x) => Math.fround(x)));
    expectApiError(await post(url, '/embeddings', { model: MODEL, input: 'x', dimensions: 3 }), 400, { param: 'dimensions' });
  });
});

describe('model server: sampling', () => {
  const prompt = 'import random\n\n# Pick a name for a pet:\nname = "';

  it('the same seeded request gives the same text at temperature > 0, also after other requests', async () => {
    const body = { prompt, max_tokens: 10, temperature: 1.3, top_p: 0.95, seed: 1234 };
    const first = await completion(body);
    await completion({ prompt: 'x = ', max_tokens: 3, temperature: 1, seed: 99 });
    const second = await completion(body);
    expect(second.body.choices).toEqual(first.body.choices);
    expect(second.body.usage).toEqual(first.body.usage);
    // Other seeds give other samples (at this temperature several seeds all agreeing would be a fixed RNG).
    const others = await Promise.all([1, 2, 3].map((seed) => completion({ ...body, seed })));
    const texts = new Set([first, ...others].map((r) => r.body.choices[0].text));
    expect(texts.size).toBeGreaterThan(1);
  });

  it('chat is reproducible with a seed too', async () => {
    const body = { messages: [{ role: 'user', content: 'Invent a function name.' }], max_tokens: 8, temperature: 1.2, seed: 42 };
    const a = await chat(body);
    const b = await chat(body);
    expect(b.body.choices[0].message.content).toBe(a.body.choices[0].message.content);
  });

  it('n > 1: n choices; choice i is what a single request with seed + i gives; usage adds up', async () => {
    const r = await completion({ prompt, n: 3, max_tokens: 6, temperature: 1.5, seed: 500 });
    expect(r.status).toBe(200);
    expect(r.body.choices.map((c: any) => c.index)).toEqual([0, 1, 2]);
    const singles = await Promise.all([500, 501, 502].map((seed) => completion({ prompt, max_tokens: 6, temperature: 1.5, seed })));
    expect(r.body.choices.map((c: any) => c.text)).toEqual(singles.map((s) => s.body.choices[0].text));
    expect(r.body.usage.prompt_tokens).toBe(singles[0]!.body.usage.prompt_tokens);
    expect(r.body.usage.completion_tokens).toBe(singles.reduce((sum, s) => sum + s.body.usage.completion_tokens, 0));
    expect(new Set(r.body.choices.map((c: any) => c.text)).size).toBeGreaterThan(1);
    const c = await chat({ messages: [{ role: 'user', content: 'Say hi.' }], n: 2, max_tokens: 3, temperature: 1, seed: 1 });
    expect(c.body.choices).toHaveLength(2);
  });

  it('temperature 0 is greedy: seeds do not matter', async () => {
    const [a, b] = await Promise.all([1, 2].map((seed) => completion({ prompt, max_tokens: 6, temperature: 0, seed })));
    expect(a!.body.choices[0].text).toBe(b!.body.choices[0].text);
  });

  it('a batch of prompts gives n choices per prompt, in order', async () => {
    const r = await completion({ prompt: ['def add(a, b):\n', 'def sub(a, b):\n'], n: 2, max_tokens: 6, temperature: 0 });
    expect(r.body.choices).toHaveLength(4);
    expect(r.body.choices[0].text).toContain('a + b');
    expect(r.body.choices[2].text).toContain('a - b');
  });
});

describe('model server: errors in the API shape', () => {
  it('400 for malformed or invalid requests, naming the parameter', async () => {
    expectApiError(await post(url, '/completions', '{"model": '), 400, { type: 'invalid_request_error', param: null });
    expectApiError(await post(url, '/completions', '[1, 2]'), 400);
    expectApiError(await post(url, '/completions', { prompt: 'x' }), 400, { param: 'model', message: /model/ });
    expectApiError(await completion({}), 400, { param: 'prompt' });
    expectApiError(await completion({ prompt: 'x', temperature: 3 }), 400, { param: 'temperature' });
    expectApiError(await completion({ prompt: 'x', top_p: 1.5 }), 400, { param: 'top_p' });
    expectApiError(await completion({ prompt: 'x', max_tokens: 0 }), 400, { param: 'max_tokens' });
    expectApiError(await completion({ prompt: 'x', n: 0 }), 400, { param: 'n' });
    expectApiError(await completion({ prompt: 'x', seed: 1.5 }), 400, { param: 'seed' });
    expectApiError(await completion({ prompt: 'x', stop: [''] }), 400, { param: 'stop' });
    expectApiError(await completion({ prompt: '' }), 400, { param: 'prompt' });
    expectApiError(await completion({ prompt: 'x', stream: true }), 400, { param: 'stream' });
    expectApiError(await completion({ prompt: 'x', logprobs: 2 }), 400, { param: 'logprobs' });
    expectApiError(await chat({ messages: [] }), 400, { param: 'messages' });
    expectApiError(await chat({ messages: [{ role: 'wizard', content: 'x' }] }), 400, { param: 'messages[0].role' });
    expectApiError(await chat({ messages: [{ role: 'user', content: 'x' }], presence_penalty: 1 }), 400, { param: 'presence_penalty' });
    expectApiError(await chat({ messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function' }] }), 400, { param: 'tools' });
    expectApiError(await chat({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }] }), 400, {
      param: 'messages[0].content',
      message: /text parts/,
    });
    // Unknown parameters are refused as the API does, not dropped.
    expectApiError(await completion({ prompt: 'x', top_k: 5 }), 400, {
      param: 'top_k',
      message: /Unrecognized request argument supplied: top_k/,
    });
  });

  it('400 context_length_exceeded when prompt plus max_tokens do not fit', async () => {
    expectApiError(await completion({ prompt: 'x', max_tokens: 1_000_000 }), 400, {
      code: 'context_length_exceeded',
      message: /maximum context length is 8192/,
    });
    expectApiError(await completion({ prompt: 'word '.repeat(9000) }), 400, { code: 'context_length_exceeded', param: 'prompt' });
  });

  it('404 for an unknown model or route, 405 for a wrong method', async () => {
    expectApiError(await post(url, '/completions', { model: 'gpt-4o', prompt: 'x' }), 404, { code: 'model_not_found', param: 'model' });
    expectApiError(await post(url, '/chat/completions', { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }), 404, {
      code: 'model_not_found',
    });
    expectApiError(await post(url, '/engines/x/completions', {}), 404, { type: 'invalid_request_error' });
    expectApiError(await get(url, '/nothing'), 404);
    expectApiError(await get(url, '/chat/completions'), 405);
  });
});

const health = async () => (await get(url.replace(/\/v1$/, ''), '/health')).body;

/** Polls /health until `done` settles; the most slots it saw busy at once. */
async function mostBusySlots(done: Promise<unknown>): Promise<number> {
  let settled = false;
  void done.finally(() => (settled = true)).catch(() => undefined);
  let most = 0;
  while (!settled) {
    most = Math.max(most, (await health()).slots.busy);
    await sleep(30);
  }
  return most;
}

describe('model server: batching', () => {
  const prompt = 'import random\n\n# Pick a name for a pet:\nname = "';

  it('requests arriving together share the slots; each answer is what it is alone, usage per request', async () => {
    // Alone first, one after the other, then all at once: 2 + 1 choices and a stopped one, in one batch.
    const bodies = [
      { prompt, n: 2, max_tokens: 6, temperature: 1.2, seed: 70 },
      { prompt: 'def area(r):\n', max_tokens: 5, temperature: 0 },
      { prompt: '# Three fruits:\nfruits = [', max_tokens: 10, temperature: 0, stop: [','] },
    ];
    const alone: Answer[] = [];
    for (const b of bodies) alone.push(await completion(b));
    const together = Promise.all(bodies.map((b) => completion(b)));
    const busy = await mostBusySlots(together);
    const answers = await together;
    expect(busy).toBeGreaterThanOrEqual(3);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    answers.forEach((a, i) => {
      expect(a.body.choices).toEqual(alone[i]!.body.choices);
      expect(a.body.usage).toEqual(alone[i]!.body.usage);
      expect(a.body.usage.completion_tokens).toBeGreaterThan(0);
      expect(a.body.usage.total_tokens).toBe(a.body.usage.prompt_tokens + a.body.usage.completion_tokens);
    });
    expect(answers[0]!.body.choices.map((c: any) => c.index)).toEqual([0, 1]);
    // Each choice stops by its own rule: the stopped one at its comma, the others by length.
    expect(answers[2]!.body.choices[0].finish_reason).toBe('stop');
    expect(answers[2]!.body.choices[0].text).not.toContain(',');
    expect(answers[1]!.body.choices[0].finish_reason).toBe('length');
    expect(answers[1]!.body.usage.completion_tokens).toBe(5);
  });

  it('more choices than slots: the rest wait for a slot and start as others finish (continuous batching)', async () => {
    const n = SLOTS + 2;
    const r = await completion({ prompt, n, max_tokens: 4, temperature: 1, seed: 900 });
    expect(r.status).toBe(200);
    expect(r.body.choices.map((c: any) => c.index)).toEqual([...Array(n).keys()]);
    // The last choice, which waited for a slot, is still seed + its index.
    const last = await completion({ prompt, max_tokens: 4, temperature: 1, seed: 900 + n - 1 });
    expect(r.body.choices[n - 1].text).toBe(last.body.choices[0].text);
    // Seeded, so fixed: no choice ends before its 4 tokens here.
    expect(r.body.choices.map((c: any) => c.finish_reason)).toEqual(r.body.choices.map(() => 'length'));
    expect(r.body.usage.completion_tokens).toBe(n * 4);
    const h = await health();
    expect(h.queue).toEqual({ running: false, waiting: 0 });
    expect(h.slots).toEqual({ total: SLOTS, busy: 0, generating: 0 });
  });

  it('a prompt that shares a start with an earlier one reuses its cache, with the same result', async () => {
    const head = '# Utilities for strings, lists and numbers.\nimport math\n\n';
    const b = { prompt: `${head}def clamp(x, lo, hi):\n`, max_tokens: 8, temperature: 1.1, seed: 5 };
    const first = await completion(b);
    // Another request with the same start, then b again: b now evaluates only its own tail.
    await completion({ prompt: `${head}def mean(xs):\n`, max_tokens: 3, temperature: 0 });
    const again = await completion(b);
    expect(again.body.choices).toEqual(first.body.choices);
  });

  it('a client that gives up mid-generation frees its slots; its batch neighbours finish as they would alone', async () => {
    const neighbour = { prompt: 'def long_function():\n', n: 2, max_tokens: 12, temperature: 0.9, seed: 3 };
    const alone = await completion(neighbour);
    const abandon = new AbortController();
    const running = completion(neighbour);
    // Greedy, the model counts on for thousands of tokens.
    const endless = {
      model: MODEL,
      prompt: '# The numbers from 1 to 5000, one per line:\n1\n2\n3\n',
      n: 2,
      max_tokens: 4000,
      temperature: 0,
    };
    const gone = post(url, '/completions', endless, { signal: abandon.signal }).catch((err: Error) => err);
    await waitUntil(async () => (await health()).slots.generating === 4, {
      what: 'all four choices generating',
      timeoutMs: 60_000,
      intervalMs: 20,
    });
    abandon.abort();
    expect(await gone).toBeInstanceOf(Error);
    // A request that fails validation meanwhile is answered 400 and touches no slot.
    expectApiError(await completion({ prompt: 'x', max_tokens: 1_000_000 }), 400, { code: 'context_length_exceeded' });
    const answer = await running;
    expect(answer.status).toBe(200);
    expect(answer.body.choices).toEqual(alone.body.choices);
    expect(answer.body.usage).toEqual(alone.body.usage);
    // The abandoned choices (4000 tokens each) stopped: every slot is free again.
    await waitUntil(async () => (await health()).slots.busy === 0, {
      what: 'the abandoned choices to free their slots',
      timeoutMs: 60_000,
    });
  });
});

describe('model server: concurrency', () => {
  it('more simultaneous requests than slots: all answered, the later ones after a wait, and the server stays responsive', async () => {
    const bodies = Array.from({ length: SLOTS + 2 }, (_, i) => ({
      prompt: `# Task ${i}\ndef f${i}(x):\n`,
      max_tokens: 4,
      temperature: 0.7,
      seed: i,
    }));
    const pending = bodies.map((b, i) =>
      i % 2 ? completion(b) : chat({ messages: [{ role: 'user', content: b.prompt }], max_tokens: 4, seed: i }),
    );
    // While they run, the server still answers what needs no model.
    const h = await health();
    expect(h.status).toBe('ok');
    expect(h.queue.running).toBe(true);
    const models = await get(url, '/models');
    expect(models.status).toBe(200);
    const answers = await Promise.all(pending);
    expect(answers.map((a) => a.status)).toEqual(bodies.map(() => 200));
    for (const a of answers) expect(a.body.usage.completion_tokens).toBeGreaterThan(0);
    // Two had to wait for a slot, as the header says.
    expect(answers.filter((a) => Number(a.headers.get('x-explora-queue-ms')) > 0).length).toBeGreaterThanOrEqual(2);
    for (const a of answers) expect(Number(a.headers.get('x-explora-first-token-ms'))).toBeGreaterThan(0);
    // A seeded request answered in a crowd is the same as answered alone only where llama.cpp's
    // kernels round a prompt the same whatever other prompts share its batch (the 2026-11-26 VMs);
    // on the 2026-11-29 AMD VM (AVX2) they do not, and the sampled text can differ (docs/model.md).
    // What holds on every CPU: the same request alone gives the same text again, after the crowd.
    const alone = await completion(bodies[1]!);
    expect(alone.body.choices[0].text.length).toBeGreaterThan(0);
    expect((await completion(bodies[1]!)).body.choices).toEqual(alone.body.choices);
  });

  it('a client that gives up while waiting for a slot leaves the queue; the server goes on', async () => {
    const fill = Array.from({ length: SLOTS }, (_, i) =>
      completion({ prompt: `def long_function_${i}():\n`, max_tokens: 12, temperature: 0 }),
    );
    const abandon = new AbortController();
    const abandoned = completion({ prompt: 'x', max_tokens: 4 }).catch(() => null);
    const gone = post(url, '/completions', { model: MODEL, prompt: 'y', max_tokens: 4 }, { signal: abandon.signal }).catch(
      (err: Error) => err,
    );
    await sleep(100);
    abandon.abort();
    expect(await gone).toBeInstanceOf(Error);
    expect((await Promise.all(fill)).map((a) => a.status)).toEqual(fill.map(() => 200));
    expect((await abandoned)?.status).toBe(200);
    const h = await health();
    expect(h.queue).toEqual({ running: false, waiting: 0 });
    expect(h.slots.busy).toBe(0);
  });
});

describe('model server with the openai SDK', () => {
  it('models, chat, completions and embeddings through the real client; errors as APIError', async () => {
    const client = new OpenAI({ baseURL: url, apiKey: 'unused', maxRetries: 0 });
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual([MODEL]);

    const chatAnswer = await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: 'You write Python.' },
        { role: 'user', content: 'Write add(a, b).' },
      ],
      max_tokens: 5,
      temperature: 0.8,
      top_p: 0.95,
      seed: 7,
      n: 2,
      stop: ['\n\n\n'],
    });
    expect(chatAnswer.choices).toHaveLength(2);
    expect(chatAnswer.usage?.completion_tokens).toBeGreaterThan(0);
    // What the project's LLM activity accepts as a response.
    expect(ChatResponseSchema.safeParse(chatAnswer).success).toBe(true);

    const textAnswer = await client.completions.create({
      model: MODEL,
      prompt: 'def add(a, b):\n',
      max_tokens: 8,
      temperature: 0,
      n: 1,
      seed: 3,
    });
    expect(textAnswer.choices[0]!.text).toContain('a + b');
    expect(CompletionResponseSchema.safeParse(textAnswer).success).toBe(true);

    // The SDK asks for base64 embeddings by default and decodes them.
    const embedding = await client.embeddings.create({ model: MODEL, input: 'def f(): pass' });
    expect(embedding.data[0]!.embedding).toHaveLength(896);

    const notFound = await client.completions.create({ model: 'gpt-4o', prompt: 'x', max_tokens: 1 }).catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(APIError);
    expect(notFound).toMatchObject({ status: 404, code: 'model_not_found', param: 'model', type: 'invalid_request_error' });
    const bad = await client.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'x' }], temperature: 9 })
      .catch((e: unknown) => e);
    expect(bad).toMatchObject({ status: 400, param: 'temperature', type: 'invalid_request_error' });
  });
});
