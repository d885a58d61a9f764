/**
 * A scripted "model" for sweep tests: each (dataset, task, sample) gets a known kind of answer, so
 * a test can compute the results a sweep must report, and faults can be injected per request.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll } from 'vitest';
import type { ExploraConfig } from '../../domain/config/env.js';
import { generateTask } from '../../domain/pbe/generate.js';
import { normalizeRow } from '../../domain/families/humanevalStyle.js';
import { privateApiLibrary } from '../../domain/apidocs/pbe.js';
import { PYTHON_STR_LIBRARY } from '../../domain/apidocs/pythonStr.js';
import { privateLibrary } from '../../domain/pbe/privateLibrary.js';
import { taskRequirement } from '../../methods/exploracoder/requirement.js';
import { resolvePbeParams, type PbeParams } from '../../domain/pbe/params.js';
import { sweepWorkflowId } from '../../domain/sweep/keys.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { waitUntil } from '../support/poll.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type Reply, type ScriptedLlmServer, type ScriptedRequest } from '../support/scripted-llm-server.js';

export const HUMANEVAL = path.resolve(PROJECT_ROOT, '../shared/reference/humaneval/HumanEval.jsonl.gz');
export const SWEEP_SEED = 1000;

export interface KnownProblem {
  dataset: string;
  index: number;
  task_id: string;
  prompt: string;
  entry_point: string;
  canonical_solution: string;
  /** full: canonical_solution is the whole function (PBE World). */
  full: boolean;
  /** The task as the planner's template states it (methods/exploracoder/requirement.ts), when known. */
  requirement?: string;
}

export function humanEvalProblems(limit: number): KnownProblem[] {
  return gunzipSync(readFileSync(HUMANEVAL))
    .toString('utf8')
    .trim()
    .split('\n')
    .slice(0, limit)
    .map((l, index) => {
      const r = JSON.parse(l);
      return {
        dataset: 'humaneval',
        index,
        task_id: r.task_id,
        prompt: r.prompt,
        entry_point: r.entry_point,
        canonical_solution: r.canonical_solution,
        full: false,
      };
    });
}

export function pbeProblems(params: PbeParams, dataset = 'pbe'): KnownProblem[] {
  return Array.from({ length: params.count }, (_, index) => {
    const t = generateTask(params, index);
    const problem = normalizeRow(t as never, 'full', 'pbe-world');
    const library = params.library === 'private' ? privateApiLibrary(privateLibrary(params.seed)) : PYTHON_STR_LIBRARY;
    return {
      dataset,
      index,
      task_id: t.task_id,
      prompt: t.prompt,
      entry_point: t.entry_point,
      canonical_solution: t.canonical_solution,
      full: true,
      requirement: taskRequirement(problem, library),
    };
  });
}

export const SMALL_PBE = resolvePbeParams({ count: 5, seed: 3 });

export type AnswerKind = 'correct' | 'wrong' | 'raises';

/** The answer each sample gets: a mix of passing, failing and crashing programs. */
export function kindOf(taskIndex: number, sample: number): AnswerKind {
  if ((taskIndex + sample) % 3 !== 0) return 'correct';
  return sample % 2 ? 'raises' : 'wrong';
}

/** The body of a PBE canonical solution (after its def line and docstring). */
function pbeBody(solution: string): string {
  return solution.split('\n').slice(2).join('\n');
}

function fullFunction(p: KnownProblem, kind: AnswerKind): string {
  if (kind === 'correct') return p.full ? p.canonical_solution : p.prompt + p.canonical_solution;
  const sig = p.full
    ? p.canonical_solution.split('\n')[0]!
    : (p.prompt.split('\n').find((l) => l.startsWith(`def ${p.entry_point}(`)) ?? `def ${p.entry_point}(*args):`);
  return `${
    p.full
      ? ''
      : p.prompt
          .split('\n')
          .filter((l) => /^(from|import) /.test(l))
          .join('\n') + '\n'
  }${sig}\n    ${kind === 'raises' ? "raise ValueError('scripted crash')" : 'return None'}\n`;
}

function continuation(p: KnownProblem, kind: AnswerKind): string {
  if (kind === 'raises') return "    raise ValueError('scripted crash')\n";
  if (kind === 'wrong') return '    return None\n';
  return p.full ? pbeBody(p.canonical_solution) : p.canonical_solution;
}

/** Which problem and sample a request is for: the prompt text names the task, the seed the sample. */
export function identify(req: ScriptedRequest, problems: KnownProblem[]): { problem: KnownProblem; sample: number } {
  const text = req.api === 'chat' ? JSON.stringify(req.body.messages) : String(req.body.prompt);
  const candidates = problems.filter((p) =>
    req.api === 'chat'
      ? text.includes(JSON.stringify(p.prompt).slice(1, -1))
      : p.full
        ? p.prompt.startsWith(text.trimEnd())
        : text === p.prompt,
  );
  if (candidates.length !== 1) throw new Error(`request matches ${candidates.length} problems`);
  return { problem: candidates[0]!, sample: Number(req.body.seed) - SWEEP_SEED };
}

export type Fault = '429-once' | '500-once' | 'malformed-once' | 'slow' | '400';

/** A script answering by kind, with faults injected by `${dataset}#${task index}#${sample}`. */
export function scriptedAnswers(problems: KnownProblem[], faults: Map<string, Fault> = new Map(), extraDelayMs = 0) {
  return (req: ScriptedRequest): Reply => {
    const { problem, sample: first } = identify(req, problems);
    // A request of n choices is for samples first..first+n-1 (the seed is its first sample's);
    // a fault on any of them is the request's.
    const samples = Array.from({ length: typeof req.body.n === 'number' ? req.body.n : 1 }, (_, j) => first + j);
    const requestFaults = new Set(samples.map((s) => faults.get(`${problem.dataset}#${problem.index}#${s}`)));
    if (requestFaults.has('400')) return { status: 400, message: 'scripted: this request is invalid' };
    if (req.attempt === 1) {
      if (requestFaults.has('429-once')) return { status: 429, retryAfterSeconds: 1, message: 'scripted rate limit' };
      if (requestFaults.has('500-once')) return { status: 500, message: 'scripted outage' };
      if (requestFaults.has('malformed-once')) return { malformed: true };
    }
    const delayMs = (requestFaults.has('slow') ? 1500 : 0) + extraDelayMs;
    const answer = (sample: number) => {
      const kind = kindOf(problem.index, sample);
      if (req.api !== 'chat') return continuation(problem, kind);
      // Some answers think first: the sweep must strip that before extracting code.
      const think = sample === 0 ? '<think>the pipeline seems to be...</think>\n' : '';
      return `${think}Here you go:\n\`\`\`python\n${fullFunction(problem, kind)}\`\`\`\n`;
    };
    return { content: samples.length === 1 ? answer(first) : samples.map(answer), delayMs };
  };
}

/** Per task: n samples, c passing, s succeeding (no runtime error), given samples whose call errored. */
export function expectedCounts(problems: KnownProblem[], nSamples: number, llmErrors: Set<string> = new Set()) {
  return problems.map((p) => {
    let c = 0;
    let s = 0;
    for (let i = 0; i < nSamples; i++) {
      if (llmErrors.has(`${p.dataset}#${p.index}#${i}`)) continue;
      const kind = kindOf(p.index, i);
      if (kind === 'correct') c++;
      if (kind !== 'raises') s++;
    }
    return { n: nSamples, c, s };
  });
}

/**
 * The body of the end-to-end sweeps' config (everything after `id:`): HumanEval and a small PBE
 * World, one chat and one completions model on the scripted server, `direct`, k up to 4.
 */
export function scriptedSweepYaml(serverUrl: string, nSamples: number, limit: number): string {
  return `datasets:
  - name: humaneval
    family: humaneval
    path: ${HUMANEVAL}
  - name: pbe
    family: pbe-world
    pbe_world: { count: ${SMALL_PBE.count}, seed: ${SMALL_PBE.seed} }
models:
  - id: chatty
    base_url: ${serverUrl}
    model: scripted-chat
    api: chat
    concurrency: 3
    request_timeout_s: 10
  - id: plain
    base_url: ${serverUrl}
    model: scripted-completions
    api: completions
    request_timeout_s: 10
methods: [direct]
temperatures: [0.2]
n_samples: ${nSamples}
k: [1, 2, 4]
limit: ${limit}
timeout_s: 5
seed: ${SWEEP_SEED}
`;
}

/** A sweep config's `datasets:` holding HumanEval alone. */
export const HUMANEVAL_DATASETS_YAML = `datasets:
  - name: humaneval
    family: humaneval
    path: ${HUMANEVAL}
`;

/** One `models:` entry on the scripted server, two requests at a time. */
export function scriptedModelYaml(id: string, serverUrl: string, model: string, api: 'chat' | 'completions'): string {
  return `  - id: ${id}
    base_url: ${serverUrl}
    model: ${model}
    api: ${api}
    concurrency: 2
    request_timeout_s: 10
`;
}

/** The end of a sweep config after `models:`: `direct`, one sample per task at 0.2, the first `limit` tasks. */
export function oneSampleDirectYaml(limit: number): string {
  return `methods: [direct]
temperatures: [0.2]
n_samples: 1
k: [1]
limit: ${limit}
timeout_s: 5
seed: ${SWEEP_SEED}
`;
}

/**
 * A test file's fixture for end-to-end sweeps of HumanEval tasks against a scripted server that
 * answers each request after `answerMs` (a function: asked for each request, for a test that speeds
 * answers up once they have shown what it checks): the bucket, a temporary directory for
 * configs and the server, all closed after the file's tests.
 */
export function scriptedSweepFixture(
  config: ExploraConfig,
  name: string,
  tasks: number,
  answerMs: number | ((req: ScriptedRequest) => number),
) {
  const bucket = testBucket(config);
  const dir = mkdtempSync(path.join(os.tmpdir(), `explora-${name}-`));
  const problems = humanEvalProblems(tasks);
  let server: ScriptedLlmServer | undefined;
  beforeAll(async () => {
    const answers = scriptedAnswers(problems, new Map(), typeof answerMs === 'number' ? answerMs : 0);
    server = await startScriptedLlmServer(
      typeof answerMs === 'number'
        ? answers
        : (req) => {
            const reply = answers(req);
            return 'content' in reply ? { ...reply, delayMs: (reply.delayMs ?? 0) + answerMs(req) } : reply;
          },
    );
  });
  afterAll(async () => {
    await server?.close();
    bucket.s3.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    bucket,
    dir,
    problems,
    /** The running server (from the first test on). */
    server: (): ScriptedLlmServer => {
      if (!server) throw new Error('the scripted server starts before the first test');
      return server;
    },
  };
}

/**
 * Waits until no request has reached the server for `quietMs` (a paused or held sweep has drained
 * what it had in flight); returns the count of requests then.
 */
export async function requestsSettled(server: ScriptedLlmServer, quietMs: number, maxMs: number): Promise<number> {
  let count = server.requests().length;
  let since = Date.now();
  return waitUntil(
    () => {
      const now = server.requests().length;
      if (now !== count) {
        count = now;
        since = Date.now();
        return undefined;
      }
      return Date.now() - since >= quietMs && count;
    },
    { what: () => `the requests to stop (${count} so far)`, timeoutMs: maxMs, intervalMs: 100 },
  );
}

/**
 * The first workflow under `workflowId` (itself, its children, theirs...) that has a workflow task or
 * an activity pending, or null when none has: every one of them then waits for a signal or a timer.
 */
async function busyUnder(client: Client, workflowId: string, runId?: string): Promise<string | null> {
  const { raw } = await client.workflow.getHandle(workflowId, runId).describe();
  if (raw.pendingWorkflowTask || (raw.pendingActivities ?? []).length > 0) return workflowId;
  for (const child of raw.pendingChildren ?? []) {
    const busy = await busyUnder(client, child.workflowId!, child.runId || undefined);
    if (busy) return busy;
  }
  return null;
}

/**
 * Waits until a held or paused sweep has drained: no workflow of it (the sweep, its ledger, cells,
 * shards) has a workflow task or an activity pending, so every request it sent is answered and
 * each of its shards' lanes waits for a signal or a timer; returns the count of requests then. A
 * lane starts a task only in a workflow task of its shard, so none starts after this until the
 * hold or the pause is lifted. (requestsSettled's quiet period instead ends too early on a loaded
 * machine, where the next of the window's tasks can take longer than it to reach the server.)
 */
export async function sweepDrained(client: Client, sweepId: string, server: ScriptedLlmServer, maxMs: number): Promise<number> {
  let busy: string | null = null;
  return waitUntil(
    async () => {
      busy = await busyUnder(client, sweepWorkflowId(sweepId));
      const unanswered = server.requests().filter((r) => r.answeredAt === undefined).length;
      if (!busy && unanswered > 0) busy = `${unanswered} requests unanswered`;
      return busy === null && server.requests().length;
    },
    { what: () => `sweep ${sweepId} to drain (${busy ?? 'no workflow'} busy)`, timeoutMs: maxMs, intervalMs: 100 },
  );
}
