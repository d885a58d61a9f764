/** direct's shard step: one LLM activity per task (per slice of a large task's samples), its samples laid over requests. */
import { costOfCalls } from '../../domain/methods/artifacts.js';
import { taskRequestLanes } from '../../domain/sweep/sharding.js';
import { answerInSlices, cutAnswers, defineMethodWorkflow, freshErrorsOf, shardLlm } from '../../workflows/methodKit.js';
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
  const freshErrors = freshErrorsOf(answers);
  return {
    finalKeys: answers.map((s) => s.key),
    cost: costOfCalls(answers),
    cut: cutAnswers(answers),
    ...(freshErrors ? { freshErrors } : {}),
  };
});
