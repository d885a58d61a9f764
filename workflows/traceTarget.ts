import type { PromptTemplate } from '../domain/methods/promptTemplate.js';
import type { MethodTaskRef, TraceTaskRef } from '../domain/methods/taskRef.js';

/**
 * Where a multi-step method's trace goes and the cell's prompt template recorded beside what it
 * shaped (absent without one: the same activity input as before templates existed).
 */
export function traceTarget(ref: MethodTaskRef): { ref: TraceTaskRef; promptTemplate?: PromptTemplate } {
  return {
    ref: { sweepId: ref.sweepId, cellId: ref.cellId, datasetKey: ref.datasetKey, taskIndex: ref.taskIndex },
    ...(ref.sampling.prompt ? { promptTemplate: ref.sampling.prompt } : {}),
  };
}
