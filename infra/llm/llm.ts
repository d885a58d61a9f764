/**
 * LLM-queue activities: calls to any OpenAI-compatible endpoint through the `openai` SDK with its
 * own retries off — Temporal owns retrying (429 after Retry-After, 5xx/timeouts with backoff); other
 * 4xx are recorded, not retried. Every answer is cached in S3 (llmCache.ts) before the activity
 * reports it, so a retried batch, a restarted worker or a repeated sweep never sends a finished
 * request again.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import OpenAI, { APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import {
  ChatResponseSchema,
  CompletionResponseSchema,
  FINISH_LENGTH,
  type LlmBody,
  type LlmCallSummary,
  type LlmEndpoint,
  type LlmHeartbeat,
  type LlmRecord,
  usableRecord,
} from '../../domain/llm/request.js';
import { canonicalJson } from '../../domain/datasets/manifest.js';
import { remainingChoicesBody, sampleCalls, SampleLayoutError, type SampleCall } from '../../domain/methods/sampling.js';
import { OpenAiClients } from './openaiClients.js';
import { LEASE_MS } from '../../domain/llm/inflight.js';
import {
  callGroup,
  callIdentity,
  failuresKey,
  GroupWriter,
  inflightKey,
  readGroup,
  spanOf,
  type SampleSpan,
  readLlmRecordAt,
  rememberWrittenSegment,
  type GroupContents,
} from './cache.js';
import { activityHolderName, InflightEntry } from './inflightLedger.js';
import { LlmRanks, ModelGate, type WorkersOn } from './modelGate.js';
import { parkOrSend } from './parking.js';
import { getText, putObject, type Bucket } from '../s3.js';

export interface LlmBatch {
  endpoint: LlmEndpoint;
  /**
   * One entry per sample. Samples whose body asks for n > 1 choices share one request: the batch
   * must hold all n of them, with the same body and choices 0..n-1.
   */
  calls: Array<{ body: LlmBody; sampleIndex: number; choice?: number }>;
  /** Requests of this batch in flight at once. */
  concurrency?: number;
}

/** One HTTP request of a batch and the samples its choices answer (members[j] is choice j). */
interface PlannedRequest {
  body: LlmBody;
  members: number[];
}

/**
 * Groups a batch's samples into requests. A malformed batch is a bug in the calling method, so it
 * fails for good, naming the sample.
 */
/**
 * The calls answering a task's samples on this endpoint: `samplesPerRequest` samples to a request
 * (the API's `n`). A sample order that cannot be laid out fails the activity for good.
 */
export function laidOut(
  endpoint: LlmEndpoint,
  sampleIndices: readonly number[],
  bodyOf: (firstSample: number, choices: number) => LlmBody,
): SampleCall[] {
  try {
    return sampleCalls(sampleIndices, endpoint.samplesPerRequest ?? 1, bodyOf);
  } catch (err) {
    if (err instanceof SampleLayoutError) throw ApplicationFailure.nonRetryable(err.message, 'InvalidTask');
    throw err;
  }
}

function planRequests(batch: LlmBatch, groups: string[]): PlannedRequest[] {
  const out: PlannedRequest[] = [];
  const multi = new Map<string, PlannedRequest>();
  for (const [i, call] of batch.calls.entries()) {
    const n = call.body.n ?? 1;
    const choice = call.choice ?? 0;
    if (!Number.isInteger(choice) || choice < 0 || choice >= n) {
      throw ApplicationFailure.nonRetryable(
        `sample ${call.sampleIndex}: choice ${choice} of a request for ${n} choice(s)`,
        'InvalidLlmBatch',
      );
    }
    if (n === 1) {
      out.push({ body: call.body, members: [i] });
      continue;
    }
    const id = `${groups[i]}\0${call.sampleIndex - choice}`;
    let request = multi.get(id);
    if (!request) {
      request = { body: call.body, members: new Array<number>(n).fill(-1) };
      multi.set(id, request);
      out.push(request);
    }
    if (request.members[choice] !== -1 || (request.body !== call.body && canonicalJson(request.body) !== canonicalJson(call.body))) {
      throw ApplicationFailure.nonRetryable(
        `sample ${call.sampleIndex}: its request's choice ${choice} is claimed twice, or the request's samples send different bodies`,
        'InvalidLlmBatch',
      );
    }
    request.members[choice] = i;
  }
  for (const r of multi.values()) {
    const missing = r.members.indexOf(-1);
    if (missing >= 0) {
      throw ApplicationFailure.nonRetryable(
        `a request for ${r.members.length} choices has no sample for choice ${missing}`,
        'InvalidLlmBatch',
      );
    }
  }
  return out;
}

/** What one request brought back. */
interface Answer {
  response: unknown;
  /** Text and finish reason per choice asked for, in choice order; a choice the endpoint left out is undefined. */
  choices: Array<{ text: string; finishReason: string | null } | undefined>;
  promptTokens: number;
  completionTokens: number;
}

/** After this many malformed answers to one request, it is recorded as an error instead of retried. */
const MALFORMED_ATTEMPTS = 5;
/**
 * After this many time-outs of one request at one timeout, it is recorded as an error: a prompt the
 * model answers too slowly would otherwise be sent, and paid for, without end. A later request with
 * a longer timeout asks again (usableRecord).
 */
const TIMEOUT_ATTEMPTS = 5;
/** Answers received but not yet stored, per group, before the batch waits for storage to catch up. */
const MAX_UNSTORED = 64;

/**
 * What became of a request that brought no usable answer, for the counts (see FailureCounts):
 * - `answered`: the endpoint answered it (a malformed body is an answer, and paid for);
 * - `unanswered`: it was sent, and no answer came: a time-out, a connection dropped after sending, or
 *   a refusal to answer now (429, 408, 409, 5xx);
 * - `not-sent`: it never reached the endpoint (connection refused, no such host).
 */
type AttemptOutcome = 'answered' | 'unanswered' | 'not-sent';

class RetryableLlmError extends Error {
  constructor(
    readonly kind: 'RateLimited' | 'LlmUnavailable' | 'LlmMalformedResponse' | 'LlmTimeout',
    message: string,
    readonly outcome: AttemptOutcome,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** Error codes of a connection that failed before the request could be written: nothing was sent. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Whether a connection error (the SDK's APIConnectionError) happened before the request was sent. */
function neverSent(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const { code, syscall } = e as { code?: unknown; syscall?: unknown };
    if ((typeof code === 'string' && NOT_SENT_CODES.has(code)) || syscall === 'connect' || syscall === 'getaddrinfo') return true;
  }
  return false;
}

/**
 * A request's attempts so far that brought no usable answer: those the endpoint answered (`calls`:
 * malformed answers, paid for), those sent and never answered (`unanswered`), the malformed answers,
 * and the time-outs at the timeout of the last one (a longer timeout starts that count again).
 * Attempts that never reached the endpoint count nowhere: an outage costs nothing.
 */
interface FailureCounts {
  calls: number;
  malformed: number;
  timeouts: number;
  timeoutS: number;
  unanswered: number;
}

/**
 * Stored as "calls malformed timeouts timeoutS unanswered"; fields missing from older records read
 * as 0 (their `calls` counted every failed attempt, the unanswered and the never sent too).
 */
function parseFailureCounts(text: string | null): FailureCounts {
  const [calls, malformed, timeouts, timeoutS, unanswered] = (text ?? '')
    .trim()
    .split(/\s+/)
    .map(Number)
    .map((x) => (Number.isFinite(x) && x! > 0 ? x! : 0));
  return {
    calls: Math.floor(calls ?? 0),
    malformed: Math.floor(malformed ?? 0),
    timeouts: Math.floor(timeouts ?? 0),
    timeoutS: timeoutS ?? 0,
    unanswered: Math.floor(unanswered ?? 0),
  };
}

function formatFailureCounts(c: FailureCounts): string {
  return `${c.calls} ${c.malformed} ${c.timeouts} ${c.timeoutS} ${c.unanswered}`;
}

function endpointRejected(endpoint: LlmEndpoint, status: number, message: string): ApplicationFailure {
  const hint =
    status === 404
      ? `check models[${endpoint.id}].model (${endpoint.model}) and base_url (${endpoint.baseUrl})`
      : `check the API key${endpoint.apiKeyEnv ? ` in ${endpoint.apiKeyEnv}` : ' (models[].api_key_env names its variable)'} and its access to ${endpoint.model}`;
  return ApplicationFailure.nonRetryable(
    `model ${endpoint.id}: ${endpoint.baseUrl} answered ${status} (${message}); ${hint}. Nothing was recorded: with the key fixed in the workers' environment, the same start command resumes the sweep; a model or URL fixed in the config is another config (another sweep id)`,
    'LlmConfigError',
  );
}

function retryAfterMs(headers: Headers | undefined): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Number(ms);
  const value = headers.get('retry-after');
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * The answer is paid for: storing it is retried inside the activity for a while (S3 restarting),
 * because failing the activity now would send the same request again on retry.
 */
/**
 * Each running LLM activity's answers so far (LlmHeartbeat). Every heartbeat of the activity carries
 * them: one without details would erase them from what the live progress reads.
 */
const answeredSoFar = new WeakMap<Context, LlmHeartbeat>();

function progressOf(context: Context): LlmHeartbeat {
  let p = answeredSoFar.get(context);
  if (!p) answeredSoFar.set(context, (p = { answered: 0, cut: 0, calls: 0, promptTokens: 0, completionTokens: 0 }));
  return p;
}

/** Heartbeats the current activity with its answers so far. */
function beat(context: Context = Context.current()): void {
  context.heartbeat(progressOf(context));
}

async function putPatiently(bucket: Bucket, key: string, body: string): Promise<void> {
  const deadline = Date.now() + 5 * 60_000;
  for (let delay = 250; ; delay = Math.min(delay * 2, 10_000)) {
    try {
      await putObject(bucket, key, body, { contentType: 'application/json' });
      return;
    } catch (err) {
      if (Date.now() + delay > deadline) throw err;
      beat();
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

interface Store {
  group: string;
  /** The samples the batch asks of this group (its segments are named by them). */
  span: SampleSpan | undefined;
  found: GroupContents;
  writer: GroupWriter;
  inflight: InflightEntry;
  /** The batch's place in the model gate's queue (LlmRanks: its workflow's). */
  rank: number;
}

/** Waits (heartbeating, cancellable) until no one else holds the missing calls of `requests`. */
async function waitForOthers(
  requests: PlannedRequest[],
  storeOf: (r: PlannedRequest) => Store,
  missingOf: (r: PlannedRequest) => string[],
): Promise<void> {
  const byStore = new Map<Store, string[]>();
  for (const r of requests) byStore.set(storeOf(r), [...(byStore.get(storeOf(r)) ?? []), ...missingOf(r)]);
  for (let delay = 250; ; delay = Math.min(delay * 2, 5_000)) {
    beat();
    await Context.current().sleep(delay);
    let held = false;
    for (const [store, ids] of byStore) held ||= await store.inflight.othersHold(ids);
    if (!held) return;
  }
}

/**
 * `workersOn` counts the workers serving a model's queue (WorkerLeases in a worker): each request
 * waits for this worker's share of the model's concurrency and rate (ModelGate). Without it the
 * worker takes the whole of them.
 */
export function createLlmActivities(
  bucket: Bucket,
  env: Record<string, string | undefined> = process.env,
  workersOn?: WorkersOn,
  /**
   * True once the worker is stopping: no request starts after that (those in flight finish, or are
   * cancelled at the worker's grace), and the activity is handed back for the rest.
   */
  stopping: () => boolean = () => false,
) {
  const clients = new OpenAiClients(env);
  const gate = new ModelGate(workersOn);
  const ranks = new LlmRanks();
  const clientFor = (endpoint: LlmEndpoint): OpenAI => clients.for(endpoint, `model ${endpoint.id}`);

  async function send(endpoint: LlmEndpoint, body: LlmBody): Promise<Answer> {
    const client = clientFor(endpoint);
    const n = body.n ?? 1;
    // The activity's cancellation (a stopping worker's grace run out, the workflow's cancel) ends
    // the request in flight: a stop is bounded by the grace, not by request_timeout_s.
    const signal = Context.current().cancellationSignal;
    if (stopping() || signal.aborted)
      throw new RetryableLlmError('LlmUnavailable', `not sent to ${endpoint.id}: this worker is stopping; handed back`, 'not-sent');
    let response: unknown;
    try {
      response =
        endpoint.api === 'chat'
          ? await client.chat.completions.create(
              { ...(body as OpenAI.ChatCompletionCreateParamsNonStreaming), n, stream: false },
              { signal },
            )
          : await client.completions.create({ ...(body as OpenAI.CompletionCreateParamsNonStreaming), n, stream: false }, { signal });
    } catch (err) {
      // Sent and cut before its answer: counted as unanswered, asked again by the next attempt.
      if (err instanceof APIUserAbortError)
        throw new RetryableLlmError(
          'LlmUnavailable',
          `request to ${endpoint.id} cancelled in flight (${String(signal.reason ?? 'cancelled')})`,
          'unanswered',
        );
      if (err instanceof APIConnectionTimeoutError) {
        throw new RetryableLlmError(
          'LlmTimeout',
          `no answer from ${endpoint.id} within request_timeout_s = ${endpoint.requestTimeoutS} s`,
          'unanswered',
        );
      }
      if (err instanceof APIError) {
        const status = err.status;
        if (status === 429)
          throw new RetryableLlmError(
            'RateLimited',
            `429 from ${endpoint.id}: ${err.message}`,
            'unanswered',
            retryAfterMs(err.headers as Headers | undefined),
          );
        if (status === undefined || status >= 500 || status === 408 || status === 409) {
          const outcome = status === undefined && neverSent(err) ? 'not-sent' : 'unanswered';
          const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
          throw new RetryableLlmError(
            'LlmUnavailable',
            `${status ?? 'connection error'} from ${endpoint.id}: ${err.message}${status === undefined ? cause : ''}`,
            outcome,
          );
        }
        // The endpoint refuses us, not this request: recording it as the samples' answer would
        // cache a wrong key or model name for good. Nothing is stored; the sweep stops, naming it.
        if (status === 401 || status === 403 || status === 404) throw endpointRejected(endpoint, status, err.message);
        throw err; // other 4xx: about this request; the caller records it
      }
      // A body that is not JSON surfaces as a parse error from the SDK.
      throw new RetryableLlmError('LlmMalformedResponse', `malformed response from ${endpoint.id}: ${(err as Error).message}`, 'answered');
    }
    const parsed = endpoint.api === 'chat' ? ChatResponseSchema.safeParse(response) : CompletionResponseSchema.safeParse(response);
    if (!parsed.success)
      throw new RetryableLlmError(
        'LlmMalformedResponse',
        `malformed ${endpoint.api} response from ${endpoint.id}: ${parsed.error.message}`,
        'answered',
      );
    // Fewer choices than asked for is an answer, not a malformation: endpoints that ignore `n`
    // answer one, some cap it. The caller asks again for the rest.
    const choices = new Array<{ text: string; finishReason: string | null } | undefined>(n);
    for (const [position, c] of parsed.data.choices.entries()) {
      const index = c.index ?? position;
      if (index >= n || choices[index])
        throw new RetryableLlmError(
          'LlmMalformedResponse',
          `malformed response from ${endpoint.id}: choice index ${index} repeated or beyond the n=${n} asked for`,
          'answered',
        );
      choices[index] = { text: 'text' in c ? c.text : (c.message.content ?? ''), finishReason: c.finish_reason ?? null };
    }
    const usage = parsed.data.usage;
    return { response, choices, promptTokens: usage?.prompt_tokens ?? 0, completionTokens: usage?.completion_tokens ?? 0 };
  }

  const summaryOf = (
    key: string,
    r: Pick<
      LlmRecord,
      'status' | 'promptTokens' | 'completionTokens' | 'calls' | 'requestsUnanswered' | 'error' | 'finishReason' | 'batchId'
    >,
    cached: boolean,
  ): LlmCallSummary => ({
    key,
    status: r.status,
    cached,
    promptTokens: r.promptTokens,
    completionTokens: r.completionTokens,
    calls: r.calls,
    ...(r.requestsUnanswered ? { requestsUnanswered: r.requestsUnanswered } : {}),
    // A fresh error's reason, for a cell that stops on errors to name (domain/sweep/cellErrors.ts).
    ...(r.status === 'error' && !cached && r.error ? { error: r.error.message.slice(0, 300) } : {}),
    ...(r.finishReason === FINISH_LENGTH ? { cut: true as const } : {}),
    ...(r.batchId !== undefined ? { batch: true as const } : {}),
  });

  /**
   * One planned request: its samples' answers from the cache, or else asked for and stored. Returns
   * a summary per sample, in choice order. Only the choices not cached are asked for: all of them in
   * the planned request; when some are cached (a crash between two segment writes) or an answer
   * brought back fewer choices than asked (endpoints that ignore `n` answer one), the rest in
   * further requests of the remaining count (remainingChoicesBody), until every choice is answered.
   * Each HTTP request is counted once: its `calls` (the endpoint's answers, malformed ones included),
   * its `requestsUnanswered` (sent, never answered) and its tokens sit on the first answer it brought.
   */
  async function one(
    endpoint: LlmEndpoint,
    calls: LlmBatch['calls'],
    request: PlannedRequest,
    identities: string[],
    store: Store,
  ): Promise<LlmCallSummary[]> {
    const out = new Array<LlmCallSummary>(request.members.length);
    let missing: number[] = [];
    for (const [choice, i] of request.members.entries()) {
      const cached = store.found.records.get(identities[i]!);
      if (cached && usableRecord(cached, endpoint.requestTimeoutS)) out[choice] = summaryOf(cached.key, cached, true);
      else missing.push(choice);
    }
    while (missing.length > 0) {
      const body = remainingChoicesBody(request.body, missing);
      const answered = await ask(endpoint, calls, request, identities, store, body, missing, out);
      missing = missing.filter((choice) => !answered.has(choice));
    }
    return out;
  }

  /**
   * Sends `body`, which asks for the choices `slots` of `request` (its j-th choice answers slot j),
   * and stores what came back; returns the slots answered. A request that failed for good records
   * an error for every slot. A retryable failure throws (the answers stored so far are kept).
   */
  async function ask(
    endpoint: LlmEndpoint,
    calls: LlmBatch['calls'],
    request: PlannedRequest,
    identities: string[],
    store: Store,
    body: LlmBody,
    slots: readonly number[],
    out: LlmCallSummary[],
  ): Promise<Set<number>> {
    // A request's failed attempts are counted under its first slot's identity, so `calls` counts
    // every request the endpoint answered, and `requestsUnanswered` every one sent without an answer.
    const requestIdentity = identities[request.members[slots[0]!]!]!;
    let failures: FailureCounts = { calls: 0, malformed: 0, timeouts: 0, timeoutS: 0, unanswered: 0 };
    if (store.found.failures.has(requestIdentity))
      failures = parseFailureCounts(await getText(bucket, failuresKey(store.group, requestIdentity)));
    // Answers wait in memory only briefly: when storing them falls behind (S3 slow or down), stop
    // asking for more until it catches up (or fail, if it cannot).
    if (store.writer.pending >= MAX_UNSTORED || store.writer.failed) await store.writer.drain();
    const context = Context.current();
    const end = await gate.enter(
      context.info.taskQueue,
      { concurrency: endpoint.concurrency, requestsPerSecond: endpoint.requestsPerSecond },
      { beat: () => beat(context), signal: context.cancellationSignal, rank: store.rank },
    );
    const started = Date.now();
    const n = body.n ?? 1;
    const requestOf = (slot: number, choice: number) => ({
      base_url: endpoint.baseUrl,
      api: endpoint.api,
      sample_index: calls[request.members[slot]!]!.sampleIndex,
      ...(n > 1 ? { choice } : {}),
      body,
    });
    let answer: Answer | undefined;
    let error: LlmRecord['error'];
    /** A failed attempt recorded as the answer (a 4xx, or given up on): the counts with it included. */
    let recordedFailure: FailureCounts | undefined;
    // Heartbeat while the model thinks, so a dead worker is noticed in seconds, not after a
    // whole request timeout.
    const beating = setInterval(() => beat(context), 5_000);
    try {
      answer = await send(endpoint, body).finally(() => {
        clearInterval(beating);
        end();
      });
    } catch (err) {
      if (err instanceof ApplicationFailure) throw err;
      // Counted per request, not by the activity's attempt: its earlier attempts may have been
      // lost to other requests' 429s or 5xx.
      const kind = err instanceof RetryableLlmError ? err.kind : null;
      // Anything else that reached here is a 4xx about this request: answered, and recorded below.
      const outcome: AttemptOutcome = err instanceof RetryableLlmError ? err.outcome : 'answered';
      const timeout = endpoint.requestTimeoutS;
      const counts: FailureCounts = {
        calls: failures.calls + (outcome === 'answered' ? 1 : 0),
        malformed: failures.malformed + (kind === 'LlmMalformedResponse' ? 1 : 0),
        timeouts: (failures.timeoutS === timeout ? failures.timeouts : 0) + (kind === 'LlmTimeout' ? 1 : 0),
        timeoutS: timeout,
        unanswered: failures.unanswered + (outcome === 'unanswered' ? 1 : 0),
      };
      const givenUp =
        (kind === 'LlmMalformedResponse' && counts.malformed >= MALFORMED_ATTEMPTS) ||
        (kind === 'LlmTimeout' && counts.timeouts >= TIMEOUT_ATTEMPTS);
      if (kind !== null) {
        // Kept when giving up too: a later attempt (a longer timeout) counts on from here. A request
        // that was never sent changed no count: nothing to write.
        if (outcome !== 'not-sent') await putObject(bucket, failuresKey(store.group, requestIdentity), formatFailureCounts(counts));
        if (!givenUp) throw err;
      }
      recordedFailure = counts;
      error =
        kind === 'LlmTimeout'
          ? {
              status: null,
              message: `timed out ${counts.timeouts} times at request_timeout_s = ${timeout} s; a longer timeout asks again`,
              timeoutS: timeout,
            }
          : { status: err instanceof APIError ? (err.status ?? null) : null, message: (err as Error).message };
    }
    const durationMs = Date.now() - started;
    const createdAt = new Date().toISOString();
    // The request's cost and raw response go with the first answer stored; the others point to it.
    let firstKey: string | undefined;
    const answered = new Set<number>();
    for (const [choice, slot] of slots.entries()) {
      const got = answer?.choices[choice];
      if (answer && !got) continue; // left out by the endpoint: asked for again
      const first = firstKey === undefined;
      // An answer is one more call than the failed attempts before it.
      const total = recordedFailure ?? { calls: failures.calls + 1, unanswered: failures.unanswered };
      const paid = {
        calls: first ? total.calls : 0,
        promptTokens: first && answer ? answer.promptTokens : 0,
        completionTokens: first && answer ? answer.completionTokens : 0,
        ...(first && total.unanswered > 0 ? { requestsUnanswered: total.unanswered } : {}),
      };
      const record: Omit<LlmRecord, 'key'> = got
        ? {
            status: 'ok',
            text: got.text,
            finishReason: got.finishReason,
            ...paid,
            durationMs,
            createdAt,
            request: requestOf(slot, choice),
            response: first ? answer!.response : { same_request_as: firstKey },
          }
        : {
            status: 'error',
            text: '',
            finishReason: null,
            ...paid,
            error: error!,
            durationMs,
            createdAt,
            request: requestOf(slot, choice),
            response: null,
          };
      const key = store.writer.add(identities[request.members[slot]!]!, record, calls[request.members[slot]!]!.sampleIndex);
      firstKey ??= key;
      out[slot] = summaryOf(key, record, false);
      answered.add(slot);
    }
    return answered;
  }

  return {
    /**
     * Sends a batch of calls (cached ones are not sent), `concurrency` at a time (default one after
     * another: the worker's concurrent activities are the model's concurrency). Answers are stored
     * while the next calls go out, and all of them before the activity reports. When some fail in a
     * retryable way, the others still finish and are stored; then the activity fails so Temporal
     * retries it — after the server's Retry-After for a 429.
     */
    async callLlm(batch: LlmBatch): Promise<LlmCallSummary[]> {
      // Batch mode's multi-round methods: a step asked to park stores what it would send, and stops here.
      await parkOrSend(bucket, batch.endpoint, batch.calls);
      const groups = batch.calls.map((c) => callGroup({ endpoint: batch.endpoint, ...c }));
      const identities = batch.calls.map((c) => callIdentity({ endpoint: batch.endpoint, ...c }));
      const requests = planRequests(batch, groups);
      // One activity must not run two callLlm at once on one group (none does: their steps ask one
      // after another); they would share, and overwrite, one entry.
      const holder = activityHolderName(Context.current().info);
      // The oldest workflow's requests first (modelGate.ts): a shard's tasks end together, early.
      const info = Context.current().info;
      const rank = ranks.of(info.workflowExecution?.workflowId ?? info.activityId);
      const stores = new Map<string, Store>();
      await Promise.all(
        [...new Set(groups)].map(async (group) => {
          // The samples this batch asks of the group: its segments say so, and it reads only those that may hold them.
          const span = spanOf(batch.calls.flatMap((c, i) => (groups[i] === group ? [c.sampleIndex] : [])));
          const found = await readGroup(bucket, group, span);
          stores.set(group, {
            group,
            span,
            found,
            writer: new GroupWriter(
              group,
              async (key, body) => {
                await putPatiently(bucket, key, body);
                rememberWrittenSegment(bucket, key, body);
              },
              span,
            ),
            inflight: new InflightEntry(bucket, inflightKey(group), holder, found.inflightListed),
            rank,
          });
        }),
      );
      const storeOf = (request: PlannedRequest) => stores.get(groups[request.members[0]!]!)!;
      const answered = (request: PlannedRequest, id: string) => {
        const record = storeOf(request).found.records.get(id);
        return record !== undefined && usableRecord(record, batch.endpoint.requestTimeoutS);
      };
      const missingOf = (request: PlannedRequest) => request.members.map((i) => identities[i]!).filter((id) => !answered(request, id));
      const out = new Array<LlmCallSummary | undefined>(batch.calls.length);
      const context = Context.current();
      const soFar = progressOf(context);
      let lastBeat = 0;
      try {
        let pending = requests;
        for (;;) {
          // Enter the calls to send in the groups' in-flight ledgers; those someone else is asking
          // right now (another sweep on the same cells, another activity) wait for their answers.
          const blocked = new Set<PlannedRequest>();
          for (const store of stores.values()) {
            const wanted = pending.filter((r) => storeOf(r) === store).flatMap(missingOf);
            if (wanted.length === 0) continue;
            const elsewhere = await store.inflight.enter(wanted);
            // Read again now that the calls are ours: an activity that held them until a moment
            // ago has stored their answers since the first read (it stores before it leaves).
            store.found = await readGroup(bucket, store.group, store.span);
            for (const r of pending) if (storeOf(r) === store && missingOf(r).some((id) => elsewhere.has(id))) blocked.add(r);
          }
          const sendable = pending.filter((r) => !blocked.has(r));
          let retryable: RetryableLlmError | undefined;
          let next = 0;
          const lanes = Array.from({ length: Math.min(batch.concurrency ?? 1, sendable.length) }, async () => {
            while (next < sendable.length) {
              const request = sendable[next++]!;
              try {
                const summaries = await one(batch.endpoint, batch.calls, request, identities, storeOf(request));
                for (const [choice, i] of request.members.entries()) {
                  const summary = summaries[choice];
                  out[i] = summary;
                  if (!summary) continue;
                  soFar.answered++;
                  if (summary.cut) soFar.cut++;
                  soFar.calls += summary.calls;
                  soFar.promptTokens += summary.promptTokens;
                  soFar.completionTokens += summary.completionTokens;
                }
                // Once a second at most (each call costs an encoding and a call into the core; a
                // cached batch answers thousands at once); the 5 s beats while sending carry the rest.
                if (Date.now() - lastBeat >= 1000) {
                  lastBeat = Date.now();
                  beat(context);
                }
              } catch (err) {
                if (!(err instanceof RetryableLlmError)) throw err;
                if (!retryable || (err.retryAfterMs ?? 0) > (retryable.retryAfterMs ?? 0)) retryable = err;
              }
            }
          });
          const settled = await Promise.allSettled(lanes);
          // Whatever happened, the answers received are paid for: store them before reporting anything.
          await Promise.all([...stores.values()].map((s) => s.writer.drain()));
          for (const s of settled) if (s.status === 'rejected') throw s.reason;
          if (retryable) {
            throw ApplicationFailure.create({
              type: retryable.kind,
              message: retryable.message,
              nextRetryDelay: retryable.retryAfterMs !== undefined ? Math.max(1, Math.ceil(retryable.retryAfterMs)) : undefined,
            });
          }
          if (blocked.size === 0) return out as LlmCallSummary[];
          // Hold nothing while waiting (everything sent is stored by now), so that two activities
          // waiting for each other's calls cannot wait forever.
          await Promise.all([...stores.values()].map((s) => s.inflight.leave()));
          pending = [...blocked];
          await waitForOthers(pending, storeOf, missingOf);
        }
      } finally {
        await Promise.all(
          [...stores.values()].map((s) =>
            s.inflight
              .leave()
              .catch((err) =>
                console.warn(
                  `leaving ${s.group}'s in-flight ledger failed (its entry lapses in ${LEASE_MS / 1000} s): ${(err as Error).message}`,
                ),
              ),
          ),
        );
      }
    },

    /** The cached record of one call (for activities that build records and reports). */
    async readLlmRecord(key: string): Promise<LlmRecord | null> {
      return readLlmRecordAt(bucket, key);
    },
  };
}

export type LlmActivities = ReturnType<typeof createLlmActivities>;
