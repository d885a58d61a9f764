/**
 * The outputs of a dataset's own solution that a family checks samples against (evalplus's
 * differential testing): run once per content in the sandbox and cached by the hash of what they
 * depend on (TaskChecking.cacheKey), in the sweep's bucket (so that a sweep's shards, its retries
 * and later sweeps never recompute them) or on local disk (scripts/evaluate.ts). Two shards that
 * miss the cache at once both compute and write; either copy serves. (The bucket's store is in
 * referenceOutputsS3.ts, so that evaluate.ts does not load the S3 client.)
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SweepProblem } from '../domain/datasets/problems.js';
import type { ExecutionRequest, ExecutionResult } from '../domain/execution/types.js';
import type { TaskChecking } from '../domain/families/types.js';

export interface ReferenceOutputsStore {
  get(hash: string): Promise<string | null>;
  put(hash: string, outputs: string): Promise<void>;
}

/** A directory's cache (written whole, then renamed, so a reader never sees half a file). */
export function diskReferenceOutputs(dir: string): ReferenceOutputsStore {
  return {
    get: async (hash) => {
      try {
        return readFileSync(join(dir, `${hash}.json`), 'utf8');
      } catch {
        return null;
      }
    },
    put: async (hash, outputs) => {
      mkdirSync(dir, { recursive: true });
      const tmp = join(dir, `${hash}.json.${process.pid}.tmp`);
      writeFileSync(tmp, outputs);
      renameSync(tmp, join(dir, `${hash}.json`));
    },
  };
}

/** A cache of this process only. */
export function memoryReferenceOutputs(): ReferenceOutputsStore {
  const outputs = new Map<string, string>();
  return {
    get: async (hash) => outputs.get(hash) ?? null,
    put: async (hash, text) => {
      outputs.set(hash, text);
    },
  };
}

/** The dataset's solution could not produce the outputs its samples are checked against. */
export class ReferenceOutputsError extends Error {
  override name = 'ReferenceOutputsError';
}

/**
 * Each task's reference outputs (null for tasks whose programs carry their own tests), computed at
 * most once per content and process; `run` is the sandbox the reference runs in.
 */
export class ReferenceOutputs {
  private readonly pending = new Map<string, Promise<string>>();

  constructor(
    private readonly store: ReferenceOutputsStore,
    private readonly run: (request: ExecutionRequest) => Promise<ExecutionResult>,
  ) {}

  /** The outputs `checking` (the problem's family's) asks for, or null when its programs carry their own tests or nothing runs. */
  async for(problem: SweepProblem, checking: TaskChecking): Promise<string | null> {
    if (checking.kind !== 'reference-outputs') return null;
    const hash = createHash('sha256').update(checking.cacheKey).digest('hex');
    let outputs = this.pending.get(hash);
    if (!outputs) {
      outputs = (async () => {
        const cached = await this.store.get(hash);
        if (cached !== null) return cached;
        const result = await this.run({ id: `reference-outputs/${problem.task_id}`, program: checking.program, limits: checking.limits });
        const parsed = checking.parse(result);
        if (!parsed.ok) throw new ReferenceOutputsError(parsed.error);
        await this.store.put(hash, parsed.outputs);
        return parsed.outputs;
      })();
      outputs.catch(() => this.pending.delete(hash));
      this.pending.set(hash, outputs);
    }
    return outputs;
  }
}
