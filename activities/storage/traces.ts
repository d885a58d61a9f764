/**
 * Storage-queue activities that assemble a task's whole trace (plan, recommended APIs, every
 * candidate with its observation, selection, debug rounds, final code; or self-repair's rounds)
 * from the step artifacts, and store it as one JSON object beside the cell's results.
 */
import { ExplorationTraceSchema, type ExplorationTrace, type Stage, type StageCost } from '../../domain/report/trace.js';
import { extractCode } from '../../domain/llm/extract.js';
import { readLlmRecordAt } from '../../infra/llm/cache.js';
import { PlanArtifactSchema, RecommendArtifactSchema, SnippetRunSchema, type MethodCost, type PlanArtifact, type RecommendArtifact, type RepairRound, type SubtaskOutcome } from '../../domain/methods/artifacts.js';
import { cellTraceKey } from '../../domain/sweep/keys.js';
import type { PromptTemplate } from '../../domain/methods/promptTemplate.js';
import { loadProblems } from '../../infra/problems.js';
import { getText, putObject, type Bucket } from '../../infra/s3.js';

export interface TraceTaskRef {
  sweepId: string;
  cellId: string;
  datasetKey: string;
  taskIndex: number;
}

export function createTraceActivities(bucket: Bucket) {
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
  async function repairsOf(samples: RepairRound[][], entryPoint: string | undefined, unrun: 'llm_error' | 'not_run'): Promise<NonNullable<ExplorationTrace['repairs']>> {
    const repairs: NonNullable<ExplorationTrace['repairs']> = [];
    for (const [s, rounds] of samples.entries()) {
      const out = [];
      for (const r of rounds) {
        const ran = r.runKey ? await run(r.runKey) : null;
        out.push({ code: ran?.code ?? (await answer(r.llmKey, entryPoint)), ok: r.ok, status: ran?.status ?? unrun, ...(ran?.error ? { error: ran.error } : {}), llm_key: r.llmKey });
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

  return {
    async writeExplorationTrace(input: {
      ref: TraceTaskRef;
      method: string;
      planKey: string;
      recommendKey: string;
      subtasks: SubtaskOutcome[];
      finalKeys: string[];
      cost: MethodCost;
      /** The cell's prompt template (it shaped the final solution's requests); absent: none. */
      promptTemplate?: PromptTemplate;
    }): Promise<string> {
      const problem = (await loadProblems(bucket, input.ref.datasetKey))[input.ref.taskIndex]!;
      const plan = PlanArtifactSchema.parse(await json(input.planKey));
      const rec = RecommendArtifactSchema.parse(await json(input.recommendKey));
      const subtasks: ExplorationTrace['subtasks'] = [];
      for (let i = 0; i < plan.subtasks.length; i++) {
        const outcome = input.subtasks.find((s) => s.index === i);
        const attempts = [];
        for (const [j, c] of (outcome?.candidates ?? []).entries()) {
          const r = c.runKey ? await run(c.runKey) : null;
          attempts.push({
            code: r?.code ?? (await answer(c.llmKey)),
            status: (r ? (r.status === 'rejected' ? 'error' : r.status) : 'llm_error') as 'passed',
            ...(r ? { stdout: r.stdout, stderr: r.stderr, duration_ms: r.duration_ms } : {}),
            ...(r?.error ? { error: r.error } : {}),
            selected: outcome!.selected === j,
            round: c.round,
            candidate: c.candidate,
            llm_key: c.llmKey,
            ...(c.runKey ? { run_key: c.runKey } : {}),
          });
        }
        const selected = outcome && outcome.selected >= 0 ? attempts[outcome.selected] : undefined;
        subtasks.push({
          index: i,
          description: plan.subtasks[i]!,
          apis: rec.subtasks[i]?.kept ?? [],
          retrieved: rec.subtasks[i]?.retrieved ?? [],
          rerank_fallback: rec.subtasks[i]?.fallback ?? false,
          attempts,
          outcome: !outcome ? 'skipped' : attempts.some((a) => a.selected && a.status === 'passed') ? 'solved' : 'unsolved',
          ...(selected ? { experience: selected.code } : {}),
          debug_rounds: outcome?.debugRounds ?? 0,
          debug_requests: (outcome?.candidates ?? []).filter((c) => c.round > 0).length,
          explored_ok: attempts.some((a) => (a.round ?? 0) === 0 && a.status === 'passed'),
          ok_after_debug: attempts.some((a) => a.status === 'passed'),
        });
      }
      const finals = [];
      for (const [s, key] of input.finalKeys.entries()) finals.push({ sample_index: s, llm_key: key, code: await answer(key, problem.entry_point) });
      return store(input.ref, {
        method: input.method,
        task_id: problem.task_id,
        task_index: input.ref.taskIndex,
        ...plannerFields(plan),
        stages: await stages({
          plan: plan.llm_keys,
          rerank: rerankKeys(rec),
          global_rerank: rec.global_llm_key ? [rec.global_llm_key] : [],
          explore: input.subtasks.flatMap((s) => s.candidates.filter((c) => c.round === 0).map((c) => c.llmKey)),
          debug: input.subtasks.flatMap((s) => s.candidates.filter((c) => c.round > 0).map((c) => c.llmKey)),
          final: input.finalKeys,
        }),
        subtasks,
        global_apis: rec.global,
        finals,
        cost: input.cost,
      }, input.promptTemplate);
    },

    async writeRepairTrace(input: { ref: TraceTaskRef; planKey: string; budget: number; samples: RepairRound[][]; cost: MethodCost; promptTemplate?: PromptTemplate }): Promise<string> {
      const problem = (await loadProblems(bucket, input.ref.datasetKey))[input.ref.taskIndex]!;
      const plan = PlanArtifactSchema.parse(await json(input.planKey));
      const repairs = await repairsOf(input.samples, problem.entry_point, 'llm_error');
      return store(input.ref, {
        method: 'self-repair',
        task_id: problem.task_id,
        task_index: input.ref.taskIndex,
        plan: planText(plan),
        stages: await stages({
          plan: plan.llm_keys,
          final: input.samples.map((rounds) => rounds[0]!.llmKey),
          repair: input.samples.flatMap((rounds) => rounds.slice(1).map((r) => r.llmKey)),
        }),
        subtasks: [],
        repairs,
        repair_budget: input.budget,
        finals: input.samples.map((rounds, s) => ({ sample_index: s, llm_key: rounds[rounds.length - 1]!.llmKey, code: repairs[s]!.rounds[rounds.length - 1]!.code })),
        cost: input.cost,
      }, input.promptTemplate);
    },

    /** CAPIR / EpiGen / CAPIR + Self-Repair: plan, per-subtask retrieval, each sample's rounds, stage costs. */
    async writeCapirTrace(input: {
      ref: TraceTaskRef;
      method: string;
      planKey: string;
      recommendKey: string;
      budget: number;
      samples: RepairRound[][];
      feedbackKeys: string[];
      cost: MethodCost;
      /** The cell's prompt template (it shaped the final solution's requests); absent: none. */
      promptTemplate?: PromptTemplate;
    }): Promise<string> {
      const problem = (await loadProblems(bucket, input.ref.datasetKey))[input.ref.taskIndex]!;
      const plan = PlanArtifactSchema.parse(await json(input.planKey));
      const rec = RecommendArtifactSchema.parse(await json(input.recommendKey));
      const repairs = await repairsOf(input.samples, problem.entry_point, input.budget ? 'llm_error' : 'not_run');
      const finalKeys = input.samples.map((rounds) => rounds[rounds.length - 1]!.llmKey);
      return store(input.ref, {
        method: input.method,
        task_id: problem.task_id,
        task_index: input.ref.taskIndex,
        ...plannerFields(plan),
        stages: await stages({
          plan: plan.llm_keys,
          rerank: rerankKeys(rec),
          // The first answers and the repairs' code are generations; the last of each sample is its final one.
          final: input.samples.map((rounds) => rounds[0]!.llmKey),
          ...(input.budget ? { feedback: input.feedbackKeys, repair: input.samples.flatMap((rounds) => rounds.slice(1).map((r) => r.llmKey)) } : {}),
        }),
        subtasks: plan.subtasks.map((description, i) => ({
          index: i,
          description,
          apis: rec.subtasks[i]?.kept ?? [],
          retrieved: rec.subtasks[i]?.retrieved ?? [],
          rerank_fallback: rec.subtasks[i]?.fallback ?? false,
          attempts: [],
          outcome: 'skipped' as const,
        })),
        ...(input.budget ? { repairs, repair_budget: input.budget } : {}),
        finals: await Promise.all(finalKeys.map(async (key, s) => ({ sample_index: s, llm_key: key, code: await answer(key, problem.entry_point) }))),
        cost: input.cost,
      }, input.promptTemplate);
    },

    /** A stored trace, for scripts and reports. */
    async readTrace(key: string): Promise<ExplorationTrace | null> {
      const text = await getText(bucket, key);
      return text === null ? null : ExplorationTraceSchema.parse(JSON.parse(text));
    },
  };
}
