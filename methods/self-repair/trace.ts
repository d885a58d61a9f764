/** self-repair's trace writer (storage queue): the plan that set the budget, and each sample's rounds. */
import type { MethodCost, RepairRound } from '../../domain/methods/artifacts.js';
import { createTraceParts } from '../../activities/storage/traces.js';
import type { PromptTemplate } from '../../domain/methods/promptTemplate.js';
import type { TraceTaskRef } from '../../domain/methods/taskRef.js';
import type { Bucket } from '../../infra/s3.js';

export function createSelfRepairTraceActivities(bucket: Bucket) {
  const { stages, plannedTask, planText, repairsOf, store } = createTraceParts(bucket);
  return {
    async writeRepairTrace(input: {
      ref: TraceTaskRef;
      planKey: string;
      budget: number;
      samples: RepairRound[][];
      cost: MethodCost;
      promptTemplate?: PromptTemplate;
    }): Promise<string> {
      const { problem, plan } = await plannedTask(input.ref, input.planKey);
      const repairs = await repairsOf(input.samples, problem.entry_point, 'llm_error');
      return store(
        input.ref,
        {
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
          finals: input.samples.map((rounds, s) => ({
            sample_index: s,
            llm_key: rounds[rounds.length - 1]!.llmKey,
            code: repairs[s]!.rounds[rounds.length - 1]!.code,
          })),
          cost: input.cost,
        },
        input.promptTemplate,
      );
    },
  };
}
