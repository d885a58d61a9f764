/**
 * Batch mode's side of the LLM cache (cache.ts): the requests a set of calls would send that the
 * cache does not answer yet, stored as request sets (plan files in S3) within the provider's limits;
 * and a batch's answers stored in the cache as the live path stores its own, so the live path then
 * finds them and sends only what is left.
 */
import { canonicalJson } from '../../domain/datasets/manifest.js';
import { parseJsonl } from '../../domain/datasets/jsonl.js';
import { BatchPlanLineSchema, batchAnswerOf, splitPlan, type BatchOutputLine, type BatchPlanLine } from '../../domain/llm/batchLines.js';
import { usableRecord, type LlmBody, type LlmEndpoint, type LlmRecord } from '../../domain/llm/request.js';
import type { SampleCall } from '../../domain/methods/sampling.js';
import { LEASE_MS } from '../../domain/llm/inflight.js';
import { callGroup, callIdentity, GroupWriter, inflightKey, readGroup, rememberWrittenSegment } from './cache.js';
import { InflightEntry } from './inflightLedger.js';
import { getText, putObject, putObjectOnce, sha256Hex, type Bucket } from '../s3.js';

/** Groups whose cached answers are read at once. */
const GROUP_READS = 16;

/** A request set as it travels through workflow history: where its plan is, and how much it holds. */
export interface RequestSet {
  /** The plan file in S3 (one BatchPlanLine a line). */
  planKey: string;
  /** A hash of its requests: names its batch (metadata) and its workflow. */
  setId: string;
  requests: number;
  samples: number;
}

/** The planned requests of `calls` (one task's laid-out calls, or several tasks'): a request per body, its samples in choice order. */
export function planOf(endpoint: LlmEndpoint, calls: readonly SampleCall[]): BatchPlanLine[] {
  const out: BatchPlanLine[] = [];
  const byRequest = new Map<string, BatchPlanLine>();
  for (const call of calls) {
    const full = { endpoint, ...call };
    const group = callGroup(full);
    const member = { identity: callIdentity(full), sampleIndex: call.sampleIndex };
    const n = call.body.n ?? 1;
    if (n === 1) {
      out.push({ custom_id: member.identity, body: call.body as Record<string, unknown>, group, members: [member] });
      continue;
    }
    const id = `${group}\0${call.sampleIndex - (call.choice ?? 0)}`;
    let line = byRequest.get(id);
    if (!line) {
      line = { custom_id: '', body: call.body as Record<string, unknown>, group, members: [] };
      byRequest.set(id, line);
      out.push(line);
    }
    line.members[call.choice ?? 0] = member;
    if ((call.choice ?? 0) === 0) line.custom_id = member.identity;
  }
  return out;
}

/**
 * The requests of `plan` none of whose samples the cache answers yet. A request some of whose
 * samples are answered (a crash between two writes) is left to the live path, which asks for the
 * rest only.
 */
export async function uncachedOf(bucket: Bucket, endpoint: LlmEndpoint, plan: readonly BatchPlanLine[]): Promise<BatchPlanLine[]> {
  const groups = [...new Set(plan.map((l) => l.group))];
  const cached = new Map<string, Map<string, LlmRecord>>();
  // A cell's tasks are a group each: read a few at a time, not thousands at once.
  let next = 0;
  const lanes = Array.from({ length: Math.min(GROUP_READS, groups.length) }, async () => {
    while (next < groups.length) {
      const g = groups[next++]!;
      cached.set(g, (await readGroup(bucket, g)).records);
    }
  });
  await Promise.all(lanes);
  const answered = (l: BatchPlanLine, identity: string) => {
    const record = cached.get(l.group)!.get(identity);
    return record !== undefined && usableRecord(record, endpoint.requestTimeoutS);
  };
  return plan.filter((l) => l.members.every((m) => !answered(l, m.identity)));
}

/** Stores the plan as request sets within the endpoint's batch limits under `prefix`; content-addressed, so a retry writes the same keys. */
export async function storeRequestSets(
  bucket: Bucket,
  endpoint: LlmEndpoint,
  plan: readonly BatchPlanLine[],
  prefix: string,
): Promise<RequestSet[]> {
  if (!endpoint.batch) throw new Error(`model ${endpoint.id} is not in batch mode`);
  const sets = splitPlan(endpoint.api, plan, endpoint.batch);
  return Promise.all(
    sets.map(async (lines) => {
      const text = lines.map((l) => canonicalJson(l)).join('\n') + '\n';
      const setId = sha256Hex(text).slice(0, 24);
      const planKey = `${prefix}set-${setId}.jsonl`;
      await putObjectOnce(bucket, planKey, text, { contentType: 'application/jsonl' });
      return { planKey, setId, requests: lines.length, samples: lines.reduce((a, l) => a + l.members.length, 0) };
    }),
  );
}

/** Runs `work` on each item, `lanes` at a time. */
async function inLanes<T>(items: readonly T[], lanes: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(lanes, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/**
 * A request set's name in the groups' in-flight ledgers (inflightLedger.ts): its batch holds the
 * requests it sends from its submission until its answers are stored, whichever activities do those.
 */
const batchHolder = (set: Pick<RequestSet, 'planKey'>) => `batch:${set.planKey}`;
const holdGroupsKey = (set: Pick<RequestSet, 'planKey'>) => `${set.planKey}.groups.json`;

/**
 * How long a batch's hold lasts unrenewed: every poll renews it, and polls come at most max_poll_s
 * apart; a batch whose workflow is gone (terminated) stops holding a few polls later.
 */
export function batchLeaseMs(endpoint: LlmEndpoint): number {
  return Math.max(LEASE_MS, (3 * (endpoint.batch?.maxPollS ?? 600) + 60) * 1000);
}

const batchEntry = (bucket: Bucket, endpoint: LlmEndpoint, set: Pick<RequestSet, 'planKey'>, group: string) =>
  new InflightEntry(bucket, inflightKey(group), batchHolder(set), true, { leaseMs: batchLeaseMs(endpoint) });

/**
 * Enters the requests of `plan` (the set's) that the cache does not answer in their groups'
 * in-flight ledgers under the set's name, and returns those the batch may send: not answered, and
 * not held by another activity (a live sweep on the same grid asking them now, or another batch),
 * which answers them instead. A live activity that finds them held by the batch waits for its answers.
 */
export async function holdForBatch(
  bucket: Bucket,
  endpoint: LlmEndpoint,
  set: RequestSet,
  plan: readonly BatchPlanLine[],
): Promise<BatchPlanLine[]> {
  const uncached = await uncachedOf(bucket, endpoint, plan);
  const byGroup = new Map<string, string[]>();
  for (const l of uncached) byGroup.set(l.group, [...(byGroup.get(l.group) ?? []), ...l.members.map((m) => m.identity)]);
  await putObjectOnce(bucket, holdGroupsKey(set), JSON.stringify([...byGroup.keys()].sort()), { contentType: 'application/json' });
  const elsewhere = new Set<string>();
  await inLanes([...byGroup], GROUP_READS, async ([group, identities]) => {
    for (const id of await batchEntry(bucket, endpoint, set, group).enter(identities)) elsewhere.add(id);
  });
  // Answered between the first look and the hold (a live activity that stored its answers and left).
  const stillUncached = await uncachedOf(bucket, endpoint, uncached);
  return stillUncached.filter((l) => l.members.every((m) => !elsewhere.has(m.identity)));
}

async function holdGroups(bucket: Bucket, set: RequestSet): Promise<string[]> {
  const text = await getText(bucket, holdGroupsKey(set));
  return text === null ? [] : (JSON.parse(text) as string[]);
}

/** Renews the set's hold (each poll of its batch). */
export async function renewBatchHold(bucket: Bucket, endpoint: LlmEndpoint, set: RequestSet): Promise<void> {
  await inLanes(await holdGroups(bucket, set), GROUP_READS, (g) => batchEntry(bucket, endpoint, set, g).renewOwn());
}

/** Ends the set's hold (its answers are stored, or nothing was sent). */
export async function releaseBatchHold(bucket: Bucket, endpoint: LlmEndpoint, set: RequestSet): Promise<void> {
  await inLanes(await holdGroups(bucket, set), GROUP_READS, (g) => batchEntry(bucket, endpoint, set, g).releaseOwn());
}

export async function readPlan(bucket: Bucket, planKey: string): Promise<BatchPlanLine[]> {
  const text = await getText(bucket, planKey);
  if (text === null) throw new Error(`batch request set ${planKey} is missing`);
  return parseJsonl(text, BatchPlanLineSchema, planKey).map((r) => r.row);
}

/** What storing a batch's answers came to. */
export interface StoredBatchAnswers {
  /** Samples whose answer is now cached (by this batch, or already). */
  samples: number;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  /** The requests no answer came for (failed, expired, cancelled, malformed), in plan order. */
  left: BatchPlanLine[];
}

/**
 * Stores each 200 answer of `output` (a batch's output and error lines) in the cache, as the live
 * path would have: a record per sample, the request's tokens and its raw response on its first.
 * Samples the cache already answers (a retry of this activity) are not stored again.
 */
export async function storeBatchAnswers(
  bucket: Bucket,
  endpoint: LlmEndpoint,
  plan: readonly BatchPlanLine[],
  output: readonly BatchOutputLine[],
  batchId: string,
): Promise<StoredBatchAnswers> {
  const byId = new Map<string, BatchOutputLine>();
  for (const line of output) if (line.response?.status_code === 200 || !byId.has(line.custom_id)) byId.set(line.custom_id, line);
  const stillMissing = new Set((await uncachedOf(bucket, endpoint, plan)).map((l) => l.custom_id));
  const writers = new Map<string, GroupWriter>();
  const writerOf = (group: string) => {
    let w = writers.get(group);
    if (!w) {
      w = new GroupWriter(group, async (key, body) => {
        await putObject(bucket, key, body, { contentType: 'application/json' });
        rememberWrittenSegment(bucket, key, body);
      });
      writers.set(group, w);
    }
    return w;
  };
  const result: StoredBatchAnswers = { samples: 0, requests: 0, promptTokens: 0, completionTokens: 0, left: [] };
  const createdAt = new Date().toISOString();
  for (const line of plan) {
    if (!stillMissing.has(line.custom_id)) {
      result.samples += line.members.length;
      continue;
    }
    const out = byId.get(line.custom_id);
    const answer = out ? batchAnswerOf(endpoint.api, line.body, out) : null;
    if (!answer || answer.choices.some((c) => c === undefined)) {
      // A choice left out is asked again, the whole request, in the next round or live.
      result.left.push(line);
      continue;
    }
    const n = line.members.length;
    let firstKey: string | undefined;
    for (const [choice, member] of line.members.entries()) {
      const got = answer.choices[choice]!;
      const first = firstKey === undefined;
      const record: Omit<LlmRecord, 'key'> = {
        status: 'ok',
        text: got.text,
        finishReason: got.finishReason,
        calls: first ? 1 : 0,
        promptTokens: first ? answer.promptTokens : 0,
        completionTokens: first ? answer.completionTokens : 0,
        durationMs: 0,
        createdAt,
        request: {
          base_url: endpoint.baseUrl,
          api: endpoint.api,
          sample_index: member.sampleIndex,
          ...(n > 1 ? { choice } : {}),
          body: line.body as LlmBody,
        },
        response: first ? answer.response : { same_request_as: firstKey },
        batchId,
      };
      const key = writerOf(line.group).add(member.identity, record, member.sampleIndex);
      firstKey ??= key;
    }
    result.samples += n;
    result.requests += 1;
    result.promptTokens += answer.promptTokens;
    result.completionTokens += answer.completionTokens;
  }
  await Promise.all([...writers.values()].map((w) => w.drain()));
  return result;
}
