/** rag's shard step: one LLM activity per task (per slice of a large task's samples), its samples laid over requests. */
import { answerInSlices, answersGeneration, defineMethodWorkflow, shardLlm, taskRef } from '../../workflows/methodKit.js';
import type { RagActivities } from './activities.js';
import { ragMethod } from './definition.js';

export const ragWorkflow = defineMethodWorkflow(ragMethod, async ({ shard, taskIndex, hooks }) => {
  const llm = shardLlm<RagActivities>(shard);
  const ref = taskRef(shard, taskIndex);
  const answers = await answerInSlices(shard, hooks, (sampleIndices) => llm.generateRag({ ref, sampleIndices }));
  // The cost travels with the keys for the shard's live progress (no command changes: replay-safe).
  return answersGeneration(answers);
});
