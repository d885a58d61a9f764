/**
 * Batch mode gathered by model (`models[i].batch.gather: model`): the sweep answers the requests of
 * every pending cell of the model in the same batches, before any of those cells starts: each
 * cell's requests are prepared as for a cell's own batch phase (cellBatches.ts), then pooled into
 * request sets within the model's limits (fewer, larger batches), each answered by a
 * batchAnswersWorkflow child of the sweep. The cells then find their answers cached
 * (`batchedBySweep`: they make no batch of their own) and send live only what is left.
 */
import { sweepPrefix, sweepWorkflowId, llmTaskQueue } from '../domain/sweep/keys.js';
import type { BatchAnswersOutcome } from './batchAnswers.js';
import { answerSets, cellBatchPrefix, prepareActivities, prepareCellSets, type CellBatchScope } from './cellBatches.js';

export const modelBatchPrefix = (sweepId: string, modelId: string) => `${sweepPrefix(sweepId)}batches/${modelId}/`;
export const modelBatchWorkflowId = (sweepId: string, modelId: string, setId: string) =>
  `${sweepWorkflowId(sweepId)}/batch-${modelId}-${setId}`;

/** Whether the sweep gathers this cell's requests with its model's other cells'. */
export function gatheredByModel(cell: CellBatchScope['cell'], mode: string): boolean {
  return cell.endpoint.batch?.gather === 'model' && mode !== 'evaluate-only';
}

/**
 * The model's cells' batch phase (all of `cells` are of one model). `mayStart` is awaited between
 * preparing the sets and starting their batches (a paused sweep submits nothing).
 */
export async function answerModelInBatches(
  cells: readonly CellBatchScope[],
  started: (workflowIds: string[]) => void,
  mayStart: () => Promise<void>,
): Promise<BatchAnswersOutcome[]> {
  const first = cells[0];
  if (!first) return [];
  const { sweepId, queues } = first;
  const model = first.cell.model;
  const endpoint = first.cell.endpoint;
  const llmQueue = llmTaskQueue(queues.llmBase, model);
  const perCell = await Promise.all(cells.map((c) => prepareCellSets(c, cellBatchPrefix(sweepId, c.cell.id))));
  if (perCell.every((sets) => sets.length === 0)) return [];
  const prefix = modelBatchPrefix(sweepId, model);
  const pooled = await prepareActivities(llmQueue).poolRequestSets({ endpoint, sets: perCell.flat(), prefix });
  await mayStart();
  const scope = { sweepId, owner: `model ${model}`, endpoint, llmQueue, workflowQueue: queues.workflows, prefix };
  return answerSets(scope, pooled, (setId) => modelBatchWorkflowId(sweepId, model, setId), started);
}
