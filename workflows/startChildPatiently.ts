/**
 * startChild for children with deterministic ids, when an earlier run of the parent may have left
 * one still running: a failed or terminated sweep asks its cells (and they their shards) to cancel,
 * and a new start can come before they have closed. Rather than failing the new run, wait for the
 * old child to close, then start it again (its work so far is in S3 and the LLM cache).
 */
import { WorkflowExecutionAlreadyStartedError, type WithWorkflowArgs } from '@temporalio/common';
import { patched, sleep, startChild, type ChildWorkflowHandle, type ChildWorkflowOptions, type Workflow } from '@temporalio/workflow';

const POLL = '2 seconds';
const MAX_WAITS = 150; // five minutes

export async function startChildPatiently<T extends Workflow>(
  workflow: T,
  options: WithWorkflowArgs<T, Omit<ChildWorkflowOptions, 'typeInfo'> & { typeInfo?: undefined; workflowId: string }>,
): Promise<ChildWorkflowHandle<T>> {
  for (let waits = 0; ; waits++) {
    try {
      return await startChild(workflow, options);
    } catch (err) {
      // Runs recorded before this wait existed failed here: so must their replays.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError) || !patched('wait-for-earlier-child')) throw err;
      if (waits >= MAX_WAITS) {
        throw new Error(
          `workflow ${options.workflowId}, left running by an earlier run of this sweep, did not stop within five minutes; terminate it in the Web UI and start again`,
        );
      }
      await sleep(POLL);
    }
  }
}
