/**
 * The HTTP side: routes, request validation, the API's response and error shapes, the bound on
 * waiting requests, and client disconnects (a request whose client has gone leaves the queue, or
 * stops between tokens and frees its slots).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { z } from 'zod';
import { Engine, InvalidInputError, randomSeed, toSeed, type ChatTurn, type GeneratedChoice, type Generation } from './engine.js';
import { assertModelFile, modelIdFor } from './location.js';
import { AbortedError, QueueClosedError, QueueFullError, WorkQueue } from './queue.js';
import {
  ChatRequestSchema,
  CompletionRequestSchema,
  describeIssue,
  EmbeddingRequestSchema,
  MAX_CHOICES,
  unsupportedChat,
  unsupportedCompletion,
  type ChatRequest,
  type CompletionRequest,
} from './schemas.js';

export interface ModelServerOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 8090; 0 picks a free port. */
  port?: number;
  /** The GGUF to serve. */
  modelPath: string;
  /** The id clients send as `model` (default: the file name without .gguf). */
  modelId?: string;
  /** Prompt plus completion tokens per request (default: the model's, at most 8192). */
  contextSize?: number;
  /** llama.cpp CPU threads: a number, or 'auto' (default): per decode step, the cores other processes leave free, at most 2. */
  threads?: number | 'auto';
  /** Sequences decoded together (the `n` choices of requests in flight), each with its own cache (default 8). */
  slots?: number;
  /** Requests that may wait for a slot (embeddings: behind the running one) before the server answers 429 (default 32). */
  maxQueue?: number;
  /** Largest request body accepted, in bytes (default 8 MiB). */
  maxBodyBytes?: number;
  /** One line per request and llama.cpp's warnings (default: silent). */
  log?: (line: string) => void;
}

export interface ModelServer {
  /** Base URL for OpenAI clients, ending in /v1, e.g. http://127.0.0.1:8090/v1 */
  url: string;
  port: number;
  /** What clients put in `model`. */
  modelId: string;
  /** Stops listening, answers waiting requests 503, stops the running one, frees the model. */
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
    readonly param: string | null = null,
    readonly code: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const badRequest = (message: string, param: string | null = null, code: string | null = null) =>
  new HttpError(400, message, 'invalid_request_error', param, code);

function newId(prefix: string): string {
  return `${prefix}-${randomBytes(12).toString('hex')}`;
}

async function readBody(req: http.IncomingMessage, limit: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new HttpError(413, `The request body is larger than ${limit} bytes.`, 'invalid_request_error');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') throw badRequest('The request body is empty; send a JSON object.');
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest(
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload.)",
    );
  }
}

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('The request body must be a JSON object.');
  const result = schema.safeParse(body);
  if (!result.success) {
    const issue = describeIssue(result.error);
    throw badRequest(issue.message, issue.param || null);
  }
  return result.data;
}

function chatTurns(body: ChatRequest): ChatTurn[] {
  return body.messages.map((m) => ({
    role: m.role === 'developer' ? 'system' : m.role,
    content:
      m.content === null || m.content === undefined
        ? ''
        : typeof m.content === 'string'
          ? m.content
          : m.content.map((p) => p.text).join('\n'),
  }));
}

export async function startModelServer(options: ModelServerOptions): Promise<ModelServer> {
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? (() => {});
  const maxBodyBytes = options.maxBodyBytes ?? 8 * 1024 * 1024;
  assertModelFile(options.modelPath);
  const modelId = options.modelId ?? modelIdFor(options.modelPath);
  const engine = await Engine.load({
    modelPath: options.modelPath,
    ...(options.contextSize !== undefined ? { contextSize: options.contextSize } : {}),
    ...(options.threads !== undefined ? { threads: options.threads } : {}),
    ...(options.slots !== undefined ? { slots: options.slots } : {}),
    maxWaiting: options.maxQueue ?? 32,
    log,
  });
  /** Embeddings, one at a time (generation has the engine's slots). */
  const queue = new WorkQueue(options.maxQueue ?? 32);
  const shutdown = new AbortController();
  const fingerprint = `fp_llamacpp_${engine.model.fileInfo.metadata.general.architecture}_${engine.model.size}`;

  const modelObject = () => ({ id: modelId, object: 'model', created: engine.createdAt, owned_by: 'explora' });

  const checkModel = (model: string) => {
    if (model !== modelId) {
      throw new HttpError(
        404,
        `The model '${model}' does not exist or you do not have access to it. This server serves '${modelId}'.`,
        'invalid_request_error',
        'model',
        'model_not_found',
      );
    }
  };

  /** A full queue or a shutdown, as the API reports them. */
  const queueErrors = async <T>(work: Promise<T>): Promise<T> => {
    try {
      return await work;
    } catch (err) {
      if (err instanceof QueueFullError) {
        throw new HttpError(429, `${err.message}.`, 'requests', null, 'rate_limit_exceeded', { 'retry-after': String(err.retryAfterS) });
      }
      if (err instanceof QueueClosedError || (err instanceof AbortedError && shutdown.signal.aborted)) {
        throw new HttpError(503, 'The server is shutting down.', 'server_error');
      }
      throw err;
    }
  };

  const samplingOf = (body: ChatRequest | CompletionRequest, maxTokens: number) => ({
    temperature: body.temperature ?? 1,
    topP: body.top_p ?? 1,
    maxTokens,
    stop: body.stop,
    seed: body.seed === null || body.seed === undefined ? randomSeed() : toSeed(body.seed),
  });

  const maxTokensFor = (promptTokens: number, requested: number | null | undefined, param: string): number => {
    const room = engine.roomFor(promptTokens);
    if (room <= 0) {
      throw badRequest(
        `This model's maximum context length is ${engine.contextSize} tokens. However, your prompt has ${promptTokens} tokens. Please reduce the length of the prompt.`,
        param,
        'context_length_exceeded',
      );
    }
    return requested ?? room;
  };

  const timingHeaders = (g: Generation) => ({
    'x-explora-queue-ms': String(g.queueMs),
    'x-explora-prompt-ms': String(g.promptMs),
    'x-explora-generation-ms': String(g.generationMs),
    'x-explora-first-token-ms': String(g.firstTokenMs),
    'x-explora-threads': String(g.threads),
  });

  const usage = (promptTokens: number, choices: GeneratedChoice[]) => {
    const completion = choices.reduce((sum, c) => sum + c.completionTokens, 0);
    return { prompt_tokens: promptTokens, completion_tokens: completion, total_tokens: promptTokens + completion };
  };

  type Reply = { status: number; body: unknown; headers?: Record<string, string>; note?: string };

  async function chat(raw: unknown, signal: AbortSignal): Promise<Reply> {
    const body = parse(ChatRequestSchema, raw);
    const unsupported = unsupportedChat(body);
    if (unsupported) throw badRequest(unsupported.message, unsupported.param);
    checkModel(body.model);
    if (!engine.hasChatTemplate) throw badRequest('This model has no chat template; use /v1/completions.', 'messages');
    const prompt = engine.tokenize(engine.renderChat(chatTurns(body)));
    const maxTokens = maxTokensFor(prompt.length, body.max_completion_tokens ?? body.max_tokens, 'messages');
    const n = body.n ?? 1;
    const g = await queueErrors(engine.generate([prompt], samplingOf(body, maxTokens), n, signal));
    const { promptTokens, choices } = g.prompts[0]!;
    return {
      status: 200,
      headers: timingHeaders(g),
      note: `prompt ${promptTokens} completion ${usage(promptTokens, choices).completion_tokens} tokens, ${g.threads} threads`,
      body: {
        id: newId('chatcmpl'),
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: modelId,
        system_fingerprint: fingerprint,
        choices: choices.map((c, index) => ({
          index,
          message: { role: 'assistant', content: c.text, refusal: null },
          logprobs: null,
          finish_reason: c.finishReason,
        })),
        usage: usage(promptTokens, choices),
      },
    };
  }

  async function completions(raw: unknown, signal: AbortSignal): Promise<Reply> {
    const body = parse(CompletionRequestSchema, raw);
    const unsupported = unsupportedCompletion(body);
    if (unsupported) throw badRequest(unsupported.message, unsupported.param);
    checkModel(body.model);
    const prompts = typeof body.prompt === 'string' ? [body.prompt] : body.prompt;
    const n = body.n ?? 1;
    if (prompts.length * n > MAX_CHOICES)
      throw badRequest(`At most ${MAX_CHOICES} choices per request (prompts times n); this asks for ${prompts.length * n}.`, 'n');
    const tokenized = prompts.map((p, i) => {
      const tokens = engine.tokenize(p);
      if (tokens.length === 0) throw badRequest('The prompt is empty.', prompts.length > 1 ? `prompt[${i}]` : 'prompt');
      return tokens;
    });
    const longest = Math.max(...tokenized.map((t) => t.length));
    const maxTokens = maxTokensFor(longest, body.max_tokens, 'prompt');
    const g = await queueErrors(engine.generate(tokenized, samplingOf(body, maxTokens), n, signal));
    const choices = g.prompts.flatMap((p) => p.choices);
    const promptTokens = g.prompts.reduce((sum, p) => sum + p.promptTokens, 0);
    return {
      status: 200,
      headers: timingHeaders(g),
      note: `prompt ${promptTokens} completion ${usage(promptTokens, choices).completion_tokens} tokens, ${g.threads} threads`,
      body: {
        id: newId('cmpl'),
        object: 'text_completion',
        created: Math.floor(Date.now() / 1000),
        model: modelId,
        system_fingerprint: fingerprint,
        choices: choices.map((c, index) => ({ index, text: c.text, logprobs: null, finish_reason: c.finishReason })),
        usage: usage(promptTokens, choices),
      },
    };
  }

  async function embeddings(raw: unknown, signal: AbortSignal): Promise<Reply> {
    const body = parse(EmbeddingRequestSchema, raw);
    checkModel(body.model);
    if (body.dimensions !== null && body.dimensions !== undefined && body.dimensions !== engine.embeddingSize) {
      throw badRequest(
        `This model's embeddings have ${engine.embeddingSize} dimensions; it cannot return ${body.dimensions}.`,
        'dimensions',
      );
    }
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    const queued = Date.now();
    let queueMs = 0;
    const vectors = await queueErrors(
      queue.run(async () => {
        queueMs = Date.now() - queued;
        const out: Array<{ vector: number[]; tokens: number }> = [];
        for (const [i, input] of inputs.entries()) {
          if (signal.aborted) throw new AbortedError();
          try {
            out.push(await engine.embed(input));
          } catch (err) {
            if (err instanceof InvalidInputError && inputs.length > 1) throw new InvalidInputError(err.message, `input[${i}]`, err.code);
            throw err;
          }
        }
        return out;
      }, signal),
    );
    const tokens = vectors.reduce((s, v) => s + v.tokens, 0);
    const base64 = body.encoding_format === 'base64';
    return {
      status: 200,
      headers: { 'x-explora-queue-ms': String(queueMs) },
      note: `${inputs.length} inputs, ${tokens} tokens`,
      body: {
        object: 'list',
        data: vectors.map((v, index) => ({
          object: 'embedding',
          index,
          embedding: base64 ? Buffer.from(new Float32Array(v.vector).buffer).toString('base64') : v.vector,
        })),
        model: modelId,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      },
    };
  }

  const routes: Record<string, Partial<Record<string, (raw: unknown, signal: AbortSignal) => Promise<Reply>>>> = {
    '/v1/chat/completions': { POST: chat },
    '/v1/completions': { POST: completions },
    '/v1/embeddings': { POST: embeddings },
    '/v1/models': { GET: async () => ({ status: 200, body: { object: 'list', data: [modelObject()] } }) },
    '/health': { GET: async () => ({ status: 200, body: health() }) },
  };

  const health = () => {
    const generation = engine.stats();
    const embedding = queue.stats();
    return {
      status: 'ok',
      model: modelId,
      queue: { running: generation.running || embedding.running, waiting: generation.waiting + embedding.waiting },
      slots: { total: generation.slots, busy: generation.busySlots, generating: generation.generating },
      threads_next: engine.threadsNow(),
    };
  };

  const send = (res: http.ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}) => {
    if (res.destroyed || res.writableEnded) return;
    const text = JSON.stringify(payload);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
    res.end(text);
  };

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const started = Date.now();
    const requestId = newId('req');
    const path = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    const client = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) client.abort();
    });
    const signal = AbortSignal.any([client.signal, shutdown.signal]);
    let status = 500;
    let note = '';
    try {
      let handler = routes[path]?.[method];
      if (!handler && method === 'GET' && path.startsWith('/v1/models/')) {
        const id = decodeURIComponent(path.slice('/v1/models/'.length));
        handler = async () => {
          checkModel(id);
          return { status: 200, body: modelObject() };
        };
      }
      if (!handler) {
        if (routes[path]) {
          throw new HttpError(
            405,
            `Method ${method} is not allowed for ${path}; use ${Object.keys(routes[path]!).join(', ')}.`,
            'invalid_request_error',
            null,
            'method_not_allowed',
            {
              allow: Object.keys(routes[path]!).join(', '),
            },
          );
        }
        throw new HttpError(404, `Invalid URL (${method} ${path})`, 'invalid_request_error', null, 'unknown_url');
      }
      const raw = method === 'POST' ? await readBody(req, maxBodyBytes) : undefined;
      const reply = await handler(raw, signal);
      status = reply.status;
      note = reply.note ?? '';
      send(res, reply.status, reply.body, { 'x-request-id': requestId, ...reply.headers });
    } catch (err) {
      if (err instanceof HttpError) {
        status = err.status;
        send(
          res,
          err.status,
          { error: { message: err.message, type: err.type, param: err.param, code: err.code } },
          { 'x-request-id': requestId, ...err.headers },
        );
      } else if (err instanceof InvalidInputError) {
        status = 400;
        send(
          res,
          400,
          { error: { message: err.message, type: 'invalid_request_error', param: err.param, code: err.code } },
          { 'x-request-id': requestId },
        );
      } else if (err instanceof AbortedError && !shutdown.signal.aborted) {
        status = 499; // the client went away: nobody to answer
        note = 'client gone';
      } else if (err instanceof AbortedError) {
        status = 503;
        send(
          res,
          503,
          { error: { message: 'The server is shutting down.', type: 'server_error', param: null, code: null } },
          { 'x-request-id': requestId },
        );
      } else {
        status = 500;
        note = (err as Error)?.stack ?? String(err);
        send(
          res,
          500,
          {
            error: {
              message: `The server had an error while processing your request: ${(err as Error)?.message ?? String(err)}`,
              type: 'server_error',
              param: null,
              code: null,
            },
          },
          { 'x-request-id': requestId },
        );
      }
    } finally {
      log(`${method} ${path} ${status} ${Date.now() - started} ms${note ? ` ${note}` : ''}`);
    }
  }

  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      // handle() answers every error itself; this is the last line of defence for the process.
      log(`unhandled: ${err.stack ?? err.message}`);
      if (!res.headersSent) send(res, 500, { error: { message: 'internal error', type: 'server_error', param: null, code: null } });
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 8090, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    await engine.close();
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') throw new Error(`model server: ${host}:${options.port ?? 8090} is already in use`);
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  let closing: Promise<void> | null = null;
  return {
    url: `http://${urlHost}:${port}/v1`,
    port,
    modelId,
    close: () =>
      (closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        shutdown.abort();
        await Promise.all([queue.close(), engine.drain()]);
        // Let the answers (503s, last replies) go out before connections are cut.
        await new Promise((r) => setTimeout(r, 50));
        for (const s of sockets) s.destroy();
        await stopped;
        await engine.close();
      })()),
  };
}
