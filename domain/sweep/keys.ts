/** Where a sweep keeps everything in the bucket. Deterministic, so a restarted sweep finds its work. */
export const sweepPrefix = (sweepId: string) => `sweeps/${sweepId}/`;
export const sweepConfigKey = (sweepId: string) => `${sweepPrefix(sweepId)}config.json`;
export const sweepResultsKey = (sweepId: string) => `${sweepPrefix(sweepId)}results.json`;
export const sweepDatasetKey = (sweepId: string, dataset: string) => `${sweepPrefix(sweepId)}datasets/${dataset}.jsonl`;
export const sweepInputKey = (sweepId: string, name: string) => `${sweepPrefix(sweepId)}inputs/${name}`;
export const cellPrefix = (sweepId: string, cellId: string) => `${sweepPrefix(sweepId)}cells/${cellId}/`;
export const cellRecordsPrefix = (sweepId: string, cellId: string) => `${cellPrefix(sweepId, cellId)}records/`;
export const cellShardRecordsKey = (sweepId: string, cellId: string, shard: number) =>
  `${cellRecordsPrefix(sweepId, cellId)}shard-${String(shard).padStart(5, '0')}.jsonl`;
export const cellFileKey = (sweepId: string, cellId: string, file: 'results.json' | 'generations.json' | 'references.json' | 'samples.jsonl') =>
  `${cellPrefix(sweepId, cellId)}${file}`;

export const sweepWorkflowId = (sweepId: string) => `explora-sweep/${sweepId}`;
export const cellWorkflowId = (sweepId: string, cellId: string) => `explora-sweep/${sweepId}/${cellId}`;
export const cellShardWorkflowId = (sweepId: string, cellId: string, shard: number) => `explora-sweep/${sweepId}/${cellId}/shard-${shard}`;

/** Each model has its own LLM queue, so its concurrency and rate are set by the workers serving it. */
export const llmTaskQueue = (llmQueueBase: string, modelId: string) => `${llmQueueBase}-${modelId}`;
/** Where a multi-step method keeps the artifacts of one task of one cell (plan, recommendations). */
export const cellTaskPrefix = (sweepId: string, cellId: string, taskIndex: number) => `${cellPrefix(sweepId, cellId)}tasks/${taskIndex}/`;
export const cellTraceKey = (sweepId: string, cellId: string, taskIndex: number) => `${cellPrefix(sweepId, cellId)}traces/${taskIndex}.json`;
export const cellTaskWorkflowId = (sweepId: string, cellId: string, taskIndex: number) => `explora-sweep/${sweepId}/${cellId}/task-${taskIndex}`;
/** A sweep's copy of a dataset's library (API docs, planner examples, runtime). */
export const sweepLibraryKey = (sweepId: string, dataset: string) => `${sweepPrefix(sweepId)}datasets/${dataset}.library.json`;
