/**
 * A cell's batch phase (batch mode, domain/llm/batchMode.ts): before its shards start, the requests
 * its method would send that the LLM cache does not answer yet are stored as request sets, and each
 * is answered by a batchAnswersWorkflow child (a deterministic id from the sweep, the cell and the
 * set). Its shards then find those answers cached and send live only what is left.
 */
import { ApplicationFailure, ParentClosePolicy, proxyActivities } from '@temporalio/workflow';
import type { BatchActivities } from '../activities/llm/batch.js';
import type { LlmEndpoint } from '../domain/llm/request.js';
import type { DirectActivities } from '../methods/direct/activities.js';
import type { RagActivities } from '../methods/rag/activities.js';
import type { RequestSet } from '../infra/llm/batchPlan.js';
import type { MethodTaskRef } from '../domain/methods/taskRef.js';
import { BATCH_METHOD_KINDS, BATCH_ROUND_KINDS } from '../domain/llm/batchMode.js';
import { findMethod } from '../domain/methods/registry.js';
import { cellPrefix, cellWorkflowId, llmTaskQueue } from '../domain/sweep/keys.js';
import { batchAnswersWorkflow, type BatchAnswersOutcome } from './batchAnswers.js';
import { startChildPatiently } from './startChildPatiently.js';
import type { CellInput } from './sweepTypes.js';

export const cellBatchPrefix = (sweepId: string, cellId: string) => `${cellPrefix(sweepId, cellId)}batches/`;
export const cellBatchWorkflowId = (sweepId: string, cellId: string, setId: string) => `${cellWorkflowId(sweepId, cellId)}/batch-${setId}`;

/** Whether the cell answers in batches first: its model is in batch mode, it generates, and the sweep did not gather its requests with its model's other cells'. */
export function answersInBatches(input: Pick<CellInput, 'cell' | 'mode' | 'batchedBySweep'>): boolean {
  return input.cell.endpoint.batch !== undefined && input.mode !== 'evaluate-only' && !input.batchedBySweep && !answersInRounds(input);
}

/** Whether the cell is of a multi-round method in batch mode: its chains' rounds go to a round collector (batchRounds.ts), not to a batch phase. */
export function answersInRounds(input: Pick<CellInput, 'cell' | 'mode'>): boolean {
  const kind = findMethod(input.cell.method)?.kind;
  return (
    input.cell.endpoint.batch !== undefined && input.mode !== 'evaluate-only' && kind !== undefined && BATCH_ROUND_KINDS.includes(kind)
  );
}

/** What preparing a cell's request sets needs of its input (the sweep has it before the cell starts). */
export type CellBatchScope = Pick<
  CellInput,
  'sweepId' | 'cell' | 'datasetKey' | 'libraryKey' | 'methodOptions' | 'tasks' | 'nSamples' | 'queues'
>;

/** The batch activities that move a set's requests on the model's queue (its workers hold the API key). */
export const prepareActivities = (llmQueue: string) =>
  proxyActivities<DirectActivities & RagActivities & Pick<BatchActivities, 'poolRequestSets'>>({
    taskQueue: llmQueue,
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: '1 minute',
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '1 minute',
      nonRetryableErrorTypes: ['InvalidTask', 'ZodError'],
    },
  });

/** The cell's one round of requests the cache does not answer, as request sets under `prefix` (one activity on the model's queue). */
export async function prepareCellSets(input: CellBatchScope, prefix: string): Promise<RequestSet[]> {
  const kind = findMethod(input.cell.method)?.kind;
  // The config refuses other kinds in batch mode (models[i].batch); a sweep started otherwise stops here, naming it.
  if (kind === undefined || !BATCH_METHOD_KINDS.includes(kind))
    throw ApplicationFailure.nonRetryable(
      `cell ${input.cell.id}: batch mode answers only the ${BATCH_METHOD_KINDS.join(', ')} methods so far, not ${input.cell.method} (models[i].batch)`,
      'InvalidSweep',
    );
  const prepare = prepareActivities(llmTaskQueue(input.queues.llmBase, input.cell.model));
  const range = { taskStart: 0, taskEnd: input.tasks, nSamples: input.nSamples, prefix };
  // One round of requests, whatever the kind: the requests its step would send, prepared by its own activity.
  return kind === 'rag'
    ? prepare.prepareRagBatch({ ref: cellTaskRef(input), ...range })
    : prepare.prepareDirectBatch({
        endpoint: input.cell.endpoint,
        sampling: input.cell.sampling,
        datasetKey: input.datasetKey,
        ...range,
      });
}

/** Starts a batchAnswersWorkflow child per set (ids from `workflowIdOf`), reports their ids, and waits for their outcomes. */
export async function answerSets(
  scope: { sweepId: string; owner: string; endpoint: LlmEndpoint; llmQueue: string; workflowQueue: string; prefix: string },
  sets: readonly RequestSet[],
  workflowIdOf: (setId: string) => string,
  started: (workflowIds: string[]) => void,
): Promise<BatchAnswersOutcome[]> {
  const children = await Promise.all(
    sets.map((set) =>
      startChildPatiently(batchAnswersWorkflow, {
        workflowId: workflowIdOf(set.setId),
        taskQueue: scope.workflowQueue,
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        args: [
          { sweepId: scope.sweepId, cellId: scope.owner, endpoint: scope.endpoint, llmQueue: scope.llmQueue, set, prefix: scope.prefix },
        ],
      }),
    ),
  );
  started(children.map((c) => c.workflowId));
  return Promise.all(children.map((c) => c.result()));
}

/**
 * Runs the cell's batch phase; returns each request set's outcome (empty when the cache answers
 * every request). `mayStart` is awaited between preparing the sets and starting their batches.
 */
export async function answerCellInBatches(
  input: CellInput,
  started: (workflowIds: string[]) => void = () => {},
  mayStart: () => Promise<void> = async () => {},
): Promise<BatchAnswersOutcome[]> {
  const prefix = cellBatchPrefix(input.sweepId, input.cell.id);
  const sets = await prepareCellSets(input, prefix);
  if (sets.length > 0) await mayStart();
  const scope = {
    sweepId: input.sweepId,
    owner: input.cell.id,
    endpoint: input.cell.endpoint,
    llmQueue: llmTaskQueue(input.queues.llmBase, input.cell.model),
    workflowQueue: input.queues.workflows,
    prefix,
  };
  return answerSets(scope, sets, (setId) => cellBatchWorkflowId(input.sweepId, input.cell.id, setId), started);
}

/** What a library-using method's step gets as its task reference (workflows/methodKit.ts taskRef), for every task of the cell. */
function cellTaskRef(input: CellBatchScope): Omit<MethodTaskRef, 'taskIndex'> {
  if (!input.libraryKey || !input.methodOptions)
    throw ApplicationFailure.nonRetryable(
      `method ${input.cell.method} needs the dataset's API library, and ${input.cell.dataset} has none`,
      'InvalidSweep',
    );
  return {
    sweepId: input.sweepId,
    cellId: input.cell.id,
    datasetKey: input.datasetKey,
    libraryKey: input.libraryKey,
    endpoint: input.cell.endpoint,
    sampling: input.cell.sampling,
    options: input.methodOptions,
  };
}
