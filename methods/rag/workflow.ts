/** rag's shard step: one LLM activity per task, its samples laid over requests. */
import { allSamples, defineMethodWorkflow, shardLlm, taskRef } from '../../workflows/methodKit.js';
import type { RagActivities } from './activities.js';
import { ragMethod } from './definition.js';

export const ragWorkflow = defineMethodWorkflow(ragMethod, async ({ shard, taskIndex }) => {
  const answers = await shardLlm<RagActivities>(shard).generateRag({ ref: taskRef(shard, taskIndex), sampleIndices: allSamples(shard) });
  return { finalKeys: answers.map((s) => s.key) };
});
