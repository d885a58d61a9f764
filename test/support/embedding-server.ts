/**
 * A real OpenAI-compatible `/v1/embeddings` server for tests: answers with `embed(text)` for each
 * input (in reversed order, as a server is free to: clients must place vectors by `index`), records
 * what it received, and answers the next requests with `overrides` when given, after `delayMs`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedEmbeddingRequest {
  inputs: string[];
  body: Record<string, unknown>;
  authorization: string | undefined;
}

export type EmbeddingOverride = { status: number; headers?: Record<string, string>; body?: string } | { wrongCount: true };

export interface EmbeddingServer {
  url: string;
  received: ReceivedEmbeddingRequest[];
  overrides: EmbeddingOverride[];
  /** How long every answer is held back (a slow model: calls for the same texts overlap). */
  delayMs: number;
  close(): Promise<void>;
}

export async function startEmbeddingServer(embed: (text: string) => number[]): Promise<EmbeddingServer> {
  const received: ReceivedEmbeddingRequest[] = [];
  const overrides: EmbeddingOverride[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
        return;
      }
      const body = JSON.parse(raw) as Record<string, unknown>;
      const inputs = typeof body.input === 'string' ? [body.input] : (body.input as string[]);
      received.push({ inputs, body, authorization: req.headers.authorization });
      const override = overrides.shift();
      if (override && 'status' in override) {
        res
          .writeHead(override.status, { 'content-type': 'application/json', ...override.headers })
          .end(
            override.body ??
              JSON.stringify({ error: { message: `scripted ${override.status}`, type: 'scripted', param: null, code: null } }),
          );
        return;
      }
      const items = inputs.map((text, index) => ({ object: 'embedding', index, embedding: embed(text) }));
      if (override && 'wrongCount' in override) items.pop();
      items.reverse();
      const answer = JSON.stringify({
        object: 'list',
        model: body.model,
        data: items,
        usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
      });
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(answer), api.delayMs);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const api: EmbeddingServer = { url, received, overrides, delayMs: 0, close: () => new Promise<void>((r) => server.close(() => r())) };
  return api;
}
