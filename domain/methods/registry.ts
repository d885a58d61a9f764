/**
 * The registry of method kinds: one line per kind, each the pure definition in its folder
 * (methods/<kind>/definition.ts). A kind's named methods become valid in sweep configs; the sweep's
 * plan, its sharing rule, reports and `scripts/trace.ts` read from here. Its workflow and its
 * activities are listed in methods/workflows.ts and methods/activities.ts, which the compiler
 * checks against this list.
 */
import { capirMethod } from '../../methods/capir/definition.js';
import { directMethod } from '../../methods/direct/definition.js';
import { exploracoderMethod, type ExploraVariant } from '../../methods/exploracoder/definition.js';
import { MethodOptionsSchema, type MethodOptions } from './options.js';
import { ragMethod } from '../../methods/rag/definition.js';
import { selfRepairMethod } from '../../methods/self-repair/definition.js';
import type { CostContext, MethodCostEstimate, MethodDefinition, SharingCell } from './types.js';

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
  [K in MethodKind]: {
    name: MethodName;
    kind: K;
    description: string;
    needsLibrary: boolean;
    needsChat: boolean;
    promptTemplateScope: string;
    optionsRead: readonly (keyof MethodOptions)[];
    variant: VariantOf<K>;
  };
}[MethodKind];

export { type ExploraVariant };

/** A named method with its kind's functions bound to its variant, so lookups by name need no casts. */
interface BoundMethod {
  spec: MethodSpec;
  estimateCost(ctx: CostContext): MethodCostEstimate;
  sharedRequestFamilies(cell: SharingCell): string[];
  outlineTrace: MethodDefinition<string, unknown>['outlineTrace'];
}

function bind<K extends string, V>(def: MethodDefinition<K, V>): BoundMethod[] {
  return Object.entries(def.names).map(([name, m]) => ({
    // The MethodSpec union covers this tree's kinds; a registered kind's spec has the same fields
    // with a variant of its own, and is reached only by name.
    spec: {
      name,
      kind: def.kind,
      description: m.description,
      needsLibrary: def.needsLibrary,
      needsChat: def.needsChat,
      promptTemplateScope: def.promptTemplateScope,
      optionsRead: def.optionsRead,
      variant: m.variant,
    } as unknown as MethodSpec,
    estimateCost: (ctx) => def.estimateCost(m.variant, ctx),
    sharedRequestFamilies: (cell) => def.sharedRequestFamilies(m.variant, cell),
    outlineTrace: (trace, sample) => def.outlineTrace(trace, sample),
  }));
}

const BY_NAME: Record<string, BoundMethod> = {};
const SPECS: Record<string, MethodSpec> = {};

function add(kind: string, methods: BoundMethod[]): void {
  if (Object.values(SPECS).some((s) => s.kind === kind)) throw new Error(`method kind ${kind} is registered twice`);
  for (const { spec } of methods) {
    if (spec.name in SPECS) throw new Error(`method ${spec.name} is registered by both ${SPECS[spec.name]!.kind} and ${kind}`);
  }
  for (const m of methods) {
    BY_NAME[m.spec.name] = m;
    SPECS[m.spec.name] = m.spec;
  }
}

for (const def of Object.values(METHOD_KINDS) as Array<MethodDefinition<MethodKind, MethodVariant>>) add(def.kind, bind(def));

/**
 * Adds method kinds defined outside this list (a test's throwaway method, a fork's plug-in): their
 * names become valid in sweep configs of this process. Call it before loading a config.
 */
export function registerMethodKind<K extends string, V>(def: MethodDefinition<K, V>): void {
  add(def.kind, bind(def));
}

/** Every named method by name: this tree's kinds and any registered since. */
export const METHODS: Readonly<Record<MethodName, MethodSpec>> = SPECS as Record<MethodName, MethodSpec>;

/** The names of this tree's methods. */
export const METHOD_NAMES = Object.keys(METHODS) as [MethodName, ...MethodName[]];

/** Every method name known now (this tree's and any registered since). */
export function methodNames(): string[] {
  return Object.keys(SPECS);
}

export function methodSpec(name: MethodName): MethodSpec {
  return METHODS[name];
}

/** The method of that name, or undefined (names from outside: workflow inputs, old records). */
export function findMethod(name: string): MethodSpec | undefined {
  return Object.prototype.hasOwnProperty.call(SPECS, name) ? SPECS[name] : undefined;
}

/** The `method_options` that the named methods read, in the options' own order; unknown names read none. */
export function optionsReadBy(names: readonly string[]): Array<keyof MethodOptions> {
  const read = new Set(names.flatMap((name) => findMethod(name)?.optionsRead ?? []));
  return (Object.keys(MethodOptionsSchema.shape) as Array<keyof MethodOptions>).filter((o) => read.has(o));
}

/** Requests and sandbox runs of `name` for `tasks` tasks of `n` samples each, for `--dry-run`. */
export function estimateMethodCost(
  name: MethodName,
  tasks: number,
  n: number,
  options: MethodOptions,
  samplesPerRequest = 1,
  twoSteps = false,
): MethodCostEstimate {
  return BY_NAME[name]!.estimateCost({ tasks, n, options, samplesPerRequest, twoSteps });
}

/** Names of the request families the cell sends that another cell of the sweep may send too. */
export function sharedRequestFamilies(cell: SharingCell): string[] {
  return findMethod(cell.method) ? BY_NAME[cell.method]!.sharedRequestFamilies(cell) : [];
}

/** The method's part of a stored trace as readable lines. */
export function outlineTrace(method: string, ...args: Parameters<MethodDefinition<MethodKind, MethodVariant>['outlineTrace']>): string[] {
  return findMethod(method) ? BY_NAME[method]!.outlineTrace(...args) : [];
}

export { ASSUMED_SUBTASKS, type MethodCostEstimate, type SharedRequests } from './types.js';
