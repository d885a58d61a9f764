/**
 * The registry of method kinds: one line per kind, each a definition in its own folder. A kind's
 * named methods become valid in sweep configs; the sweep's plan, its sharing rule and the shard's
 * dispatch (workflows/methodSteps.ts) all read from here.
 */
import { capirMethod } from '../../methods/capir/definition.js';
import { directMethod } from '../../methods/direct/definition.js';
import { exploracoderMethod, type ExploraVariant } from '../../methods/exploracoder/definition.js';
import type { MethodOptions } from './options.js';
import { ragMethod } from '../../methods/rag/definition.js';
import { selfRepairMethod } from '../../methods/self-repair/definition.js';
import type { MethodCostEstimate, MethodDefinition, SharingCell } from './types.js';

export const METHOD_KINDS = {
  direct: directMethod,
  rag: ragMethod,
  'self-repair': selfRepairMethod,
  exploracoder: exploracoderMethod,
  capir: capirMethod,
} as const;

export type MethodKind = keyof typeof METHOD_KINDS;

/** A kind's switches, as its definition takes them. */
export type VariantOf<K extends MethodKind> = Parameters<(typeof METHOD_KINDS)[K]['estimateCost']>[0];

// Each entry is a whole definition whose kind is its key: a piece missing, or a kind registered
// under another name, does not compile.
METHOD_KINDS satisfies { [K in MethodKind]: MethodDefinition<K, VariantOf<K>> };

/** Every named method of every kind, as sweep configs name them. */
export type MethodName = { [K in MethodKind]: keyof (typeof METHOD_KINDS)[K]['names'] & string }[MethodKind];

export type MethodVariant = VariantOf<MethodKind>;

/** A named method as the sweep sees it: its kind and what the kind needs, and its variant. */
export type MethodSpec = {
  [K in MethodKind]: { name: MethodName; kind: K; description: string; needsLibrary: boolean; needsChat: boolean; promptTemplateScope: string; variant: VariantOf<K> };
}[MethodKind];

export { type ExploraVariant };

function specsOf(): Record<MethodName, MethodSpec> {
  const out: Record<string, MethodSpec> = {};
  for (const def of Object.values(METHOD_KINDS) as Array<MethodDefinition<MethodKind, MethodVariant>>) {
    for (const [name, m] of Object.entries(def.names)) {
      if (name in out) throw new Error(`method ${name} is registered by both ${out[name]!.kind} and ${def.kind}`);
      out[name] = { name: name as MethodName, kind: def.kind, description: m.description, needsLibrary: def.needsLibrary, needsChat: def.needsChat, promptTemplateScope: def.promptTemplateScope, variant: m.variant } as MethodSpec;
    }
  }
  return out as Record<MethodName, MethodSpec>;
}

export const METHODS: Readonly<Record<MethodName, MethodSpec>> = specsOf();

export const METHOD_NAMES = Object.keys(METHODS) as [MethodName, ...MethodName[]];

export function methodSpec(name: MethodName): MethodSpec {
  return METHODS[name];
}

/** The method of that name, or undefined (names from outside: workflow inputs, old records). */
export function findMethod(name: string): MethodSpec | undefined {
  return Object.prototype.hasOwnProperty.call(METHODS, name) ? METHODS[name as MethodName] : undefined;
}

function definitionOf(spec: MethodSpec): MethodDefinition<MethodKind, MethodVariant> {
  return METHOD_KINDS[spec.kind] as MethodDefinition<MethodKind, MethodVariant>;
}

/** Requests and sandbox runs of `name` for `tasks` tasks of `n` samples each, for `--dry-run`. */
export function estimateMethodCost(name: MethodName, tasks: number, n: number, options: MethodOptions, samplesPerRequest = 1): MethodCostEstimate {
  const spec = METHODS[name];
  return definitionOf(spec).estimateCost(spec.variant, { tasks, n, options, samplesPerRequest });
}

/** Names of the request families the cell sends that another cell of the sweep may send too. */
export function sharedRequestFamilies(cell: SharingCell): string[] {
  const spec = findMethod(cell.method);
  return spec ? definitionOf(spec).sharedRequestFamilies(spec.variant, cell) : [];
}

/** The method's part of a stored trace as readable lines. */
export function outlineTrace(method: string, ...args: Parameters<MethodDefinition<MethodKind, MethodVariant>['outlineTrace']>): string[] {
  const spec = findMethod(method);
  return spec ? definitionOf(spec).outlineTrace(...args) : [];
}

export { ASSUMED_SUBTASKS, type MethodCostEstimate, type SharedRequests } from './types.js';
