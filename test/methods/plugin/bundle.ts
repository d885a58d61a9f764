/**
 * The workflow bundle of a worker serving the tree's methods plus second-look: every workflow of
 * workflows/index.ts, second-look's task workflow, and its shard step added to the dispatch before
 * any workflow runs (this module's body runs once, as the bundle loads).
 */
import { addMethodWorkflows } from '../../../workflows/methodSteps.js';
import { secondLookWorkflow } from './workflow.js';

addMethodWorkflows([secondLookWorkflow]);

export * from '../../../workflows/index.js';
export { secondLookTaskWorkflow } from './workflow.js';
