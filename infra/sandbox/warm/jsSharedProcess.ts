/**
 * JavaScript's shared-process runs (contract.ts `SharedRun`; opt-in, ProcessExecutorOptions.
 * shareProcess): the programs of a batch run in one sandboxed Node process, each in a V8 context
 * of its own (js/sharedProcess.cjs says what each one sees and what sends it back to a lone run).
 * Why: Node's start (~40 ms of CPU) is nearly all of a MultiPL-E program's cost, so a process per
 * program, however it is started, cannot be much faster than MultiPL-E's own `node F`
 * (docs/benchmarks.md#multipl-e-languages measures that floor).
 *
 * Before a program joins, a screen of its text (`sharedRefusal`) sends to a lone run every program
 * whose outcome could depend on sharing: what reaches objects of another realm (Node's assert
 * module is the one shared object: catching its AssertionError, instanceof, constructors and
 * prototypes of what it hands out), asynchronous code (promises, async functions: a lone run's
 * event loop would run them after the program's end), module syntax (`import`, `export`: Node
 * runs such a file as an ES module), reflection on the global object
 * (Node's globals are guarded getters here), stack-trace hooks, `require` of anything but assert
 * and `module` beyond `module.exports` (Node's module object has more), and a line starting with
 * an error's name (Node's source excerpt would show it to classifyNode). What the text does not
 * show, the runner catches as the program runs (a guarded global touched, a timeout, a stack
 * overflow, output past the cap, a change to what programs share).
 */
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { ExecutionLimits } from '../../../domain/execution/types.js';
import { BUILD_DIR, type Mount, type SharedOutcome, type SharedRun, type StepResult } from '../process/contract.js';
import { runLimits } from '../process/toolchains/common.js';
import { nodeArgs } from '../process/toolchains/js.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const RUNNER_IN_SANDBOX = '/opt/explora-js';

/** The runner's directory, read-only in the step's sandbox. */
export const SHARED_RUNNER_MOUNT: Mount = { host: join(HERE, 'js'), sandbox: RUNNER_IN_SANDBOX };

/** Longest a program runs in the shared process; one that needs more is run alone, under its own limit. */
export const SHARED_TIMEOUT_CAP_MS = 2_000;
/** The shared process's own start, beside its programs' time. */
const START_MS = 3_000;

const REFUSALS: Array<[RegExp, string]> = [
  [/\b(?:catch|instanceof|constructor|__proto__|\w*Prototype\w*)\b/, 'reaches objects of another realm'],
  [/\b(?:async|await|Promise|then|queueMicrotask|setTimeout|setInterval|setImmediate)\b/, 'asynchronous code'],
  // Node 20.19+ runs a file with module syntax as an ES module (syntax detection).
  [/\b(?:import|export)\b/, 'module syntax'],
  [/\b(?:globalThis|global|Reflect|getOwnProperty\w*|ownKeys)\b/, 'reflection on the global object'],
  [/\b(?:prepareStackTrace|captureStackTrace|stackTraceLimit|inspect|Symbol\.for)\b/, 'stack-trace or inspect hooks'],
  [/\brequire\b(?!\s*\(\s*(['"])(?:node:)?assert(?:\/strict)?\1\s*\))/, 'require of something else than assert'],
  [/\bmodule\b(?!\s*\.\s*exports\b)/, 'module beyond module.exports'],
  [/^\w*(?:Error|Exception)\b/m, 'a line that starts with an error name'],
];

/** Why a program must run alone, or null when it may share a process. */
export function sharedRefusal(program: string): string | null {
  // Whole-line `//` comments are MultiPL-E's prompts (HumanEval's docstrings: "... then return
  // ..."), never code; anything else is screened as it is, strings and other comments included.
  const code = program.replace(/^[ \t]*\/\/.*$/gm, '');
  for (const [pattern, why] of REFUSALS) if (pattern.test(code)) return why;
  return null;
}

const Line = z.discriminatedUnion('kind', [
  z.object({
    n: z.string(),
    i: z.number().int().nonnegative(),
    kind: z.literal('done'),
    ended: z.enum(['returned', 'threw']),
    ms: z.number().nonnegative(),
    stdout: z.string(),
    stdoutBytes: z.number().int().nonnegative(),
    stderr: z.string(),
    stderrBytes: z.number().int().nonnegative(),
  }),
  z.object({ n: z.string(), i: z.number().int().nonnegative(), kind: z.literal('alone'), why: z.string() }),
]);

/** A StepResult as the lone `node program.js` would end: exit 0, or 1 on an uncaught error (what classifyNode reads). */
function loneEnd(line: Extract<z.infer<typeof Line>, { kind: 'done' }>): StepResult {
  return {
    exitCode: line.ended === 'returned' ? 0 : 1,
    signal: null,
    timedOut: false,
    durationMs: line.ms,
    stdout: line.stdout,
    stderr: line.stderr,
    stdoutBytes: line.stdoutBytes,
    stderrBytes: line.stderrBytes,
    survivors: 0,
  };
}

export function jsRunTogether(limits: ExecutionLimits, programs: readonly string[]): SharedRun | null {
  const members = programs.flatMap((program, index) => (sharedRefusal(program) === null ? [index] : []));
  if (members.length < 2) return null;
  const perProgramMs = Math.min(limits.timeoutMs, SHARED_TIMEOUT_CAP_MS);
  const files = Object.fromEntries(members.map((index, k) => [`p${k}.js`, programs[index]!]));
  const argv = [
    ...nodeArgs(limits, `${RUNNER_IN_SANDBOX}/sharedProcess.cjs`),
    BUILD_DIR,
    String(members.length),
    String(perProgramMs),
    String(limits.maxOutputBytes),
  ];
  // Each line: a program's output (at most the cap, JSON-escaped: up to 6 bytes a byte) and its fields.
  const stepLimits = runLimits(limits, 'data', {
    timeoutMs: START_MS + members.length * perProgramMs,
    maxOutputBytes: 4096 + members.length * (12 * limits.maxOutputBytes + 4096),
  });
  // Each line carries it (sharedProcess.cjs reads it on stdin): a program that reached the runner's
  // own objects could print lines, but not this.
  const nonce = randomBytes(16).toString('hex');
  return {
    files,
    step: { kind: 'sandbox', argv, env: { LANG: 'C.UTF-8' }, limits: stepLimits, stdin: nonce },
    read(ran: StepResult): SharedOutcome[] {
      const outcomes: SharedOutcome[] = programs.map(() => ({ kind: 'alone' }));
      const seen = new Set<number>();
      // Lines written before the process ended count whatever ended it: each was complete when written.
      for (const text of ran.stdout.split('\n')) {
        if (!text) continue;
        let parsed;
        try {
          parsed = Line.safeParse(JSON.parse(text));
        } catch {
          continue;
        }
        if (!parsed.success || parsed.data.n !== nonce || parsed.data.i >= members.length || seen.has(parsed.data.i)) continue;
        seen.add(parsed.data.i);
        if (parsed.data.kind === 'done') outcomes[members[parsed.data.i]!] = { kind: 'done', run: loneEnd(parsed.data) };
      }
      return outcomes;
    },
  };
}
