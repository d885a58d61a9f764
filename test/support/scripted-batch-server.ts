/**
 * A real HTTP server speaking OpenAI's Batch API (`/v1/files`: upload, retrieve, content;
 * `/v1/batches`: create, retrieve, list newest first, cancel) as OpenAI documents it, in front of an
 * upstream OpenAI-compatible server (a scripted LLM server): each batch line is answered by sending
 * its body upstream, so a batch's answers are the ones a live request would get; live requests
 * (`/v1/chat/completions`, `/v1/completions`, `/v1/models`) are passed upstream as they are.
 *
 * A batch moves one state per retrieve (validating → in_progress → completed), so a test does not
 * depend on timing; a test scripts lines that fail, a batch that expires half-done or fails its
 * validation. Given a `stateDir`, it keeps its files, batches and counts there after every change,
 * like a provider: a server started again on the same port and dir (`restart`) goes on where the
 * last one stopped, batches in flight included.
 *
 *   const llm = await startScriptedLlmServer(...);
 *   const batches = await startScriptedBatchServer({ upstream: llm.url });
 *   new OpenAI({ baseURL: batches.url, apiKey: 'x' });
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { endpointPrefix, withoutEndpointPrefix } from './endpoint-path.js';

export interface BatchLine {
  custom_id: string;
  method: string;
  url: string;
  body: Record<string, unknown>;
}

/** What becomes of a line: answered upstream, or failed with this status (the error file), or left unanswered (expired). */
export type LineOutcome = 'answer' | { status: number; message?: string };

export interface ScriptedBatchServerOptions {
  /** Base URL (ending in /v1) of the server that answers the lines and the live requests. */
  upstream: string;
  /** Retrieves a batch takes to finish after its creation (validating, in_progress, ..., then done). Default 2. */
  pollsToFinish?: number;
  /** Per line (its index in the file, 0-based; its round: the batch's number among this server's, 1-based). Default: answer. */
  lineOutcome?: (line: BatchLine, index: number, batchNumber: number) => LineOutcome;
  /** The batch of this number (1-based) expires after answering only its first `answered` lines. */
  expire?: { batchNumber: number; answered: number };
  /** Batches of these numbers fail their validation (status failed, nothing answered). */
  failValidation?: number[];
  /** Start held: no batch gets past in_progress until release(). */
  held?: boolean;
  /** Where its state is kept (state.json); a server started on a dir with state takes it up. */
  stateDir?: string;
  /** The port to listen on (default: any free one); a restarted server keeps its URL. */
  port?: number;
}

interface StoredFile {
  id: string;
  bytes: number;
  created_at: number;
  filename: string;
  purpose: string;
  content: string;
}

interface StoredBatch {
  number: number;
  id: string;
  endpoint: string;
  input_file_id: string;
  completion_window: string;
  metadata: Record<string, string> | null;
  status: string;
  created_at: number;
  polls: number;
  output_file_id: string | null;
  error_file_id: string | null;
  errors: { object: 'list'; data: Array<{ code: string; message: string; line: number | null; param: string | null }> } | null;
  request_counts: { total: number; completed: number; failed: number };
  cancelRequested: boolean;
}

export interface ScriptedBatchServer {
  url: string;
  port: number;
  /** Every batch created, in order: its id, state, counts, metadata. */
  batches(): Array<Pick<StoredBatch, 'id' | 'status' | 'metadata' | 'request_counts' | 'endpoint'>>;
  /** Files uploaded with purpose batch. */
  uploads(): number;
  /** Lines sent upstream for batches (not live requests). */
  linesAnswered(): number;
  /** Lets batches finish (they stay in_progress while held). */
  release(): void;
  /**
   * Stops the server (connections dropped, as a crash would) and starts a new one on the same port
   * from its stateDir, held as before unless told.
   */
  restart(options?: Pick<ScriptedBatchServerOptions, 'held'>): Promise<void>;
  close(): Promise<void>;
}

/** What a server with a stateDir keeps between runs. */
interface PersistedState {
  files: StoredFile[];
  batches: StoredBatch[];
  fileCount: number;
  uploads: number;
  linesAnswered: number;
  clock: number;
}

export async function startScriptedBatchServer(options: ScriptedBatchServerOptions): Promise<ScriptedBatchServer> {
  let inner = await startOnce(options);
  let held = options.held ?? false;
  return {
    url: inner.url,
    port: inner.port,
    batches: () => inner.batches(),
    uploads: () => inner.uploads(),
    linesAnswered: () => inner.linesAnswered(),
    release: () => {
      held = false;
      inner.release();
    },
    restart: async (again = {}) => {
      if (!options.stateDir) throw new Error('scripted batch server: restart needs a stateDir to keep its state in');
      await inner.close();
      held = again.held ?? held;
      inner = await startOnce({ ...options, held, port: inner.port });
    },
    close: () => inner.close(),
  };
}

type RunningServer = Omit<ScriptedBatchServer, 'restart'>;

async function startOnce(options: ScriptedBatchServerOptions): Promise<RunningServer> {
  const stateFile = options.stateDir ? path.join(options.stateDir, 'state.json') : undefined;
  const saved = stateFile && existsSync(stateFile) ? (JSON.parse(readFileSync(stateFile, 'utf8')) as PersistedState) : undefined;
  const files = new Map<string, StoredFile>((saved?.files ?? []).map((f) => [f.id, f]));
  const batches: StoredBatch[] = saved?.batches ?? [];
  let fileCount = saved?.fileCount ?? 0;
  let uploads = saved?.uploads ?? 0;
  let linesAnswered = saved?.linesAnswered ?? 0;
  let held = options.held ?? false;
  let clock = saved?.clock ?? Math.floor(Date.now() / 1000);
  /** Written whole after each change (a temporary file renamed over the last): a crash leaves one or the other. */
  const persist = () => {
    if (!stateFile) return;
    const state: PersistedState = { files: [...files.values()], batches, fileCount, uploads, linesAnswered, clock };
    writeFileSync(`${stateFile}.tmp`, JSON.stringify(state));
    renameSync(`${stateFile}.tmp`, stateFile);
  };
  // Strictly increasing creation times: "newest first" is then well defined.
  const now = () => (clock = Math.max(clock + 1, Math.floor(Date.now() / 1000)));
  const sockets = new Set<import('node:net').Socket>();

  const send = (res: http.ServerResponse, status: number, payload: unknown, type = 'application/json') => {
    const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const error = (res: http.ServerResponse, status: number, message: string) =>
    send(res, status, { error: { message, type: 'invalid_request_error', param: null, code: null } });

  const fileObject = (f: StoredFile) => ({
    id: f.id,
    object: 'file',
    bytes: f.bytes,
    created_at: f.created_at,
    filename: f.filename,
    purpose: f.purpose,
    status: 'processed',
  });
  const batchObject = (b: StoredBatch) => ({
    id: b.id,
    object: 'batch',
    endpoint: b.endpoint,
    errors: b.errors,
    input_file_id: b.input_file_id,
    completion_window: b.completion_window,
    status: b.status,
    output_file_id: b.output_file_id,
    error_file_id: b.error_file_id,
    created_at: b.created_at,
    expires_at: b.created_at + 86_400,
    request_counts: b.request_counts,
    metadata: b.metadata,
  });
  const addFile = (content: string, filename: string, purpose: string): StoredFile => {
    const f = { id: `file-${++fileCount}`, bytes: Buffer.byteLength(content), created_at: now(), filename, purpose, content };
    files.set(f.id, f);
    return f;
  };

  async function upstream(path: string, method: string, body?: string): Promise<{ status: number; text: string }> {
    const response = await fetch(`${options.upstream}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: 'Bearer scripted' },
      ...(body !== undefined ? { body } : {}),
    });
    return { status: response.status, text: await response.text() };
  }

  /** Answers the batch's lines (those its script lets through) and writes its output and error files. */
  async function run(b: StoredBatch, final: 'completed' | 'expired' | 'cancelled'): Promise<void> {
    const lines = parseLines(files.get(b.input_file_id)!.content);
    const output: string[] = [];
    const errors: string[] = [];
    const limit = final === 'expired' ? options.expire!.answered : final === 'cancelled' ? 0 : lines.length;
    for (const [i, line] of lines.entries()) {
      const id = `batch_req_${b.number}_${i}`;
      if (i >= limit) {
        if (final === 'expired')
          errors.push(
            JSON.stringify({
              id,
              custom_id: line.custom_id,
              response: null,
              error: { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' },
            }),
          );
        continue;
      }
      const outcome = options.lineOutcome?.(line, i, b.number) ?? 'answer';
      if (outcome !== 'answer') {
        b.request_counts.failed++;
        errors.push(
          JSON.stringify({
            id,
            custom_id: line.custom_id,
            response: {
              status_code: outcome.status,
              request_id: id,
              body: { error: { message: outcome.message ?? `HTTP ${outcome.status}`, type: 'server_error' } },
            },
            error: null,
          }),
        );
        continue;
      }
      linesAnswered++;
      const answer = await upstream(line.url.replace(/^\/v1/, ''), 'POST', JSON.stringify(line.body));
      const body: unknown = JSON.parse(answer.text);
      const entry = JSON.stringify({
        id,
        custom_id: line.custom_id,
        response: { status_code: answer.status, request_id: id, body },
        error: null,
      });
      if (answer.status === 200) {
        b.request_counts.completed++;
        output.push(entry);
      } else {
        b.request_counts.failed++;
        errors.push(entry);
      }
    }
    if (output.length) b.output_file_id = addFile(output.join('\n') + '\n', `batch_${b.id}_output.jsonl`, 'batch_output').id;
    if (errors.length) b.error_file_id = addFile(errors.join('\n') + '\n', `batch_${b.id}_error.jsonl`, 'batch_output').id;
    b.status = final;
  }

  /** One retrieve's step of a batch's life. */
  async function advance(b: StoredBatch): Promise<void> {
    if (['completed', 'expired', 'failed', 'cancelled'].includes(b.status)) return;
    b.polls++;
    if (b.status === 'cancelling') return run(b, 'cancelled');
    if (b.status === 'validating') {
      if (options.failValidation?.includes(b.number)) {
        b.status = 'failed';
        b.errors = { object: 'list', data: [{ code: 'invalid_request', message: 'scripted validation failure', line: 1, param: null }] };
        return;
      }
      b.status = 'in_progress';
    }
    if (held || b.polls < (options.pollsToFinish ?? 2)) return;
    await run(b, options.expire?.batchNumber === b.number ? 'expired' : 'completed');
  }

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://scripted');
    const path = withoutEndpointPrefix(url.pathname.replace(/\/+$/, ''));
    const raw = await readBody(req);
    if (path === '/v1/chat/completions' || path === '/v1/completions' || path === '/v1/models') {
      const answer = await upstream(path.slice(3), req.method ?? 'GET', req.method === 'POST' ? raw.toString('utf8') : undefined);
      send(res, answer.status, answer.text);
      return;
    }
    if (req.method === 'POST' && path === '/v1/files') {
      const form = await new Response(raw, { headers: { 'content-type': req.headers['content-type'] ?? '' } }).formData();
      const file = form.get('file');
      const purpose = form.get('purpose');
      if (!(file instanceof Blob) || purpose !== 'batch') return error(res, 400, "a file and purpose 'batch' are required");
      uploads++;
      const stored = addFile(await file.text(), (file as File).name ?? 'upload.jsonl', 'batch');
      persist();
      send(res, 200, fileObject(stored));
      return;
    }
    let m = /^\/v1\/files\/([^/]+)(\/content)?$/.exec(path);
    if (req.method === 'GET' && m) {
      const f = files.get(m[1]!);
      if (!f) return error(res, 404, `No such File object: ${m[1]}`);
      if (m[2]) send(res, 200, f.content, 'application/octet-stream');
      else send(res, 200, fileObject(f));
      return;
    }
    if (req.method === 'POST' && path === '/v1/batches') {
      const body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      const input = files.get(String(body.input_file_id));
      if (!input || input.purpose !== 'batch') return error(res, 400, `input_file_id ${String(body.input_file_id)}: no such batch file`);
      if (body.completion_window !== '24h') return error(res, 400, "completion_window must be '24h'");
      const lines = parseLines(input.content);
      const b: StoredBatch = {
        number: batches.length + 1,
        id: `batch_${batches.length + 1}`,
        endpoint: String(body.endpoint),
        input_file_id: input.id,
        completion_window: '24h',
        metadata: (body.metadata as Record<string, string> | undefined) ?? null,
        status: 'validating',
        created_at: now(),
        polls: 0,
        output_file_id: null,
        error_file_id: null,
        errors: null,
        request_counts: { total: lines.length, completed: 0, failed: 0 },
        cancelRequested: false,
      };
      const ids = new Set<string>();
      for (const [i, l] of lines.entries()) {
        if (l.method !== 'POST' || l.url !== b.endpoint || ids.has(l.custom_id))
          return error(res, 400, `line ${i + 1}: method must be POST, url ${b.endpoint}, custom_id unique`);
        ids.add(l.custom_id);
      }
      batches.push(b);
      persist();
      send(res, 200, batchObject(b));
      return;
    }
    if (req.method === 'GET' && path === '/v1/batches') {
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const after = url.searchParams.get('after');
      const newestFirst = [...batches].reverse();
      const from = after ? newestFirst.findIndex((b) => b.id === after) + 1 : 0;
      const page = newestFirst.slice(from, from + limit);
      send(res, 200, {
        object: 'list',
        data: page.map(batchObject),
        first_id: page[0]?.id ?? null,
        last_id: page.at(-1)?.id ?? null,
        has_more: from + limit < newestFirst.length,
      });
      return;
    }
    m = /^\/v1\/batches\/([^/]+)(\/cancel)?$/.exec(path);
    const b = m ? batches.find((x) => x.id === m![1]) : undefined;
    if (m && !b) return error(res, 404, `No such Batch object: ${m[1]}`);
    if (req.method === 'GET' && m && !m[2]) {
      await advance(b!);
      persist();
      send(res, 200, batchObject(b!));
      return;
    }
    if (req.method === 'POST' && m && m[2]) {
      if (!['validating', 'in_progress', 'finalizing'].includes(b!.status))
        return error(res, 400, `Cannot cancel a batch with status '${b!.status}'.`);
      b!.status = 'cancelling';
      b!.cancelRequested = true;
      persist();
      send(res, 200, batchObject(b!));
      return;
    }
    error(res, 404, `Unknown request URL: ${req.method} ${req.url}`);
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) error(res, 500, `scripted batch server: ${(err as Error).message}`);
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const close = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  return {
    url: `http://127.0.0.1:${port}${endpointPrefix()}/v1`,
    port,
    batches: () =>
      batches.map((b) => ({
        id: b.id,
        status: b.status,
        metadata: b.metadata,
        request_counts: { ...b.request_counts },
        endpoint: b.endpoint,
      })),
    uploads: () => uploads,
    linesAnswered: () => linesAnswered,
    release: () => void (held = false),
    close,
  };
}

function parseLines(content: string): BatchLine[] {
  return content
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as BatchLine);
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
