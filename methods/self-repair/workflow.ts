/**
 * Self-repair on one task: every sample generates a whole solution (rag's prompt, so the answer is
 * shared with a rag cell through the LLM cache), runs it on the visible examples only (checking for
 * runtime errors, the paper's, or with `repair_check: outputs` the expected values too; runs
 * started before the option checked the values), and while it fails asks the model for a fix, at most `budget` times: the number of subtasks ExploraCoder's
 * planner makes for the task (the paper's equal-budget comparison; the plan is the same cached call).
 */
import { patched, setCurrentDetails } from '@temporalio/workflow';
import { addCost, ZERO_COST, type MethodTaskOutcome, type RepairRound } from '../../domain/methods/artifacts.js';
import { llmTaskQueue } from '../../domain/sweep/keys.js';
import { llmActivities, sandboxActivities, storageActivitiesOf } from '../../workflows/activityOptions.js';
import { defineMethodWorkflow, runTaskChain, type MethodTaskInput } from '../../workflows/methodKit.js';
import { repairRounds } from '../../workflows/repairRounds.js';
import { chainRounds } from '../../workflows/roundParking.js';
import { traceTarget } from '../../workflows/traceTarget.js';
import type { ExploracoderActivities } from '../exploracoder/activities.js';
import type { RagActivities } from '../rag/activities.js';
import type { SelfRepairActivities } from './activities.js';
import { selfRepairMethod } from './definition.js';
import type { createSelfRepairTraceActivities } from './trace.js';

/** The shard's step: each task's chain is a child workflow of its own. */
export const selfRepairWorkflow = defineMethodWorkflow(selfRepairMethod, ({ shard, taskIndex }) =>
  runTaskChain(selfRepairTaskWorkflow, shard, taskIndex, {}),
);

export async function selfRepairTaskWorkflow(input: MethodTaskInput): Promise<MethodTaskOutcome> {
  const started = Date.now();
  const { ref } = input;
  // The first answers are rag's, the budget ExploraCoder's plan (both cached, shared with those cells).
  // Batch mode (input.batchRounds): the LLM steps park their requests for the cell's round collector.
  const batchRounds = chainRounds(input.batchRounds);
  const llm = batchRounds.llm(
    llmActivities<RagActivities & ExploracoderActivities & SelfRepairActivities>(
      llmTaskQueue(input.queues.llmBase, input.modelId),
      input.queues.llmHeartbeatTimeoutS,
    ),
  );
  const sandbox = batchRounds.tracked(sandboxActivities(input.queues.sandbox, input.timeoutS));
  const storage = batchRounds.tracked(storageActivitiesOf<ReturnType<typeof createSelfRepairTraceActivities>>(input.queues.storage));

  setCurrentDetails(`**self-repair** task \`${input.taskId}\`: planning the budget`);
  const allSamples = Array.from({ length: input.nSamples }, (_, s) => s);
  // In batch mode the plan and the first answers (independent of each other) are one round; the
  // live path asks them one after the other, as it always did.
  const together = input.batchRounds ? llm.generateRag({ ref, sampleIndices: allSamples }) : null;
  // Awaited below; a plan that fails for good fails the chain first.
  void together?.catch(() => undefined);
  const plan = await llm.planTask({ ref, withSummary: true });
  const budget = plan.subtasks.length;
  let cost = plan.cost;
  setCurrentDetails(`**self-repair** task \`${input.taskId}\`: ${input.nSamples} samples, up to ${budget} repairs each`);

  // All first answers in one step: with samples_per_request several samples share a request, which
  // only a step asking for the task's samples together can lay out (and send once).
  const firsts = together
    ? await together
    : patched('self-repair-first-answers-together')
      ? await llm.generateRag({ ref, sampleIndices: allSamples })
      : null;
  const samples = await Promise.all(
    allSamples.map(async (s): Promise<RepairRound[]> => {
      const [first] = firsts ? [firsts[s]] : await llm.generateRag({ ref, sampleIndices: [s] });
      return repairRounds({
        sandbox,
        ref,
        sampleIndex: s,
        first: first!,
        budget,
        timeoutS: input.timeoutS,
        check: ref.options.repair_check ?? 'outputs',
        onRun: () => (cost = addCost(cost, { sandbox_runs: 1 })),
        repair: ({ round, previousKey, runKey }) =>
          llm.repairSample({ ref, sampleIndex: s, firstKey: first!.key, previousKey, runKey, round, budget }),
      });
    }),
  );

  const finalKeys = samples.map((rounds) => rounds[rounds.length - 1]!.llmKey);
  // The last answer of each sample is its final generation, counted in its sample record; the
  // earlier ones are the method's overhead.
  for (const rounds of samples) for (const r of rounds.slice(0, -1)) cost = addCost(cost, r.cost);
  const traceKey = await storage.writeRepairTrace({
    ...traceTarget(ref),
    planKey: plan.planKey,
    budget,
    samples,
    cost,
  });
  const finalCost = samples.reduce((c, rounds) => addCost(c, rounds[rounds.length - 1]!.cost), ZERO_COST);
  batchRounds.end();
  return { finalKeys, cost, finalCost, traceKey, wallMs: Date.now() - started };
}
