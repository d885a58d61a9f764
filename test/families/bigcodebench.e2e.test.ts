/**
 * BigCodeBench end to end. scripts/evaluate.ts (`--tasks bigcodebench-complete-hard`) on four tasks in
 * Hugging Face's format (test/support/bigcodebench-rows.ts), each with its canonical solution, a
 * right and a wrong answer; one wrong answer runs forever, one task imports pytz (run with a test
 * environment: markers only, pytz being the sandbox's own): every sample's status (pass, fail,
 * timeout) and pass@k are what bigcodebench's own untrusted_check and estimate_pass_at_k give on
 * the same rows and samples (test/families/bigcodebench_reference.py), with the per-task limit
 * made 1 s on both sides, and BigCodeBench's own eval_results.json and pass_at_k.json beside the
 * samples say the same. And a sweep through Temporal against a scripted chat server: the message
 * the model gets is BigCodeBench's, and the cell's pass@1 and files (its BigCodeBench files too) are the samples'.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bigCodeBenchChatMessage } from '../../domain/families/bigcodebench/prompt.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { BCB_TASKS, bcbJsonl } from '../support/bigcodebench-rows.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { expectCellFilesAsStored, outputJson, sweepWithOutputDir } from '../support/sweep-output.js';
import { RUN_ENTRY } from '../support/processes.js';

const run = promisify(execFile);
const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const PEER = path.join(PROJECT_ROOT, '.tools/test-python-bigcodebench');
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-bcb-'));
const rowsFile = path.join(dir, 'bigcodebench.jsonl');
const env = path.join(dir, 'env');

beforeAll(async () => {
  await run('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-bigcodebench.sh')], { timeout: 600_000 });
  writeFileSync(rowsFile, bcbJsonl(BCB_TASKS));
  // An environment with pytz's marker and no packages of its own: the sandbox's pytz answers the import.
  mkdirSync(path.join(env, 'explora-modules'), { recursive: true });
  mkdirSync(path.join(env, 'lib', 'python3.11', 'site-packages'), { recursive: true });
  writeFileSync(path.join(env, 'explora-modules', 'pytz'), '');
}, 600_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Each task's samples: its ground truth as BigCodeBench runs it, a right answer, a wrong one. */
const SAMPLES = BCB_TASKS.map((t) => ({
  task_id: t.row.task_id!,
  solutions: [`${t.row.complete_prompt}\n${t.row.canonical_solution}`, t.right, t.wrong],
}));

function peer(): Promise<{
  statuses: Record<string, string[]>;
  failed_tests: Record<string, string[][]>;
  pass_at_k: Record<string, number>;
}> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      PYTHON,
      [path.resolve(import.meta.dirname, 'bigcodebench_reference.py')],
      { env: { ...process.env, PYTHONPATH: PEER }, timeout: 300_000 },
      (error, stdout) => (error ? reject(new Error(error.message)) : resolve(JSON.parse(stdout.trim().split('\n').at(-1)!))),
    );
    child.stdin!.end(
      JSON.stringify({
        rows: BCB_TASKS.map((t) => t.row),
        samples: Object.fromEntries(SAMPLES.map((s) => [s.task_id, s.solutions])),
        k: [1, 2, 3],
        timeout_per_task: 1,
        calibrated: true,
      }),
    );
  });
}

it("evaluate.ts: each sample's pass, fail or timeout and pass@k are bigcodebench's own", async () => {
  const samplesFile = path.join(dir, 'samples.jsonl');
  writeFileSync(
    samplesFile,
    SAMPLES.flatMap((s) => s.solutions.map((solution) => JSON.stringify({ task_id: s.task_id, solution }) + '\n')).join(''),
  );
  const outDir = path.join(dir, 'evaluated');
  const args = [
    '--problems',
    rowsFile,
    '--samples',
    samplesFile,
    '--tasks',
    'bigcodebench-complete-hard',
    '--k',
    '1,2,3',
    '--metric_output_path',
    path.join(dir, 'evaluation_results.json'),
  ];
  const [ours, theirs] = await Promise.all([
    run(
      process.execPath,
      [RUN_ENTRY, 'scripts/evaluate.ts', ...args, '--timeout-per-task', '1', '--bigcodebench-env', env, '--output-dir', outDir],
      {
        timeout: 300_000,
      },
    ),
    peer(),
  ]);
  const metrics = JSON.parse(ours.stdout.trim().split('\n').at(-1)!) as Record<string, number>;
  for (const k of ['pass@1', 'pass@2', 'pass@3']) expect(metrics[k], k).toBeCloseTo(theirs.pass_at_k[k]!, 12);
  // 3 of 4 wrong answers fail, the fourth runs forever: a timeout on both sides.
  expect(theirs.statuses).toEqual(
    Object.fromEntries(SAMPLES.map((s) => [s.task_id, ['pass', 'pass', s.task_id === 'BigCodeBench/2' ? 'timeout' : 'fail']])),
  );
  const rows = readFileSync(`${samplesFile}_results.jsonl`, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { task_id: string; result: string });
  const status = (result: string) => (result === 'passed' ? 'pass' : result === 'timed out' ? 'timeout' : 'fail');
  const byTask: Record<string, string[]> = {};
  for (const row of rows) (byTask[row.task_id] ??= []).push(status(row.result));
  expect(byTask).toEqual(theirs.statuses);
  // bigcodebench-complete-hard: the cell says the subset its numbers are for (the defaults, complete and calibrated, add nothing).
  const results = JSON.parse(readFileSync(path.join(outDir, 'results.json'), 'utf8')) as Record<string, unknown>;
  expect(results).toMatchObject({ subset: 'hard' });
  expect(results).not.toHaveProperty('split');
  // BigCodeBench's own files beside the samples, as its evaluate.py names them: each sample's verdict and failed tests its own.
  const evalResults = JSON.parse(readFileSync(path.join(dir, 'samples_eval_results.json'), 'utf8')) as {
    eval: Record<string, Array<{ status: string; details: Record<string, string> }>>;
  };
  const ofEach = <T>(f: (s: { status: string; details: Record<string, string> }) => T) =>
    Object.fromEntries(Object.entries(evalResults.eval).map(([task, list]) => [task, list.map(f)]));
  expect(ofEach((s) => s.status)).toEqual(theirs.statuses);
  expect(ofEach((s) => Object.keys(s.details).sort())).toEqual(theirs.failed_tests);
  const passAtK = JSON.parse(readFileSync(path.join(dir, 'samples_pass_at_k.json'), 'utf8')) as Record<string, unknown>;
  for (const k of ['pass@1', 'pass@2', 'pass@3']) expect(passAtK[k], k).toBeCloseTo(theirs.pass_at_k[k]!, 12);
  expect(passAtK).toMatchObject({ model: 'samples.jsonl', split: 'complete', subset: 'hard', calibrated: true });
  expect(readFileSync(path.join(outDir, 'pass_at_k.json'), 'utf8')).toBe(readFileSync(path.join(dir, 'samples_pass_at_k.json'), 'utf8'));
}, 300_000);

describe('a sweep of BigCodeBench tasks against a scripted chat server', () => {
  const { config, env: stackEnv } = testConfig();
  const bucket = testBucket(config);
  let server: ScriptedLlmServer;
  const messages: string[] = [];
  const TASKS = BCB_TASKS.slice(0, 2);

  beforeAll(async () => {
    server = await startScriptedLlmServer((req) => {
      const user = (req.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'user')!.content;
      messages.push(user);
      const task = TASKS.find((t) => user.includes(t.row.complete_prompt!.trim()));
      if (!task) return { content: 'no task' };
      // Sample i (seed i): the right answer first, then the wrong one.
      const code = Number(req.body.seed ?? 0) % 2 === 0 ? task.right : task.wrong;
      return { content: `Here it is:\n\`\`\`python\n${code}\`\`\`\n` };
    });
  });
  afterAll(async () => {
    await server.close();
    bucket.s3.destroy();
  });

  it("the model gets BigCodeBench's message; the cell's pass@1 is the samples'", async () => {
    const file = path.join(dir, 'sweep-rows.jsonl');
    writeFileSync(file, bcbJsonl(TASKS));
    const id = `bcb-${uniqueSuffix()}`;
    const { outDir, results } = await sweepWithOutputDir({
      dir,
      id,
      env: stackEnv,
      bucket,
      yaml: `id: ${id}
datasets:
  - name: bcb-complete
    family: bigcodebench
    path: ${file}
models:
  - id: chat
    base_url: ${server.url}
    model: scripted-chat
methods: [direct]
temperatures: [0.2]
n_samples: 2
k: [1, 2]
`,
    });
    expect(new Set(messages)).toEqual(new Set(TASKS.map((t) => bigCodeBenchChatMessage('complete', t.row.complete_prompt!))));
    const [cell] = results.cells;
    expect(cell.passAtK['pass@1']).toBeCloseTo(1 / 2, 12);
    expect(cell.passAtK['pass@2']).toBeCloseTo(1, 12);
    await expectCellFilesAsStored(bucket, id, outDir, String(cell.cell.cell));
    expect(outputJson(outDir, String(cell.cell.cell), 'results.json')).toMatchObject({ tasks: 2, samples: 4, 'pass@1': 0.5 });
    // BigCodeBench's files in the cell's folder, the model named by its id.
    const statuses = outputJson(outDir, String(cell.cell.cell), 'eval_results.json') as { eval: Record<string, Array<{ status: string }>> };
    expect(Object.values(statuses.eval).map((list) => list.map((s) => s.status))).toEqual([
      ['pass', 'fail'],
      ['pass', 'fail'],
    ]);
    expect(outputJson(outDir, String(cell.cell.cell), 'pass_at_k.json')).toMatchObject({ 'pass@1': 0.5, 'pass@2': 1, model: 'chat' });
  }, 300_000);
});
