/** rag's shard step: one LLM activity per task, its samples laid over requests. */
import { costOfCalls } from '../../domain/methods/artifacts.js';
import { allSamples, defineMethodWorkflow, shardLlm, taskRef } from '../../workflows/methodKit.js';
import type { RagActivities } from './activities.js';
import { ragMethod } from './definition.js';

export const ragWorkflow = defineMethodWorkflow(ragMethod, async ({ shard, taskIndex }) => {
  const answers = await shardLlm<RagActivities>(shard).generateRag({ ref: taskRef(shard, taskIndex), sampleIndices: allSamples(shard) });
  // The cost travels with the keys for the shard's live progress (no command changes: replay-safe).
  return { finalKeys: answers.map((s) => s.key), cost: costOfCalls(answers) };
});
