/**
 * What every method's trace writer is built on (methods/<kind>/trace.ts): reading the step
 * artefacts and LLM records a trace is assembled from, the stage costs, the planner's and the
 * repair rounds' parts, and storing the trace as one JSON object beside the cell's results.
 */
import { ExplorationTraceSchema, type ExplorationTrace, type Stage, type StageCost } from '../../domain/report/trace.js';
import { extractCode } from '../../domain/llm/extract.js';
import { readLlmRecordAt } from '../../infra/llm/cache.js';
import {
  PlanArtifactSchema,
  RecommendArtifactSchema,
  SnippetRunSchema,
  type PlanArtifact,
  type RecommendArtifact,
  type RepairRound,
} from '../../domain/methods/artifacts.js';
import { cellTraceKey } from '../../domain/sweep/keys.js';
import type { PromptTemplate } from '../../domain/methods/promptTemplate.js';
import type { TraceTaskRef } from '../../domain/methods/taskRef.js';
import { loadProblems } from '../../infra/problems.js';
import { getText, putObject, type Bucket } from '../../infra/s3.js';

export function createTraceParts(bucket: Bucket) {
  async function json(key: string): Promise<unknown> {
    const text = await getText(bucket, key);
    if (text === null) throw new Error(`${key} is missing`);
    return JSON.parse(text);
  }
  const run = async (key: string) => SnippetRunSchema.parse(await json(key));
  const answer = async (key: string, entryPoint?: string) => {
    const r = await readLlmRecordAt(bucket, key);
    if (r === null) throw new Error(`${key} is missing`);
    return r.status === 'ok' ? extractCode({ api: 'chat', raw: r.text, ...(entryPoint ? { entryPoint } : {}) }).code : '';
  };
  /** Requests, answers and tokens of the LLM records at `keys` (a request of n choices: 1 request, n answers). */
  async function stageCost(keys: readonly string[]): Promise<StageCost> {
    const out: StageCost = { requests: 0, answers: 0, prompt_tokens: 0, completion_tokens: 0 };
    for (const key of keys) {
      const r = await readLlmRecordAt(bucket, key);
      if (r === null) throw new Error(`${key} is missing`);
      out.requests += r.calls;
      out.answers += 1;
      out.prompt_tokens += r.promptTokens;
      out.completion_tokens += r.completionTokens;
    }
    return out;
  }
  async function stages(parts: Partial<Record<Stage, readonly string[]>>): Promise<Partial<Record<Stage, StageCost>>> {
    const out: Partial<Record<Stage, StageCost>> = {};
    for (const [stage, keys] of Object.entries(parts) as Array<[Stage, readonly string[]]>) out[stage] = await stageCost(keys);
    return out;
  }
  /** The task a trace is of, as its dataset stores it, and the plan its method made. */
  async function plannedTask(ref: TraceTaskRef, planKey: string) {
    const problem = (await loadProblems(bucket, ref.datasetKey))[ref.taskIndex]!;
    return { problem, plan: PlanArtifactSchema.parse(await json(planKey)) };
  }
  const recommendation = async (key: string) => RecommendArtifactSchema.parse(await json(key));
  /** The final solutions as a trace shows them: each sample's LLM record and the code taken from its answer. */
  async function finalsOf(keys: readonly string[], entryPoint: string | undefined): Promise<ExplorationTrace['finals']> {
    const finals = [];
    for (const [s, key] of keys.entries()) finals.push({ sample_index: s, llm_key: key, code: await answer(key, entryPoint) });
    return finals;
  }
  /** The plan as a trace shows it: numbered subtasks. */
  const planText = (plan: PlanArtifact) => plan.subtasks.map((s, i) => `${i + 1}. ${s}`).join('\n');
  /** What a trace says of the planner's step (ExploraCoder's and the CAPIR family's). */
  const plannerFields = (plan: PlanArtifact) => ({
    plan: planText(plan),
    plan_fallback: plan.fallback,
    plan_copied_demo: plan.copied_demo,
    plan_cut: plan.cut,
    ...(plan.requirement !== undefined ? { requirement: plan.requirement } : {}),
    planner_examples: plan.planner_examples,
  });
  /** Each sample's rounds as a trace shows them: code, outcome and key; a round never run gets `unrun`. */
  async function repairsOf(
    samples: RepairRound[][],
    entryPoint: string | undefined,
    unrun: 'llm_error' | 'not_run',
  ): Promise<NonNullable<ExplorationTrace['repairs']>> {
    const repairs: NonNullable<ExplorationTrace['repairs']> = [];
    for (const [s, rounds] of samples.entries()) {
      const out = [];
      for (const r of rounds) {
        const ran = r.runKey ? await run(r.runKey) : null;
        out.push({
          code: ran?.code ?? (await answer(r.llmKey, entryPoint)),
          ok: r.ok,
          status: ran?.status ?? unrun,
          ...(ran?.error ? { error: ran.error } : {}),
          llm_key: r.llmKey,
        });
      }
      repairs.push({ sample_index: s, rounds: out });
    }
    return repairs;
  }
  /** The per-subtask reranks' LLM records (a subtask with nothing to rerank has none). */
  const rerankKeys = (rec: RecommendArtifact) => rec.subtasks.flatMap((s) => (s.llm_key ? [s.llm_key] : []));
  /** Stores the trace, with the cell's prompt template when it had one (absent: the default prompts). */
  async function store(ref: TraceTaskRef, trace: ExplorationTrace, promptTemplate: PromptTemplate | undefined): Promise<string> {
    const key = cellTraceKey(ref.sweepId, ref.cellId, ref.taskIndex);
    const stored = promptTemplate ? { ...trace, prompt_template: promptTemplate } : trace;
    await putObject(bucket, key, JSON.stringify(ExplorationTraceSchema.parse(stored), null, 1), { contentType: 'application/json' });
    return key;
  }

  return { json, run, answer, stages, plannedTask, recommendation, finalsOf, planText, plannerFields, repairsOf, rerankKeys, store };
}

/** The storage queue's trace reader (the writers are each method's own, methods/<kind>/trace.ts). */
export function createTraceActivities(bucket: Bucket) {
  return {
    /** A stored trace, for scripts and reports. */
    async readTrace(key: string): Promise<ExplorationTrace | null> {
      const text = await getText(bucket, key);
      return text === null ? null : ExplorationTraceSchema.parse(JSON.parse(text));
    },
  };
}
