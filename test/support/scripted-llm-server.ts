/**
 * A real HTTP server speaking the part of the OpenAI API the project uses, whose answers a test
 * scripts request by request: normal answers, rate limits, server errors, bad requests, slow
 * answers, malformed bodies and requests that never get an answer. It records every request so a
 * test can check what arrived, how often, and how many were in flight at once.
 *
 *   const server = await startScriptedLlmServer(({ body }) => ({ content: 'def f(): ...' }));
 *   new OpenAI({ baseURL: server.url, apiKey: 'x' });   // server.url ends in /v1
 *   ...
 *   await server.close();
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { endpointPrefix, withoutEndpointPrefix } from './endpoint-path.js';

export type ScriptedApi = 'chat' | 'completions';

export interface ScriptedRequest {
  api: ScriptedApi;
  /** The parsed JSON body as sent. */
  body: Record<string, unknown>;
  /** 1-based number of this request among all API requests the server received. */
  requestNumber: number;
  /** Canonical JSON of the body (keys sorted at every level): equal for equal requests. */
  key: string;
  /** 1-based: how many requests with this key have arrived, this one included (retries count up). */
  attempt: number;
  headers: http.IncomingHttpHeaders;
}

interface Timing {
  /** Wait this long before answering (the answer is still sent if the client is still there). */
  delayMs?: number;
}

export type Reply =
  | (Timing & {
      /** The answer; an array gives one text per choice (its length must equal the request's `n`). */
      content: string | string[];
      finishReason?: 'stop' | 'length' | 'content_filter';
    })
  | (Timing & {
      /** An error in the API's own shape: `{"error": {"message", "type", "param", "code"}}`. */
      status: number;
      message?: string;
      type?: string;
      param?: string | null;
      code?: string | null;
      /** Sent as the `retry-after` header (seconds; fractions allowed, as the SDK reads them). */
      retryAfterSeconds?: number;
      /** Sent as the `retry-after-ms` header (OpenAI's own, which the SDK prefers). */
      retryAfterMs?: number;
    })
  | (Timing & { malformed: true })
  | { hang: true };

export type Script = (req: ScriptedRequest) => Reply | Promise<Reply>;

export interface RecordedRequest {
  requestNumber: number;
  /** Date.now() when the request body had been read. */
  time: number;
  /** Date.now() when the answer was sent (undefined while pending, or for hung/abandoned ones). */
  answeredAt?: number;
  api: ScriptedApi;
  body: Record<string, unknown>;
  key: string;
  attempt: number;
  headers: http.IncomingHttpHeaders;
}

export interface ScriptedServerOptions {
  /**
   * Model ids listed by GET /v1/models (default none: a server that takes any model name, whose
   * names start-sweep then does not check).
   */
  models?: string[];
  /** When set, requests without `Authorization: Bearer <this>` get the API's 401. */
  apiKey?: string;
  /**
   * Apply the request's `stop` sequences to the content like a real server (cut before the first
   * one, which is not included, finish_reason 'stop'). Default true.
   */
  applyStop?: boolean;
  /**
   * The most choices an answer carries, whatever the request's `n` (the first ones of the script's
   * contents): 1 plays an endpoint that ignores `n`, more one that caps it. Default: all `n`.
   */
  maxChoices?: number;
  /** Listen on this port (default: any free one): a server started again where one was stopped. */
  port?: number;
  /** Sent as every answer's `system_fingerprint`, as OpenAI's servers do (default: none, as most local servers). */
  systemFingerprint?: string;
  /**
   * Keep every request for requests() and countByKey() (default true). False keeps only counts (a
   * digest per distinct body, for `attempt` and received()): a million-request benchmark would
   * otherwise hold every body in memory.
   */
  keepRequests?: boolean;
}

export interface ScriptedLlmServer {
  /** Base URL ending in /v1, of this server alone, e.g. http://127.0.0.1:41234/scripted-5f0c2a9e11d3/v1 (test/support/endpoint-path.ts) */
  url: string;
  port: number;
  /** Every API request received, in arrival order (copies); empty when keepRequests is false. */
  requests(): RecordedRequest[];
  /** How many API requests arrived, and how many of them repeated an earlier body. */
  received(): { requests: number; repeats: number };
  /** How many times each distinct request (by canonical body) arrived. */
  countByKey(): Map<string, number>;
  /** Requests being processed right now, and the most there ever were at once. */
  inFlight(): { now: number; max: number };
  /** Stops the server, ending hung and pending requests (their clients see the connection close). */
  close(): Promise<void>;
}

/** Token counts by a simple deterministic rule: whitespace-separated words. */
export function countTokens(text: string): number {
  const trimmed = text.trim();
  return trimmed === '' ? 0 : trimmed.split(/\s+/).length;
}

/** JSON with object keys sorted at every level. */
export function canonicalBodyKey(body: unknown): string {
  return JSON.stringify(body, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );
}

const ERROR_DEFAULTS: Record<number, { message: string; type: string; code: string | null }> = {
  400: { message: 'Invalid request', type: 'invalid_request_error', code: null },
  401: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
  404: { message: 'Not found', type: 'invalid_request_error', code: null },
  429: { message: 'Rate limit reached for requests. Please try again later.', type: 'requests', code: 'rate_limit_exceeded' },
  500: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', code: null },
  503: { message: 'The server is overloaded or not ready yet.', type: 'server_error', code: null },
};

export async function startScriptedLlmServer(script: Script, options: ScriptedServerOptions = {}): Promise<ScriptedLlmServer> {
  const models = options.models ?? [];
  const applyStop = options.applyStop ?? true;
  const recorded: RecordedRequest[] = [];
  const attempts = new Map<string, number>();
  const sockets = new Set<import('node:net').Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let requestCount = 0;
  let repeats = 0;
  const keepRequests = options.keepRequests ?? true;
  let inFlight = 0;
  let maxInFlight = 0;
  let closing = false;
  const created = Math.floor(Date.now() / 1000);

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  const send = (res: http.ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}) => {
    if (res.destroyed || res.writableEnded) return;
    const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  };

  const sendError = (
    res: http.ServerResponse,
    status: number,
    fields: { message?: string; type?: string; param?: string | null; code?: string | null } = {},
    headers: Record<string, string> = {},
  ) => {
    const defaults = ERROR_DEFAULTS[status] ?? {
      message: `HTTP ${status}`,
      type: status >= 500 ? 'server_error' : 'invalid_request_error',
      code: null,
    };
    send(
      res,
      status,
      {
        error: {
          message: fields.message ?? defaults.message,
          type: fields.type ?? defaults.type,
          param: fields.param ?? null,
          code: fields.code === undefined ? defaults.code : fields.code,
        },
      },
      headers,
    );
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const path = withoutEndpointPrefix((req.url ?? '/').split('?')[0]!.replace(/\/+$/, ''));
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      sendError(res, 401);
      return;
    }
    if (req.method === 'GET' && path === '/v1/models') {
      send(res, 200, { object: 'list', data: models.map((id) => ({ id, object: 'model', created, owned_by: 'scripted' })) });
      return;
    }
    const api: ScriptedApi | undefined = path === '/v1/chat/completions' ? 'chat' : path === '/v1/completions' ? 'completions' : undefined;
    if (!api || req.method !== 'POST') {
      sendError(res, 404, {
        message: `Unknown request URL: ${req.method} ${req.url}. Please check the URL for typos.`,
        code: 'unknown_url',
      });
      return;
    }

    const raw = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      sendError(res, 400, { message: 'We could not parse the JSON body of your request.' });
      return;
    }
    const problem = requestProblem(api, body);
    if (problem) {
      sendError(res, 400, problem);
      return;
    }
    const b = body as Record<string, unknown>;
    const key = canonicalBodyKey(b);
    const attemptKey = keepRequests ? key : createHash('sha256').update(key).digest('base64');
    const attempt = (attempts.get(attemptKey) ?? 0) + 1;
    attempts.set(attemptKey, attempt);
    if (attempt > 1) repeats++;
    const record: RecordedRequest = { requestNumber: ++requestCount, time: Date.now(), api, body: b, key, attempt, headers: req.headers };
    if (keepRequests) recorded.push(record);

    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    let counted = true;
    const done = () => {
      if (counted) {
        counted = false;
        inFlight--;
      }
    };
    res.on('close', done);

    let reply: Reply;
    try {
      reply = await script({ api, body: b, requestNumber: record.requestNumber, key, attempt, headers: req.headers });
    } catch (error) {
      sendError(res, 500, { message: `scripted server: the script threw: ${(error as Error).message}` });
      return;
    }
    if ('hang' in reply) return; // answered never; close() ends the connection
    if (reply.delayMs) await sleep(reply.delayMs);
    if (closing) return;

    if ('malformed' in reply) {
      send(res, 200, `{"id": "${api === 'chat' ? 'chatcmpl' : 'cmpl'}-scripted-${record.requestNumber}", "choices": [{"index": 0, "mess`);
    } else if ('status' in reply) {
      const headers: Record<string, string> = {};
      if (reply.retryAfterSeconds !== undefined) headers['retry-after'] = String(reply.retryAfterSeconds);
      if (reply.retryAfterMs !== undefined) headers['retry-after-ms'] = String(reply.retryAfterMs);
      const fields: { message?: string; type?: string; param?: string | null; code?: string | null } = {};
      if (reply.message !== undefined) fields.message = reply.message;
      if (reply.type !== undefined) fields.type = reply.type;
      if (reply.param !== undefined) fields.param = reply.param;
      if (reply.code !== undefined) fields.code = reply.code;
      sendError(res, reply.status, fields, headers);
    } else {
      const n = typeof b.n === 'number' ? b.n : 1;
      const contents = Array.isArray(reply.content) ? reply.content : Array.from({ length: n }, () => reply.content as string);
      if (contents.length !== n) {
        sendError(res, 500, { message: `scripted server: the script gave ${contents.length} contents for n=${n}` });
        return;
      }
      const stops = applyStop ? stopList(b.stop) : [];
      const texts = contents.slice(0, options.maxChoices ?? n).map((content) => cutAtStop(content, stops));
      const finish = reply.finishReason ?? 'stop';
      const choices = texts.map((text, index) =>
        api === 'chat'
          ? { index, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: finish }
          : { index, text, logprobs: null, finish_reason: finish },
      );
      const promptTokens = countTokens(promptText(api, b));
      const completionTokens = texts.reduce((sum, text) => sum + countTokens(text), 0);
      send(res, 200, {
        id: `${api === 'chat' ? 'chatcmpl' : 'cmpl'}-scripted-${record.requestNumber}`,
        object: api === 'chat' ? 'chat.completion' : 'text_completion',
        created: Math.floor(Date.now() / 1000),
        model: b.model,
        ...(options.systemFingerprint ? { system_fingerprint: options.systemFingerprint } : {}),
        choices,
        usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
      });
    }
    record.answeredAt = Date.now();
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, { message: `scripted server: ${(error as Error).message}` });
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}${endpointPrefix()}/v1`,
    port,
    requests: () => recorded.map((r) => ({ ...r })),
    received: () => ({ requests: requestCount, repeats }),
    countByKey: () => {
      const counts = new Map<string, number>();
      for (const r of recorded) counts.set(r.key, (counts.get(r.key) ?? 0) + 1);
      return counts;
    },
    inFlight: () => ({ now: inFlight, max: maxInFlight }),
    close: async () => {
      if (closing) return;
      closing = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The checks a real server makes on the fields the project sends, with OpenAI's `param` names. */
function requestProblem(api: ScriptedApi, body: unknown): { message: string; param: string } | null {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return { message: 'The request body must be a JSON object.', param: 'body' };
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string' || b.model === '') return { message: 'you must provide a model parameter', param: 'model' };
  if (api === 'chat') {
    if (!Array.isArray(b.messages) || b.messages.length === 0)
      return { message: "'messages' must be a non-empty array", param: 'messages' };
    for (const [i, m] of (b.messages as unknown[]).entries()) {
      const msg = m as Record<string, unknown> | null;
      if (
        !msg ||
        typeof msg !== 'object' ||
        typeof msg.role !== 'string' ||
        (typeof msg.content !== 'string' && !Array.isArray(msg.content))
      ) {
        return { message: `Invalid value for 'messages[${i}]': each message needs a role and content.`, param: `messages[${i}]` };
      }
    }
  } else if (typeof b.prompt !== 'string' && !(Array.isArray(b.prompt) && b.prompt.every((p) => typeof p === 'string'))) {
    return { message: "'prompt' must be a string or an array of strings", param: 'prompt' };
  }
  if (b.stream === true) return { message: 'the scripted server does not stream', param: 'stream' };
  if (b.n !== undefined && (typeof b.n !== 'number' || !Number.isInteger(b.n) || b.n < 1 || b.n > 128)) {
    return { message: `Invalid 'n': must be an integer in 1..128`, param: 'n' };
  }
  if (b.temperature !== undefined && (typeof b.temperature !== 'number' || b.temperature < 0 || b.temperature > 2)) {
    return { message: `Invalid 'temperature': must be a number in 0..2`, param: 'temperature' };
  }
  if (b.top_p !== undefined && (typeof b.top_p !== 'number' || b.top_p < 0 || b.top_p > 1)) {
    return { message: `Invalid 'top_p': must be a number in 0..1`, param: 'top_p' };
  }
  if (b.max_tokens !== undefined && (typeof b.max_tokens !== 'number' || !Number.isInteger(b.max_tokens) || b.max_tokens < 1)) {
    return { message: `Invalid 'max_tokens': must be a positive integer`, param: 'max_tokens' };
  }
  if (b.seed !== undefined && b.seed !== null && (typeof b.seed !== 'number' || !Number.isInteger(b.seed))) {
    return { message: `Invalid 'seed': must be an integer`, param: 'seed' };
  }
  if (
    b.stop !== undefined &&
    b.stop !== null &&
    typeof b.stop !== 'string' &&
    !(Array.isArray(b.stop) && b.stop.every((s) => typeof s === 'string'))
  ) {
    return { message: `Invalid 'stop': must be a string or an array of strings`, param: 'stop' };
  }
  return null;
}

function promptText(api: ScriptedApi, b: Record<string, unknown>): string {
  if (api === 'completions') return Array.isArray(b.prompt) ? (b.prompt as string[]).join(' ') : String(b.prompt);
  return (b.messages as Array<{ content: unknown }>)
    .map((m) =>
      typeof m.content === 'string'
        ? m.content
        : (m.content as Array<{ text?: unknown }>).map((part) => (typeof part.text === 'string' ? part.text : '')).join(' '),
    )
    .join(' ');
}

function stopList(stop: unknown): string[] {
  if (typeof stop === 'string') return [stop];
  return Array.isArray(stop) ? (stop as string[]) : [];
}

function cutAtStop(text: string, stops: string[]): string {
  let end = text.length;
  for (const s of stops) {
    if (s === '') continue;
    const at = text.indexOf(s);
    if (at !== -1 && at < end) end = at;
  }
  return text.slice(0, end);
}
