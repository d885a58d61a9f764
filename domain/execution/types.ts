import { z } from 'zod';

/** Limits applied to one program run. Every sample gets all of them; a request may override some. */
export const ExecutionLimitsSchema = z.object({
  /** Wall-clock time from start to kill, in milliseconds (RLIMIT_CPU is set just above it). */
  timeoutMs: z.number().int().positive().max(600_000),
  /** Address-space limit (RLIMIT_AS) in bytes; exceeding it raises MemoryError (status `oom`). */
  memoryBytes: z
    .number()
    .int()
    .min(64 * 1024 * 1024),
  /** Processes and threads the sample may have at once (RLIMIT_NPROC, counted per sample). */
  maxProcesses: z.number().int().min(2).max(4096),
  /** Largest file the sample may write (RLIMIT_FSIZE), in bytes. */
  maxFileBytes: z.number().int().min(0),
  /** Bytes of stdout and of stderr kept in the result; the rest is counted and dropped. */
  maxOutputBytes: z
    .number()
    .int()
    .min(0)
    .max(16 * 1024 * 1024),
});
export type ExecutionLimits = z.infer<typeof ExecutionLimitsSchema>;

export const DEFAULT_LIMITS: ExecutionLimits = {
  timeoutMs: 3_000,
  memoryBytes: 1024 * 1024 * 1024,
  maxProcesses: 32,
  maxFileBytes: 16 * 1024 * 1024,
  maxOutputBytes: 8 * 1024,
};

export const ExecutionRequestSchema = z.object({
  /** Caller's name for the run, echoed in the result. */
  id: z.string().min(1).max(512),
  /** The whole Python program (see program.ts for how HumanEval-style programs are assembled). */
  program: z.string().max(8 * 1024 * 1024),
  limits: ExecutionLimitsSchema.partial().optional(),
});
export type ExecutionRequest = z.infer<typeof ExecutionRequestSchema>;

/**
 * - `passed`: the program ran to its end.
 * - `failed`: it stopped on an AssertionError (a test assertion).
 * - `error`: it stopped on any other exception (or exited early, e.g. os._exit / sys.exit).
 * - `timeout`: wall time (or CPU time) ran out.
 * - `oom`: MemoryError under the memory limit.
 * - `killed`: a signal ended it otherwise (e.g. SIGSEGV on runaway C recursion).
 * - `compile_error`: a compiled language's compile step failed (MultiPL-E's SyntaxError); the
 *   program never ran. Never a pass, never a success.
 */
export const ExecutionStatusSchema = z.enum(['passed', 'failed', 'error', 'timeout', 'oom', 'killed', 'compile_error']);
export type ExecutionStatus = z.infer<typeof ExecutionStatusSchema>;

export const ExceptionInfoSchema = z.object({
  type: z.string(),
  message: z.string(),
  traceback: z.string().optional(),
});
export type ExceptionInfo = z.infer<typeof ExceptionInfoSchema>;

export const ExecutionResultSchema = z.object({
  id: z.string(),
  status: ExecutionStatusSchema,
  exception: ExceptionInfoSchema.optional(),
  /** Exit code of the sample's main process, or null when a signal ended it. */
  exitCode: z.number().int().nullable(),
  /** Name of the signal that ended the main process (e.g. "SIGKILL"), or null. */
  signal: z.string().nullable(),
  durationMs: z.number().nonnegative(),
  /** Compiled languages: how long the compile step took (durationMs is the run's); a program compiled in a batch with others (several per compiler call): its share of that step. */
  compileMs: z.number().nonnegative().optional(),
  cpuMs: z.number().nonnegative().optional(),
  /** First `maxOutputBytes` of output, decoded as UTF-8; `*Bytes` counts everything written. */
  stdout: z.string(),
  stderr: z.string(),
  stdoutBytes: z.number().int().nonnegative(),
  stderrBytes: z.number().int().nonnegative(),
  /** Processes of the sample still alive when the grace period ran out (0 is the norm). */
  survivors: z.number().int().nonnegative().optional(),
  /**
   * The program ran in a process shared with other programs of its batch, each in its own space
   * within it (JavaScript's V8 contexts; opt-in, see infra/sandbox/process/contract.ts SharedRun),
   * and ended as its lone run would have. Absent: it ran in a process of its own.
   */
  sharedProcess: z.literal(true).optional(),
  /**
   * The program's process was forked by its slot's warm interpreter (the fork servers, see
   * infra/sandbox/process/forkServer.ts) rather than started in a sandbox of its own.
   */
  forked: z.literal(true).optional(),
});
export type ExecutionResult = z.infer<typeof ExecutionResultSchema>;

/**
 * Success in the "executable" sense: the program ran to the end of its test, or stopped only on a
 * test assertion. Any other exception, a timeout, running out of memory or a kill is no success.
 */
export function isSuccess(result: Pick<ExecutionResult, 'status'>): boolean {
  return result.status === 'passed' || result.status === 'failed';
}
