/** direct's shard step: one LLM activity per task, its samples laid over requests. */
import { costOfCalls } from '../../domain/methods/artifacts.js';
import { allSamples, defineMethodWorkflow, shardLlm } from '../../workflows/methodKit.js';
import type { DirectActivities } from './activities.js';
import { directMethod } from './definition.js';

export const directWorkflow = defineMethodWorkflow(directMethod, async ({ shard, taskIndex }) => {
  const answers = await shardLlm<DirectActivities>(shard).generateDirect({
    endpoint: shard.cell.endpoint,
    sampling: shard.cell.sampling,
    datasetKey: shard.datasetKey,
    taskIndex,
    sampleIndices: allSamples(shard),
  });
  // The cost travels with the keys for the shard's live progress (no command changes: replay-safe).
  return { finalKeys: answers.map((s) => s.key), cost: costOfCalls(answers) };
});
