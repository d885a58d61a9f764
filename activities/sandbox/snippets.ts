/**
 * Sandbox-queue activities of the multi-step methods: running an exploration snippet, and running a
 * self-repair answer on the task's visible examples. Each run is stored under a hash of what ran
 * (code, library runtime, time limit, the library's sandbox needs), so a retried or replayed step
 * reads the earlier run instead of running it again. Output and errors are stored as the model
 * will see them: in the library's own names (renamed libraries never show the originals). A library
 * whose dataset names a Python environment (BigCodeBench's) runs with it, as its samples are scored.
 */
import { ApplicationFailure } from '@temporalio/common';
import { canonicalJson } from '../../domain/datasets/manifest.js';
import { librarySnippetLimits, type ApiLibrary } from '../../domain/apidocs/library.js';
import { withPythonEnvironment } from '../../domain/apidocs/pythonEnvironment.js';
import { prepareProgram, presentOutput } from '../../domain/apidocs/runtime.js';
import { familyOf } from '../../domain/families/registry.js';
import type { ExecutionResult } from '../../domain/execution/types.js';
import { extractCode } from '../../domain/llm/extract.js';
import { readLlmRecordAt } from '../../infra/llm/cache.js';
import { SnippetRunSchema, type SnippetRun } from '../../domain/methods/artifacts.js';
import { visibleTestProgram, type VisibleCheck } from '../../domain/methods/visibleTests.js';
import { loadDatasetLibrary } from '../../infra/library.js';
import { loadProblems } from '../../infra/problems.js';
import type { SandboxPool } from '../../infra/sandbox/pool.js';
import { getText, putObject, sha256Hex, type Bucket } from '../../infra/s3.js';

export interface SnippetRunResult {
  /** Absent when there was nothing to run (the model call ended in an error). */
  runKey?: string;
  ok: boolean;
  hasOutput: boolean;
  status: string;
}

/** The error as a model should read it: exception, the end of the traceback, or what stderr said. */
function errorText(result: ExecutionResult): string | undefined {
  if (result.status === 'passed') return undefined;
  if (result.status === 'timeout') return 'TimeoutError: the snippet did not finish within the time limit';
  if (result.status === 'oom') return 'MemoryError: the snippet ran out of memory';
  if (result.exception) {
    const tb = result.exception.traceback?.trim();
    const tail = tb ? tb.split('\n').slice(-12).join('\n') : '';
    return tail || `${result.exception.type}: ${result.exception.message}`;
  }
  return result.stderr.trim() || `${result.status}${result.signal ? ` (${result.signal})` : ''}`;
}

export function createSnippetActivities(bucket: Bucket, sandboxes: SandboxPool) {
  async function runCached(
    library: ApiLibrary,
    parts: { solution: string; rest: string },
    code: string,
    timeoutS: number,
    id: string,
  ): Promise<{ key: string; run: SnippetRun }> {
    const runtime = library.runtime;
    // The library's sandbox needs join the key only when it has some: earlier runs keep their keys.
    const key = `snippet-runs/${sha256Hex(canonicalJson({ code: parts, runtime, timeout_s: timeoutS, ...(library.sandbox ? { sandbox: library.sandbox } : {}) }))}.json`;
    const existing = await getText(bucket, key);
    if (existing !== null) return { key, run: SnippetRunSchema.parse(JSON.parse(existing)) };
    const prepared = prepareProgram(runtime, parts);
    let run: SnippetRun;
    if (!prepared.ok) {
      run = {
        code,
        status: 'rejected',
        ok: false,
        stdout: '',
        stderr: '',
        error: `${prepared.error.type}: ${prepared.error.message}`,
        duration_ms: 0,
      };
    } else {
      // The dataset's Python environment, when it names one: the libraries the samples are scored with.
      const environment = library.sandbox?.python_environment;
      const executor = await sandboxes.forRuntime(runtime, environment ? [environment.path] : []);
      const program = environment ? withPythonEnvironment(prepared.program, environment) : prepared.program;
      const result = await executor.run({ id, program, limits: librarySnippetLimits(library, timeoutS) });
      const error = errorText(result);
      run = {
        code,
        status: result.status,
        ok: result.status === 'passed',
        stdout: presentOutput(runtime, result.stdout),
        stderr: presentOutput(runtime, result.stderr),
        ...(error ? { error: presentOutput(runtime, error) } : {}),
        duration_ms: result.durationMs,
      };
    }
    await putObject(bucket, key, JSON.stringify(run), { contentType: 'application/json' });
    return { key, run };
  }

  async function answerCode(llmKey: string, entryPoint?: string): Promise<string | null> {
    const record = await readLlmRecordAt(bucket, llmKey);
    if (record === null) throw new Error(`LLM record ${llmKey} is missing`);
    if (record.status !== 'ok') return null;
    return extractCode({ api: 'chat', raw: record.text, ...(entryPoint ? { entryPoint } : {}) }).code;
  }

  return {
    /** Runs one exploration snippet (the code in a model's answer) as a program of its own. */
    async runSnippet(input: { libraryKey: string; llmKey: string; timeoutS: number; label: string }): Promise<SnippetRunResult> {
      const code = await answerCode(input.llmKey);
      if (code === null) return { ok: false, hasOutput: false, status: 'llm_error' };
      const library = await loadDatasetLibrary(bucket, input.libraryKey);
      const { key, run } = await runCached(library.library, { solution: code, rest: '' }, code, input.timeoutS, input.label);
      return { runKey: key, ok: run.ok, hasOutput: run.stdout.trim() !== '', status: run.status };
    },

    /** Runs a whole-solution answer on the task's visible examples only (self-repair's feedback). */
    async runVisible(input: {
      datasetKey: string;
      libraryKey: string;
      taskIndex: number;
      llmKey: string;
      timeoutS: number;
      label: string;
      check?: VisibleCheck;
    }): Promise<SnippetRunResult> {
      const problems = await loadProblems(bucket, input.datasetKey);
      const problem = problems[input.taskIndex];
      if (!problem) throw ApplicationFailure.nonRetryable(`task index ${input.taskIndex} is out of range`, 'InvalidTask');
      const code = await answerCode(input.llmKey, problem.entry_point);
      if (code === null) return { ok: false, hasOutput: false, status: 'llm_error' };
      const library = await loadDatasetLibrary(bucket, input.libraryKey);
      const parts = visibleTestProgram(problem, familyOf(problem).solution(problem, 'chat', code), input.check ?? 'outputs');
      const { key, run } = await runCached(library.library, parts, code, input.timeoutS, input.label);
      return { runKey: key, ok: run.ok, hasOutput: run.stdout.trim() !== '', status: run.status };
    },
  };
}

export type SnippetActivities = ReturnType<typeof createSnippetActivities>;
