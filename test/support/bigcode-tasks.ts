/**
 * What the end-to-end files of bigcode's task families share (humanevalpack, repair): the tests'
 * Python installed once per file, a reference script of bigcode's code run on a JSON job,
 * scripts/evaluate.ts run with bigcode's flags on a rows file and {task_id, completion} samples, and
 * a scripted server (a completions model and a chat model) for the file's sweep, with the sweep's
 * report made and read back.
 */
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { RUN_ENTRY, runTs } from './processes.js';
import { startScriptedLlmServer, type Script, type ScriptedLlmServer } from './scripted-llm-server.js';

const run = promisify(execFile);
const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const jsonl = (rows: readonly unknown[]) => rows.map((r) => JSON.stringify(r) + '\n').join('');

/** Installs the tests' Python (a stamp check when it is there) before the file's tests. */
export function beforeAllTestPython(): void {
  beforeAll(() => {
    execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'inherit' });
  }, 600_000);
}

/** Runs a reference script (bigcode's code) in the tests' Python on one JSON job: its JSON answer. */
export function runReference<T>(script: string, job: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = execFile(PYTHON, [script], { maxBuffer: 1 << 26, timeout: 300_000 }, (error, stdout) =>
      error ? reject(new Error(`${path.basename(script)}: ${error.message}`)) : resolve(JSON.parse(stdout) as T),
    );
    child.stdin!.end(JSON.stringify(job));
  });
}

export interface EvaluatedSample {
  task_id: string;
  completion: string;
  passed: boolean;
  result: string;
}

/**
 * scripts/evaluate.ts on a rows file and {task_id, completion} samples (written to `<dir>/<name>...`),
 * with `args` and bigcode's --metric_output_path: its metrics line, every sample's line of
 * --output-dir's samples.jsonl, its stderr, the folder and bigcode's evaluation_results.json.
 */
export async function evaluateWithBigcodeFlags(dir: string, name: string, rows: string, samples: readonly unknown[], args: string[]) {
  const rowsFile = path.join(dir, `${name}.jsonl`);
  const samplesFile = path.join(dir, `${name}-samples.jsonl`);
  const out = path.join(dir, `${name}-out`);
  const metricFile = path.join(dir, `${name}-evaluation_results.json`);
  writeFileSync(rowsFile, rows);
  writeFileSync(samplesFile, jsonl(samples));
  const { stdout, stderr } = await run(
    process.execPath,
    [
      ...[RUN_ENTRY, 'scripts/evaluate.ts', '--problems', rowsFile, '--samples', samplesFile, '--output-dir', out, ...args],
      // bigcode's metric file, which --tasks writes (by default in the working directory).
      ...['--metric_output_path', metricFile],
    ],
    { timeout: 300_000 },
  );
  const lines = readFileSync(path.join(out, 'samples.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as EvaluatedSample);
  const bigcodeFile = JSON.parse(readFileSync(metricFile, 'utf8')) as Record<string, unknown>;
  return { metrics: JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, number>, lines, stderr, out, bigcodeFile };
}

/** A scripted server answering with `script`, started before the suite's tests and closed after them. */
export function scriptedServerForSuite(script: Script): { readonly url: string } {
  let server: ScriptedLlmServer | undefined;
  beforeAll(async () => {
    server = await startScriptedLlmServer(script);
  });
  afterAll(async () => {
    await server?.close();
  });
  return {
    get url() {
      if (!server) throw new Error('the scripted server has not started (use its url inside a test)');
      return server.url;
    },
  };
}

/** The user's message of a chat request, where a scripted chat model finds the prompt it answers. */
export const userMessage = (body: Record<string, unknown>): string =>
  (body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'user')!.content;

/** scripts/report.ts on a sweep, into `dir`: the report's HTML (its exit is checked by the caller's expect). */
export async function sweepReportHtml(id: string, dir: string, env: Record<string, string>) {
  const report = await runTs('scripts/report.ts', [id, '--out', dir], env);
  return { ...report, html: report.code === 0 ? readFileSync(path.join(dir, `report-${id}.html`), 'utf8') : '' };
}
