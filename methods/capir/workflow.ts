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
  const llm = llmActivities<ExploracoderActivities & CapirActivities>(llmTaskQueue(input.queues.llmBase, input.modelId));
  const sandbox = sandboxActivities(input.queues.sandbox, input.timeoutS);
  const storage = storageActivitiesOf<ReturnType<typeof createCapirTraceActivities>>(input.queues.storage);
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
      const rounds: RepairRound[] = [];
      let current = { llmKey: first.key, ok: first.status === 'ok', cost: costOfCalls([first]) };
      for (let round = 0; variant.repair; round++) {
        const run = current.ok
          ? await sandbox.runVisible({
              datasetKey: ref.datasetKey,
              libraryKey: ref.libraryKey,
              taskIndex: ref.taskIndex,
              llmKey: current.llmKey,
              timeoutS: input.timeoutS,
              label: `${ref.cellId}/${ref.taskIndex}/${s}/r${round}`,
              check: ref.options.repair_check ?? 'runtime-errors',
            })
          : null;
        if (run?.runKey) cost = addCost(cost, { sandbox_runs: 1 });
        rounds.push({ llmKey: current.llmKey, ...(run?.runKey ? { runKey: run.runKey } : {}), ok: run?.ok ?? false, cost: current.cost });
        if (run?.ok || !run?.runKey || round >= budget) return rounds;
        const feedback = await llm.repairFeedback({
          ref,
          sampleIndex: s,
          firstKey: first.key,
          previousKey: current.llmKey,
          runKey: run.runKey,
          round: round + 1,
        });
        cost = addCost(cost, feedback.cost);
        feedbackKeys.push(feedback.llmKey);
        if (!feedback.ok) return rounds;
        const fixed = await llm.repairFromFeedback({ ref, sampleIndex: s, feedbackKey: feedback.llmKey });
        current = { llmKey: fixed.llmKey, ok: fixed.ok, cost: fixed.cost };
      }
      return [{ llmKey: current.llmKey, ok: current.ok, cost: current.cost }];
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
  return { finalKeys, cost, finalCost, traceKey, wallMs: Date.now() - started };
}
