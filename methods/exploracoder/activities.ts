/**
 * ExploraCoder's LLM-queue activities: the plan, API recommendation, exploration candidates, debug
 * rounds and final solutions (the plan and the recommendation are also CAPIR's, the plan
 * self-repair's budget). Every model call goes through the LLM cache (infra/llm/llm.ts), so a
 * retried activity or a restarted sweep never pays for an answer twice; each activity stores what
 * it derived (plan, recommendations) under a deterministic key and reads it back instead of
 * recomputing.
 */
import { log } from '@temporalio/activity';
import type { ApiDoc, DatasetLibrary } from '../../domain/apidocs/library.js';
import { stripThinking } from '../../domain/llm/extract.js';
import type { LlmCallSummary } from '../../domain/llm/request.js';
import { chatBody } from '../../domain/methods/chat.js';
import {
  addCost,
  PlanArtifactSchema,
  RecommendArtifactSchema,
  SnippetRunSchema,
  ZERO_COST,
  type ExperienceRef,
  type MethodCost,
  type PlanArtifact,
  type RecommendArtifact,
  type SnippetRun,
} from '../../domain/methods/artifacts.js';
import type { MethodTaskRef } from '../../domain/methods/taskRef.js';
import { cellTaskPrefix } from '../../domain/sweep/keys.js';
import { docsByPath, retrieveDocs } from '../../infra/library.js';
import { laidOut } from '../../infra/llm/llm.js';
import { parkOrSend } from '../../infra/llm/parking.js';
import { putObject } from '../../infra/s3.js';
import {
  chatOnly,
  costOf,
  defineMethodActivities,
  exploring,
  finalSampling,
  greedy,
  methodContext,
  type LlmStepResult,
  type MethodActivityDeps,
} from '../../activities/llm/methodKit.js';
import { parsePlan } from './plan.js';
import { createExploracoderTraceActivities } from './trace.js';
import {
  copiedDemo,
  debugMessages,
  exploreMessages,
  finalMessages,
  globalRerankMessages,
  pickPlannerExamples,
  plannerMessages,
  rerankMessages,
  type Experience,
  type Observation,
} from './prompts.js';
import { parseRerank } from './rerank.js';
import { taskRequirement } from './requirement.js';

export interface PlanStepResult {
  planKey: string;
  /** Subtask texts, each cut to 200 characters: for progress display only. */
  subtasks: string[];
  cost: MethodCost;
}

const PLAN_ATTEMPTS = 3;

export function observationOf(run: SnippetRun): Observation {
  return { ok: run.ok, status: run.status, stdout: run.stdout, ...(run.error ? { error: run.error } : {}) };
}

export function createExploracoderActivities(deps: MethodActivityDeps) {
  const { ask, answerStep, context, readJson, mustRead, planAndRecommendation } = methodContext(deps);
  const { llm, embeddings } = deps;

  /** The CoAE prompt of one subtask (the same for each of its m candidates). */
  async function exploreMessagesOf(input: {
    ref: MethodTaskRef;
    planKey: string;
    recommendKey: string;
    subtask: number;
    experiences: ExperienceRef[];
  }) {
    const { problem, library } = await context(input.ref);
    const { plan, rec } = await planAndRecommendation(input.planKey, input.recommendKey);
    return exploreMessages({
      problem,
      library: library.library,
      subtasks: plan.subtasks,
      index: input.subtask,
      experiences: await experiencesOf(plan, input.experiences),
      apis: keptDocs(library, rec, input.subtask),
      observationChars: input.ref.options.observation_chars,
    });
  }

  async function experiencesOf(plan: PlanArtifact, refs: readonly ExperienceRef[]): Promise<Experience[]> {
    const runs = await Promise.all(refs.map((r) => mustRead(r.runKey, SnippetRunSchema, 'snippet run')));
    return runs.map((run, i) => ({
      index: refs[i]!.subtask,
      subtask: plan.subtasks[refs[i]!.subtask]!,
      code: run.code,
      observation: observationOf(run),
    }));
  }

  function keptDocs(library: DatasetLibrary, rec: RecommendArtifact, subtask: number): ApiDoc[] {
    return docsByPath(library, rec.subtasks[subtask]?.kept ?? []);
  }

  return {
    /**
     * ExploraCoder's planner, in the paper's layout: demos from the library's own usage chosen by
     * BM25 similarity to the task, each its own user/assistant turn, and the task's requirement in
     * the same template. A malformed answer, or one repeating a demo word for word, is asked again
     * (at the exploration temperature, as another sample) up to PLAN_ATTEMPTS times; a plan that
     * still copies a demo is kept and the plan says which; with no usable list the task itself
     * becomes the only subtask, and the plan says so.
     */
    async planTask(input: { ref: MethodTaskRef; withSummary: boolean }): Promise<PlanStepResult> {
      const { ref } = input;
      chatOnly(ref.endpoint);
      const key = `${cellTaskPrefix(ref.sweepId, ref.cellId, ref.taskIndex)}plan${input.withSummary ? '' : '-no-summary'}.json`;
      const done = await readJson(key, PlanArtifactSchema);
      if (done) return { planKey: key, subtasks: done.subtasks.map((s) => s.slice(0, 200)), cost: done.cost };
      const { problem, library } = await context(ref);
      const requirement = taskRequirement(problem, library.library);
      const demos = input.withSummary ? pickPlannerExamples(library.planner_examples, requirement, ref.options.planner_examples) : [];
      const messages = plannerMessages({ requirement, library: library.library, demos, withSummary: input.withSummary });
      let cost = ZERO_COST;
      const raw: string[] = [];
      const keys: string[] = [];
      let parsed: ReturnType<typeof parsePlan> = null;
      let copied: string | null = null;
      for (let attempt = 0; attempt < PLAN_ATTEMPTS; attempt++) {
        const sampling = attempt === 0 ? greedy(ref.sampling) : { ...exploring(ref) };
        const { summary, text } = await ask(ref.endpoint, chatBody(sampling, messages, attempt), attempt);
        cost = addCost(cost, costOf(summary));
        keys.push(summary.key);
        raw.push(text ?? '');
        const answer = text === null ? null : parsePlan(stripThinking(text), ref.options.max_subtasks);
        if (answer === null) continue;
        parsed = answer;
        copied = copiedDemo(answer.subtasks, demos)?.id ?? null;
        if (copied === null) break;
      }
      const firstLine =
        problem.prompt
          .trim()
          .split('\n')
          .find((l) => l.trim() && !/^(from|import)\s/.test(l.trim())) ?? problem.entry_point;
      const plan: PlanArtifact = {
        subtasks: parsed?.subtasks ?? [`Implement ${problem.entry_point} as the task asks: ${firstLine.trim()}`],
        raw,
        llm_keys: keys,
        cut: parsed?.cut ?? 0,
        fallback: parsed === null,
        copied_demo: copied,
        requirement,
        planner_examples: demos.map((e) => e.id),
        cost,
      };
      if (plan.cut > 0)
        log.warn(
          `plan of task ${ref.taskIndex} (cell ${ref.cellId}) has ${plan.subtasks.length + plan.cut} subtasks: the safety cap max_subtasks = ${ref.options.max_subtasks} cut ${plan.cut}`,
        );
      if (plan.copied_demo !== null)
        log.warn(
          `plan of task ${ref.taskIndex} (cell ${ref.cellId}) repeats planner demo ${plan.copied_demo} after ${keys.length} requests`,
        );
      await putObject(deps.bucket, key, JSON.stringify(plan), { contentType: 'application/json' });
      return { planKey: key, subtasks: plan.subtasks.map((s) => s.slice(0, 200)), cost };
    },

    /**
     * API recommendation: per subtask, the retriever's top retrieve_k, then the model keeps the
     * relevant ones (at most rerank_keep); then a global rerank over every subtask's candidates
     * keeps global_k for the final step (option global_rerank).
     */
    async recommendApis(input: {
      ref: MethodTaskRef;
      planKey: string;
      /** false: no global rerank (CAPIR). */ global?: boolean;
    }): Promise<{ recommendKey: string; cost: MethodCost }> {
      const { ref } = input;
      const key = input.planKey.replace(/plan(-no-summary)?\.json$/, 'recommend$1.json');
      const done = await readJson(key, RecommendArtifactSchema);
      if (done) return { recommendKey: key, cost: done.cost };
      const { problem, library } = await context(ref);
      const plan = await mustRead(input.planKey, PlanArtifactSchema, 'plan');
      let cost = ZERO_COST;
      const subtasks: RecommendArtifact['subtasks'] = [];
      // Each subtask's rerank request depends on its retrieval only: known before any is answered.
      const reranks = [];
      for (const subtask of plan.subtasks) {
        const retrieved = await retrieveDocs(library, ref.libraryKey, subtask, ref.options.retrieve_k, ref.options, embeddings);
        const messages = rerankMessages({ problem, subtask, candidates: retrieved, keep: ref.options.rerank_keep });
        reranks.push({ retrieved, body: chatBody(greedy(ref.sampling), messages, 0) });
      }
      // Batch mode parks them all at once (one round, not one a subtask); live, this does nothing.
      await parkOrSend(
        deps.bucket,
        ref.endpoint,
        reranks.filter((r) => r.retrieved.length > 0).map((r) => ({ body: r.body, sampleIndex: 0 })),
      );
      for (const { retrieved, body } of reranks) {
        if (retrieved.length === 0) {
          subtasks.push({ retrieved: [], kept: [], fallback: false });
          continue;
        }
        const { summary, text } = await ask(ref.endpoint, body, 0);
        cost = addCost(cost, costOf(summary));
        const offered = retrieved.map((d) => d.import_path);
        const kept = text === null ? null : parseRerank(text, offered, ref.options.rerank_keep);
        const none = text !== null && /^\s*none\b/i.test(text.trim());
        subtasks.push({
          retrieved: offered,
          kept: kept ?? (none ? [] : offered.slice(0, Math.min(3, ref.options.rerank_keep))),
          fallback: kept === null && !none,
          llm_key: summary.key,
        });
      }
      // The paper's global rerank sees every per-subtask candidate (round-robin over the subtasks'
      // retrieval ranks) and always keeps global_k; `kept-union` (not the paper's) offers only what
      // the per-subtask reranks kept, and skips the call when that is already at most global_k.
      const paper = ref.options.global_rerank === 'all-candidates';
      const offered = paper ? roundRobin(subtasks.map((s) => s.retrieved)) : [...new Set(subtasks.flatMap((s) => s.kept))];
      let global = offered;
      let globalKey: string | undefined;
      if (input.global === false) global = [];
      else if (paper ? offered.length > 0 : offered.length > ref.options.global_k) {
        const messages = globalRerankMessages({
          problem,
          subtasks: plan.subtasks,
          candidates: docsByPath(library, offered),
          keep: ref.options.global_k,
        });
        const { summary, text } = await ask(ref.endpoint, chatBody(greedy(ref.sampling), messages, 0), 0);
        cost = addCost(cost, costOf(summary));
        globalKey = summary.key;
        global = (text === null ? null : parseRerank(text, offered, ref.options.global_k)) ?? offered.slice(0, ref.options.global_k);
      }
      const rec: RecommendArtifact = { subtasks, global, ...(globalKey ? { global_llm_key: globalKey } : {}), cost };
      await putObject(deps.bucket, key, JSON.stringify(rec), { contentType: 'application/json' });
      return { recommendKey: key, cost };
    },

    /** One experimental snippet for a subtask (candidate j of m), given the experience so far. */
    async exploreCandidate(input: {
      ref: MethodTaskRef;
      planKey: string;
      recommendKey: string;
      subtask: number;
      experiences: ExperienceRef[];
      candidate: number;
    }): Promise<LlmStepResult> {
      const { ref } = input;
      const messages = await exploreMessagesOf(input);
      return answerStep(ref.endpoint, exploring(ref), messages, input.candidate);
    },

    /**
     * CoAE for one subtask as the paper sends it: the m candidates of one prompt, laid over requests
     * of the model's samples_per_request choices (one request with n = m when the config says so
     * and the endpoint honours `n`; one that answers fewer choices is asked again for the rest by
     * callLlm, every request counted; without the config, m requests). Candidate j's answer, in order.
     */
    async exploreCandidates(input: {
      ref: MethodTaskRef;
      planKey: string;
      recommendKey: string;
      subtask: number;
      experiences: ExperienceRef[];
      candidates: number;
    }): Promise<LlmStepResult[]> {
      const { ref } = input;
      const messages = await exploreMessagesOf(input);
      const candidates = Array.from({ length: input.candidates }, (_, j) => j);
      const calls = laidOut(ref.endpoint, candidates, (first, choices) => chatBody(exploring(ref), messages, first, choices));
      const summaries = await llm.callLlm({ endpoint: ref.endpoint, calls });
      return summaries.map((s) => ({ llmKey: s.key, ok: s.status === 'ok', cost: costOf(s) }));
    },

    /** ExploraCoder*: a fix for a failed candidate, from its code, its error and the subtask's APIs. */
    async debugCandidate(input: {
      ref: MethodTaskRef;
      planKey: string;
      recommendKey: string;
      subtask: number;
      runKey: string;
      candidate: number;
    }): Promise<LlmStepResult> {
      const { ref } = input;
      const { problem, library } = await context(ref);
      const { plan, rec } = await planAndRecommendation(input.planKey, input.recommendKey);
      const run = await mustRead(input.runKey, SnippetRunSchema, 'snippet run');
      const messages = debugMessages({
        problem,
        library: library.library,
        subtask: plan.subtasks[input.subtask]!,
        code: run.code,
        observation: observationOf(run),
        apis: keptDocs(library, rec, input.subtask),
        observationChars: ref.options.observation_chars,
      });
      // Configs from before debug_temperature debugged at the exploration temperature.
      const sampling = {
        ...exploring(ref),
        ...(ref.options.debug_temperature !== undefined ? { temperature: ref.options.debug_temperature } : {}),
      };
      return answerStep(ref.endpoint, sampling, messages, input.candidate);
    },

    /**
     * The final solutions (one call per sample) from the task, the exploration trace and the docs:
     * the APIs the kept snippets used plus the global ones. Without exploration (`experiences`
     * null) the plan and every recommended API are given instead. The cell's prompt template (the
     * only ExploraCoder step it shapes) replaces the system message and the closing instruction.
     */
    async generateFinal(input: {
      ref: MethodTaskRef;
      planKey: string;
      recommendKey: string;
      experiences: ExperienceRef[] | null;
      sampleIndices: number[];
    }): Promise<LlmCallSummary[]> {
      const { ref } = input;
      chatOnly(ref.endpoint);
      const { problem, library } = await context(ref);
      const { plan, rec } = await planAndRecommendation(input.planKey, input.recommendKey);
      let paths: string[];
      let experiences: Experience[] | null = null;
      if (input.experiences === null) {
        paths = [...new Set([...rec.subtasks.flatMap((s) => s.kept), ...rec.global])];
      } else {
        experiences = await experiencesOf(plan, input.experiences);
        const used = input.experiences.flatMap((e, i) =>
          (rec.subtasks[e.subtask]?.kept ?? []).filter((p) => usesApi(experiences![i]!.code, p)),
        );
        paths = [...new Set([...used, ...rec.global])];
      }
      const messages = finalMessages({
        problem,
        library: library.library,
        subtasks: plan.subtasks,
        experiences,
        docs: docsByPath(library, paths),
        observationChars: ref.options.observation_chars,
        ...(ref.sampling.prompt ? { template: ref.sampling.prompt } : {}),
      });
      const calls = laidOut(ref.endpoint, input.sampleIndices, (first, choices) =>
        chatBody(finalSampling(ref.sampling), messages, first, choices),
      );
      return llm.callLlm({ endpoint: ref.endpoint, calls });
    },
  };
}

/** Each list's first item, then each one's second, and so on; each item once. */
function roundRobin(lists: readonly (readonly string[])[]): string[] {
  const out = new Set<string>();
  for (let rank = 0; lists.some((l) => rank < l.length); rank++) for (const l of lists) if (rank < l.length) out.add(l[rank]!);
  return [...out];
}

/** The snippet calls the API: its last name appears as a call or attribute in the code. */
function usesApi(code: string, importPath: string): boolean {
  const name = importPath.split('.').pop()!;
  return new RegExp(`(?<![\\w])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w])`).test(code);
}

export type ExploracoderActivities = ReturnType<typeof createExploracoderActivities>;

export const exploracoderActivities = defineMethodActivities({
  kind: 'exploracoder',
  llm: createExploracoderActivities,
  storage: createExploracoderTraceActivities,
});
