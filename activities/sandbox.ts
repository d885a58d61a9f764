/**
 * Temporal activities of the sandbox task queue: run a batch of programs in the SandboxExecutor.
 * A worker on its own task queue creates one executor (started once, reused across activities) and
 * registers these functions. Results carry capped outputs, so payloads stay small.
 */
import { Context } from '@temporalio/activity';
import { z } from 'zod';
import { ExecutionRequestSchema, type ExecutionResult } from '../domain/execution/types.js';
import type { SandboxExecutor } from './sandbox/executor.js';

export const ExecuteProgramsInputSchema = z.object({
  programs: z.array(ExecutionRequestSchema).max(10_000),
});
export type ExecuteProgramsInput = z.infer<typeof ExecuteProgramsInputSchema>;

export interface ExecuteProgramsOutput {
  /** One result per program, in input order. */
  results: ExecutionResult[];
}

const HEARTBEAT_EVERY = 25;

/** Heartbeats when running inside an activity; a no-op when called directly (tests, scripts). */
function heartbeat(details: unknown): void {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return;
  }
  context.heartbeat(details);
}

export function createSandboxActivities(executor: SandboxExecutor) {
  return {
    async executePrograms(input: ExecuteProgramsInput): Promise<ExecuteProgramsOutput> {
      const { programs } = ExecuteProgramsInputSchema.parse(input);
      let done = 0;
      const results = await executor.runMany(programs, () => {
        if (++done % HEARTBEAT_EVERY === 0) heartbeat({ done, total: programs.length });
      });
      return { results };
    },
  };
}
