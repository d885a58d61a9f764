/**
 * Wiring: the activities every method registers on the LLM queues and the storage queue, from the
 * methods' worker faces (methods/activities.ts). Activity names are global: two methods naming one
 * activity alike would silently replace each other's, so that is refused at worker start.
 */
import { isMethodActivities, type MethodActivities, type MethodActivityDeps } from '../activities/llm/methodKit.js';
import type { MethodKind } from '../domain/methods/registry.js';
import { parkingScope } from '../infra/llm/parking.js';
import type { Bucket } from '../infra/s3.js';
import * as METHOD_ACTIVITY_EXPORTS from '../methods/activities.js';

type Exported = (typeof METHOD_ACTIVITY_EXPORTS)[keyof typeof METHOD_ACTIVITY_EXPORTS];
type Registered = Extract<Exported, { role: 'method-activities' }>['kind'];
type Missing = Exclude<MethodKind, Registered>;
// A registry kind missing from methods/activities.ts fails here, naming it.
const everyKindHasActivities: [Missing] extends [never] ? true : { missingActivitiesFor: Missing } = true;
void everyKindHasActivities;

/** The methods a worker serves unless told otherwise: every method of the tree. */
export const METHOD_ACTIVITIES: readonly MethodActivities[] = (Object.values(METHOD_ACTIVITY_EXPORTS) as unknown[]).filter(
  isMethodActivities,
);

type Registrations = Record<string, (input: never) => Promise<unknown>>;

/** Each method's activities merged by name; a name two methods register is refused. */
function merged(parts: ReadonlyArray<{ kind: string; activities: Registrations }>): Registrations {
  const out: Registrations = {};
  const owner = new Map<string, string>();
  for (const { kind, activities } of parts) {
    for (const [name, fn] of Object.entries(activities)) {
      if (owner.has(name)) throw new Error(`activity ${name} is registered by both method ${owner.get(name)} and method ${kind}`);
      owner.set(name, kind);
      out[name] = fn;
    }
  }
  return out;
}

/**
 * What `methods` register on each model's LLM queue, by activity name. Each runs in parking mode
 * when its input asks (infra/llm/parking.ts: batch mode's multi-round methods).
 */
export function llmQueueActivities(methods: readonly MethodActivities[], deps: MethodActivityDeps): Registrations {
  const all = merged(methods.flatMap((m) => (m.llm ? [{ kind: m.kind, activities: m.llm(deps) }] : [])));
  return Object.fromEntries(
    Object.entries(all).map(([name, fn]) => [name, (input: never) => parkingScope(input, () => fn(input))]),
  ) as Registrations;
}

/** What `methods` register on the storage queue (their trace writers), by activity name. */
export function storageQueueActivities(methods: readonly MethodActivities[], bucket: Bucket): Registrations {
  return merged(methods.flatMap((m) => (m.storage ? [{ kind: m.kind, activities: m.storage(bucket) }] : [])));
}
