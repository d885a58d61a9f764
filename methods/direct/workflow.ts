/** direct's shard step: one LLM activity per task (per slice of a large task's samples), its samples laid over requests. */
import { taskRequestLanes } from '../../domain/sweep/sharding.js';
import { answerInSlices, answersGeneration, defineMethodWorkflow, shardLlm } from '../../workflows/methodKit.js';
import type { DirectActivities } from './activities.js';
import { directMethod } from './definition.js';

export const directWorkflow = defineMethodWorkflow(directMethod, async ({ shard, taskIndex, hooks }) => {
  const llm = shardLlm<DirectActivities>(shard);
  const answers = await answerInSlices(shard, hooks, (sampleIndices) =>
    llm.generateDirect({
      endpoint: shard.cell.endpoint,
      sampling: shard.cell.sampling,
      datasetKey: shard.datasetKey,
      taskIndex,
      sampleIndices,
      // Shards given a window by their cell (issue 45) fill the model's concurrency even when few
      // tasks are left; the activity's input only, no command changes.
      ...(shard.taskWindow !== undefined ? { concurrency: taskRequestLanes(shard.cell.endpoint.concurrency, shard.taskWindow) } : {}),
    }),
  );
  // The cost travels with the keys for the shard's live progress (no command changes: replay-safe).
  return answersGeneration(answers);
});
