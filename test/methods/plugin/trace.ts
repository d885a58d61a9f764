/** second-look's trace writer (storage queue): each sample's two answers and the final code. */
import { createTraceParts } from '../../../activities/storage/traces.js';
import type { MethodCost } from '../../../domain/methods/artifacts.js';
import type { PromptTemplate } from '../../../domain/methods/promptTemplate.js';
import type { TraceTaskRef } from '../../../domain/methods/taskRef.js';
import { loadProblems } from '../../../infra/problems.js';
import type { Bucket } from '../../../infra/s3.js';

export function createSecondLookTraceActivities(bucket: Bucket) {
  const { answer, stages, store } = createTraceParts(bucket);
  return {
    async writeSecondLookTrace(input: {
      ref: TraceTaskRef;
      method: string;
      firstKeys: string[];
      finalKeys: string[];
      cost: MethodCost;
      promptTemplate?: PromptTemplate;
    }): Promise<string> {
      const problem = (await loadProblems(bucket, input.ref.datasetKey))[input.ref.taskIndex]!;
      const finals = [];
      for (const [s, key] of input.finalKeys.entries())
        finals.push({ sample_index: s, llm_key: key, code: await answer(key, problem.entry_point) });
      return store(
        input.ref,
        {
          method: input.method,
          task_id: problem.task_id,
          task_index: input.ref.taskIndex,
          stages: await stages({ final: input.firstKeys, repair: input.finalKeys.filter((k) => !input.firstKeys.includes(k)) }),
          subtasks: [],
          finals,
          cost: input.cost,
        },
        input.promptTemplate,
      );
    },
  };
}
