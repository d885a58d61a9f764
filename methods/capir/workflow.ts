/**
 * The decomposed-retrieval baselines on one task (CAPIR, CAPIR + Self-Repair, EpiGen): the plan
 * (ExploraCoder's cached planner call), per-subtask retrieval and rerank with no global rerank, one
 * generation per sample; with repair, each sample's answer runs on the example inputs and, while it
 * raises, the model writes feedback and then code from it, at most as many times as the plan has
 * subtasks (the paper's budget).
 */
import { setCurrentDetails } from '@temporalio/workflow';
import { addCost, costOfCalls, ZERO_COST, type MethodTaskOutcome, type RepairRound } from '../../domain/methods/artifacts.js';
import { llmTaskQueue } from '../../domain/sweep/keys.js';
import { llmActivities, sandboxActivities, storageActivitiesOf } from '../../workflows/activityOptions.js';
import { defineMethodWorkflow, runTaskChain, type MethodTaskInput } from '../../workflows/methodKit.js';
import { repairRounds } from '../../workflows/repairRounds.js';
import { chainRounds } from '../../workflows/roundParking.js';
import { traceTarget } from '../../workflows/traceTarget.js';
import type { ExploracoderActivities } from '../exploracoder/activities.js';
import type { CapirActivities } from './activities.js';
import { capirMethod, type CapirVariant } from './definition.js';
import type { createCapirTraceActivities } from './trace.js';

export interface CapirTaskInput extends MethodTaskInput {
  /** The capir kind's switches (capir, capir-self-repair, epigen). */
  capir: CapirVariant;
}

/** The shard's step: each task's chain is a child workflow of its own. */
export const capirWorkflow = defineMethodWorkflow(capirMethod, ({ shard, spec, taskIndex }) =>
  runTaskChain(capirTaskWorkflow, shard, taskIndex, { capir: spec.variant }),
);

export async function capirTaskWorkflow(input: CapirTaskInput): Promise<MethodTaskOutcome> {
  const started = Date.now();
  const { ref } = input;
  const variant = input.capir;
  // The plan and the per-subtask retrieval are ExploraCoder's (cached) steps.
  // Batch mode (input.batchRounds): the LLM steps park their requests for the cell's round collector.
  const batchRounds = chainRounds(input.batchRounds);
  const llm = batchRounds.llm(
    llmActivities<ExploracoderActivities & CapirActivities>(
      llmTaskQueue(input.queues.llmBase, input.modelId),
      input.queues.llmHeartbeatTimeoutS,
    ),
  );
  const sandbox = batchRounds.tracked(sandboxActivities(input.queues.sandbox, input.timeoutS));
  const storage = batchRounds.tracked(storageActivitiesOf<ReturnType<typeof createCapirTraceActivities>>(input.queues.storage));
  const say = (what: string) => setCurrentDetails(`**${input.method}** task \`${input.taskId}\` (cell \`${ref.cellId}\`): ${what}`);

  say('planning');
  const plan = await llm.planTask({ ref, withSummary: true });
  say('retrieving per subtask');
  const rec = await llm.recommendApis({ ref, planKey: plan.planKey, global: false });
  let cost = addCost(plan.cost, rec.cost);
  say('generating');
  const allSamples = Array.from({ length: input.nSamples }, (_, s) => s);
  const firsts = await llm.generateCapir({
    ref,
    planKey: plan.planKey,
    recommendKey: rec.recommendKey,
    withPlan: variant.planInPrompt,
    sampleIndices: allSamples,
  });

  const budget = plan.subtasks.length;
  const feedbackKeys: string[] = [];
  const samples = await Promise.all(
    allSamples.map(async (s): Promise<RepairRound[]> => {
      const first = firsts[s]!;
      if (!variant.repair) return [{ llmKey: first.key, ok: first.status === 'ok', cost: costOfCalls([first]) }];
      return repairRounds({
        sandbox,
        ref,
        sampleIndex: s,
        first,
        budget,
        timeoutS: input.timeoutS,
        check: ref.options.repair_check ?? 'runtime-errors',
        onRun: () => (cost = addCost(cost, { sandbox_runs: 1 })),
        // CAPIR's repair is two calls: feedback on the failed run, then code from that feedback.
        repair: async ({ round, previousKey, runKey }) => {
          const feedback = await llm.repairFeedback({ ref, sampleIndex: s, firstKey: first.key, previousKey, runKey, round });
          cost = addCost(cost, feedback.cost);
          feedbackKeys.push(feedback.llmKey);
          if (!feedback.ok) return null;
          return llm.repairFromFeedback({ ref, sampleIndex: s, feedbackKey: feedback.llmKey });
        },
      });
    }),
  );
  const finalKeys = samples.map((rounds) => rounds[rounds.length - 1]!.llmKey);
  // Each sample's last answer is its final generation, counted in its sample record; earlier
  // answers (and every feedback) are the method's overhead.
  for (const rounds of samples) for (const r of rounds.slice(0, -1)) cost = addCost(cost, r.cost);
  say('writing the trace');
  const traceKey = await storage.writeCapirTrace({
    ...traceTarget(ref),
    method: input.method,
    planKey: plan.planKey,
    recommendKey: rec.recommendKey,
    budget: variant.repair ? budget : 0,
    samples,
    feedbackKeys,
    cost,
  });
  const finalCost = samples.reduce((c, rounds) => addCost(c, rounds[rounds.length - 1]!.cost), ZERO_COST);
  batchRounds.end();
  return { finalKeys, cost, finalCost, traceKey, wallMs: Date.now() - started };
}
