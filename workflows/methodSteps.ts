/**
 * The shard's dispatch to the method of its cell: each method's workflow face (methods/workflows.ts
 * lists them) says which names it answers to and how one task becomes one cached answer per
 * sample. Every kind of the method registry must have one: a kind without it does not compile.
 */
import type { MethodKind } from '../domain/methods/registry.js';
import * as METHOD_WORKFLOW_EXPORTS from '../methods/workflows.js';
import { isMethodWorkflow, type BoundStep, type MethodWorkflow, type TaskGeneration } from './methodKit.js';

export type { TaskGeneration };

type Exported = (typeof METHOD_WORKFLOW_EXPORTS)[keyof typeof METHOD_WORKFLOW_EXPORTS];
type Registered = Extract<Exported, { role: 'method-workflow' }>['kind'];
type Missing = Exclude<MethodKind, Registered>;
// A registry kind missing from methods/workflows.ts fails here, naming it.
const everyKindHasAWorkflow: [Missing] extends [never] ? true : { missingWorkflowFor: Missing } = true;
void everyKindHasAWorkflow;

const methodWorkflows: MethodWorkflow[] = (Object.values(METHOD_WORKFLOW_EXPORTS) as unknown[]).filter(isMethodWorkflow);

/**
 * Adds method workflows defined outside methods/ (a test's throwaway method): the workflow bundle's
 * entry calls it once as it loads, before any workflow runs, so every workflow sees the same list.
 */
export function addMethodWorkflows(more: readonly MethodWorkflow[]): void {
  for (const w of more) {
    if (methodWorkflows.some((m) => m.kind === w.kind)) throw new Error(`method kind ${w.kind} has a workflow already`);
    methodWorkflows.push(w);
  }
}

/** The step of the named method, or undefined when no method answers to the name. */
export function methodStepFor(name: string): BoundStep | undefined {
  for (const w of methodWorkflows) {
    const step = w.stepFor(name);
    if (step) return step;
  }
  return undefined;
}
