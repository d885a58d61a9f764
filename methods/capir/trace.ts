/** CAPIR / EpiGen / CAPIR + Self-Repair's trace writer (storage queue). */
import type { MethodCost, RepairRound } from '../../domain/methods/artifacts.js';
import { createTraceParts } from '../../activities/storage/traces.js';
import type { PromptTemplate } from '../../domain/methods/promptTemplate.js';
import type { TraceTaskRef } from '../../domain/methods/taskRef.js';
import type { Bucket } from '../../infra/s3.js';

export function createCapirTraceActivities(bucket: Bucket) {
  const { stages, plannedTask, recommendation, finalsOf, plannerFields, repairsOf, rerankKeys, store } = createTraceParts(bucket);
  return {
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
      const { problem, plan } = await plannedTask(input.ref, input.planKey);
      const rec = await recommendation(input.recommendKey);
      const repairs = await repairsOf(input.samples, problem.entry_point, input.budget ? 'llm_error' : 'not_run');
      const finalKeys = input.samples.map((rounds) => rounds[rounds.length - 1]!.llmKey);
      return store(
        input.ref,
        {
          method: input.method,
          task_id: problem.task_id,
          task_index: input.ref.taskIndex,
          ...plannerFields(plan),
          stages: await stages({
            plan: plan.llm_keys,
            rerank: rerankKeys(rec),
            // The first answers and the repairs' code are generations; the last of each sample is its final one.
            final: input.samples.map((rounds) => rounds[0]!.llmKey),
            ...(input.budget
              ? { feedback: input.feedbackKeys, repair: input.samples.flatMap((rounds) => rounds.slice(1).map((r) => r.llmKey)) }
              : {}),
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
          finals: await finalsOf(finalKeys, problem.entry_point),
          cost: input.cost,
        },
        input.promptTemplate,
      );
    },
  };
}
