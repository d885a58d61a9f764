/**
 * The fetch the OpenAI clients use (undici's request, body buffered), driven through the SDK itself
 * against real HTTP servers: what the server receives, statuses and headers the retry logic reads,
 * compressed answers, the SDK's timeout while waiting for headers and while reading the body, a
 * refused connection, and bodies it hands to the built-in fetch.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAiClients } from '../../infra/llm/openaiClients.js';
import { undiciFetch } from '../../infra/llm/undiciFetch.js';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => (s.closeAllConnections(), s.close(r)))));
});

async function serve(answer: (req: Received, res: http.ServerResponse) => void): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(r);
      answer(r, res);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, received };
}

const completion = (text: string) =>
  JSON.stringify({
    id: 'cmpl-1',
    object: 'text_completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, text, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
  });

function client(url: string, timeoutS = 30): OpenAI {
  return new OpenAiClients({ KEY: 'sk-test' }).for({ baseUrl: url, apiKeyEnv: 'KEY', requestTimeoutS: timeoutS }, 'model m');
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

describe('undiciFetch through the OpenAI SDK', () => {
  it('sends the request the SDK built (method, path, key, JSON body with its length) and parses the answer', async () => {
    const { url, received } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req-7' });
      res.end(completion('    return 1\n'));
    });
    const answer = await client(url).completions.create({ model: 'm', prompt: 'def f():\n  é', temperature: 0.8, max_tokens: 16, n: 2 });
    expect(answer.choices[0]!.text).toBe('    return 1\n');
    expect(answer.usage?.completion_tokens).toBe(2);
    expect(received).toHaveLength(1);
    const [r] = received;
    expect(r!.method).toBe('POST');
    expect(r!.url).toBe('/v1/completions');
    expect(r!.headers.authorization).toBe('Bearer sk-test');
    expect(r!.headers['content-type']).toBe('application/json');
    expect(Number(r!.headers['content-length'])).toBe(Buffer.byteLength(r!.body));
    expect(JSON.parse(r!.body)).toEqual({ model: 'm', prompt: 'def f():\n  é', temperature: 0.8, max_tokens: 16, n: 2 });
  });

  it("hands statuses and headers to the SDK's errors: 429 with Retry-After, 400 with its message", async () => {
    const { url } = await serve((req, res) => {
      if (req.body.includes('busy')) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' });
        res.end(JSON.stringify({ error: { message: 'slow down', type: 'rate_limit' } }));
      } else {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'prompt too long', type: 'invalid_request_error' } }));
      }
    });
    const busy = await failure(client(url).completions.create({ model: 'm', prompt: 'busy' }));
    expect(busy).toBeInstanceOf(APIError);
    expect((busy as APIError).status).toBe(429);
    expect((busy as APIError).headers?.get('retry-after')).toBe('7');
    const bad = await failure(client(url).completions.create({ model: 'm', prompt: 'x' }));
    expect((bad as APIError).status).toBe(400);
    expect((bad as Error).message).toContain('prompt too long');
  });

  it('decodes gzip and brotli answers, and names an encoding it cannot decode', async () => {
    const { url } = await serve((req, res) => {
      const body = Buffer.from(completion(`said ${req.body.includes('gz') ? 'gzip' : 'br'}`));
      if (req.body.includes('gz')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(gzipSync(body));
      } else if (req.body.includes('br')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'br' });
        res.end(brotliCompressSync(body));
      } else {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'zstd-ish' });
        res.end(body);
      }
    });
    expect((await client(url).completions.create({ model: 'm', prompt: 'gz' })).choices[0]!.text).toBe('said gzip');
    expect((await client(url).completions.create({ model: 'm', prompt: 'br' })).choices[0]!.text).toBe('said br');
    const odd = await failure(client(url).completions.create({ model: 'm', prompt: 'odd' }));
    expect(odd).toBeInstanceOf(APIConnectionError);
    expect(String((odd as Error).cause)).toContain('content-encoding zstd-ish');
  });

  it("times out on the SDK's timeout, both before the headers and in the middle of the body", async () => {
    const { url } = await serve((req, res) => {
      if (req.body.includes('half')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(completion('x').slice(0, 20)); // and never the rest
      } // else: never answers at all
    });
    for (const prompt of ['silent', 'half']) {
      const started = Date.now();
      const err = await failure(client(url, 1).completions.create({ model: 'm', prompt }));
      expect(err, prompt).toBeInstanceOf(APIConnectionTimeoutError);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    }
  });

  it('reports a refused connection as a connection error, not a timeout', async () => {
    const { url } = await serve(() => {});
    const closed = url.replace(/:\d+\//, ':1/');
    const err = await failure(client(closed).completions.create({ model: 'm', prompt: 'x' }));
    expect(err).toBeInstanceOf(APIConnectionError);
    expect(err).not.toBeInstanceOf(APIConnectionTimeoutError);
  });
});

describe('undiciFetch on its own', () => {
  it('answers 204 without a body, and hands form bodies to the built-in fetch', async () => {
    const { url, received } = await serve((req, res) => {
      if (req.method === 'DELETE') {
        res.writeHead(204);
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`got ${req.headers['content-type']?.split(';')[0]}`);
      }
    });
    const gone = await undiciFetch(`${url}/x`, { method: 'delete' });
    expect(gone.status).toBe(204);
    expect(gone.body).toBeNull();
    const form = new FormData();
    form.append('file', new Blob(['abc']), 'a.txt');
    const posted = await undiciFetch(`${url}/files`, { method: 'POST', body: form });
    expect(await posted.text()).toBe('got multipart/form-data');
    expect(received.map((r) => r.method)).toEqual(['DELETE', 'POST']);
    expect(received[1]!.body).toContain('abc');
  });
});
