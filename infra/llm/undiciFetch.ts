/**
 * The `fetch` the OpenAI SDK is given: undici's `request` with the whole body read, handed back as a
 * `Response`. Node's built-in fetch runs every call through WHATWG streams and the fetch spec's
 * bookkeeping; at thousands of calls a minute against a fast endpoint that was the LLM worker's
 * largest cost (`scripts/bench/bench-llm-client.ts` measures both side by side).
 *
 * Buffering is fine for us: no call streams (the activity stores whole answers). The SDK's timeout
 * aborts through `init.signal`, which covers reading the body too, since that happens in here.
 * Bodies other than text or bytes (forms, streams) go to the built-in fetch.
 */
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate } from 'node:zlib';
import { Agent, request } from 'undici';

// The SDK's own timeout governs (it aborts through the signal); undici's defaults (300 s for
// headers and for body gaps) would cut a slow local model's long answer short.
const dispatcher = new Agent({ headersTimeout: 0, bodyTimeout: 0, keepAliveTimeout: 10_000 });

const decoders: Record<string, (data: Buffer) => Promise<Buffer>> = {
  gzip: promisify(gunzip),
  'x-gzip': promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
};

type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS';

export async function undiciFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const { body } = init;
  if (input instanceof Request || !(body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array)) {
    return fetch(input, init);
  }
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => {
    headers[name] = value;
  });
  const answer = await request(input, {
    method: (init.method ?? 'GET').toUpperCase() as HttpMethod,
    headers,
    body: body ?? undefined,
    signal: init.signal ?? undefined,
    dispatcher,
  });
  let data: Buffer = Buffer.from(await answer.body.arrayBuffer());
  const responseHeaders = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) responseHeaders.append(name, one);
  }
  const encoding = responseHeaders.get('content-encoding')?.trim().toLowerCase();
  if (encoding && encoding !== 'identity' && data.length > 0) {
    const decode = decoders[encoding];
    if (!decode) throw new TypeError(`${String(input)} answered with content-encoding ${encoding}, which this client cannot decode`);
    data = await decode(data);
    responseHeaders.delete('content-encoding');
    responseHeaders.delete('content-length');
  }
  // A Response may not carry a body with these statuses.
  const bodyless = answer.statusCode === 204 || answer.statusCode === 205 || answer.statusCode === 304;
  // Buffers from undici and zlib are never backed by a SharedArrayBuffer.
  return new Response(bodyless ? null : (data as Buffer<ArrayBuffer>), { status: answer.statusCode, headers: responseHeaders });
}
