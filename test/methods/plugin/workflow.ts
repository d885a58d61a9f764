/** second-look's workflow face: its shard step starts one child workflow per task. */
import { addCost, ZERO_COST, type MethodTaskOutcome } from '../../../domain/methods/artifacts.js';
import { llmTaskQueue } from '../../../domain/sweep/keys.js';
import { llmActivities, storageActivitiesOf } from '../../../workflows/activityOptions.js';
import { defineMethodWorkflow, runTaskChain, type MethodTaskInput } from '../../../workflows/methodKit.js';
import { traceTarget } from '../../../workflows/traceTarget.js';
import type { SecondLookActivities } from './activities.js';
import { secondLookMethod } from './definition.js';
import type { createSecondLookTraceActivities } from './trace.js';

export interface SecondLookTaskInput extends MethodTaskInput {
  lookAgain: boolean;
}

export const secondLookWorkflow = defineMethodWorkflow(secondLookMethod, ({ shard, spec, taskIndex }) =>
  runTaskChain(secondLookTaskWorkflow, shard, taskIndex, { lookAgain: spec.variant.lookAgain }),
);

export async function secondLookTaskWorkflow(input: SecondLookTaskInput): Promise<MethodTaskOutcome> {
  const started = Date.now();
  const { ref } = input;
  const llm = llmActivities<SecondLookActivities>(llmTaskQueue(input.queues.llmBase, input.modelId));
  const storage = storageActivitiesOf<ReturnType<typeof createSecondLookTraceActivities>>(input.queues.storage);
  const samples = Array.from({ length: input.nSamples }, (_, s) => s);
  const firsts = await Promise.all(samples.map((s) => llm.secondLookAnswer({ ref, sampleIndex: s })));
  const finals = input.lookAgain
    ? await Promise.all(firsts.map((f, s) => llm.secondLookAnswer({ ref, sampleIndex: s, firstKey: f.llmKey })))
    : firsts;
  // The final answers are counted in their sample records; the first looks are the method's overhead.
  const cost = input.lookAgain ? firsts.reduce((c, f) => addCost(c, f.cost), ZERO_COST) : ZERO_COST;
  const finalKeys = finals.map((f) => f.llmKey);
  const firstKeys = firsts.map((f) => f.llmKey);
  const traceKey = await storage.writeSecondLookTrace({ ...traceTarget(ref), method: input.method, firstKeys, finalKeys, cost });
  return { finalKeys, cost, traceKey, wallMs: Date.now() - started };
}
