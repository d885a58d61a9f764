/**
 * The methods' workflow faces, one line per method: what the workflow bundle runs (each kind's
 * shard step and its task workflows, exported by type name) and what the shard dispatches to
 * (workflows/methodSteps.ts). Workflow-sandbox code only.
 */
export * from './direct/workflow.js';
export * from './rag/workflow.js';
export * from './self-repair/workflow.js';
export * from './exploracoder/workflow.js';
export * from './capir/workflow.js';
