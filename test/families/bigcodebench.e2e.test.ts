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
 * And rag and ExploraCoder on the pytz task with a small API-docs file of pytz: rag's prompt carries
 * the retrieved docs, ExploraCoder's exploration snippet imports pytz from the task's environment
 * (a copy of the sandbox's pytz in it), and each cell's pass@k is the script's.
 */
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bigCodeBenchChatMessage } from '../../domain/families/bigcodebench/prompt.js';
import { ExplorationTraceSchema } from '../../domain/report/trace.js';
import { cellTraceKey, sweepResultsKey } from '../../domain/sweep/keys.js';
import { getText } from '../../infra/s3.js';
import { resolveSandboxPython } from '../../infra/sandbox/python.js';
import { naturalLanguageOf } from '../../methods/exploracoder/requirement.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { classify, SEED, writeScriptedSweep, type Classified } from '../methods/support.js';
import { BCB_GT_FAILS, BCB_TASKS, bcbJsonl } from '../support/bigcodebench-rows.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { runTs, RUN_ENTRY } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { expectCellFilesAsStored, outputJson, sweepWithOutputDir } from '../support/sweep-output.js';

const run = promisify(execFile);
const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const PEER = path.join(PROJECT_ROOT, '.tools/test-python-bigcodebench');
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-bcb-'));
const rowsFile = path.join(dir, 'bigcodebench.jsonl');
const env = path.join(dir, 'env');

beforeAll(async () => {
  await run('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-bigcodebench.sh')], { timeout: 600_000 });
  writeFileSync(rowsFile, bcbJsonl(TASKS));
  // An environment with pytz's marker and no packages of its own: the sandbox's pytz answers the import.
  mkdirSync(path.join(env, 'explora-modules'), { recursive: true });
  mkdirSync(path.join(env, 'lib', 'python3.11', 'site-packages'), { recursive: true });
  writeFileSync(path.join(env, 'explora-modules', 'pytz'), '');
}, 600_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The tasks evaluate.ts scores: the four, and one whose ground truth fails. */
const TASKS = [...BCB_TASKS, BCB_GT_FAILS];
/** Each task's samples: its ground truth as BigCodeBench runs it, a right answer, a wrong one. */
const SAMPLES = TASKS.map((t) => ({
  task_id: t.row.task_id!,
  solutions: [`${t.row.complete_prompt}\n${t.row.canonical_solution}`, t.right, t.wrong],
}));

function peer(): Promise<{
  statuses: Record<string, string[]>;
  failed_tests: Record<string, string[][]>;
  pass_at_k: Record<string, number>;
  expected_time: Record<string, number | null>;
  gt_pass_rate: number;
  failed_tasks: string[];
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
        rows: TASKS.map((t) => t.row),
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
  const cacheDir = path.join(dir, 'cache');
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
      [
        RUN_ENTRY,
        'scripts/evaluate.ts',
        ...args,
        '--timeout-per-task',
        '1',
        '--bigcodebench-env',
        env,
        '--output-dir',
        outDir,
        '--cache-dir',
        cacheDir,
      ],
      {
        timeout: 300_000,
      },
    ),
    peer(),
  ]);
  const metrics = JSON.parse(ours.stdout.trim().split('\n').at(-1)!) as Record<string, number>;
  for (const k of ['pass@1', 'pass@2', 'pass@3']) expect(metrics[k], k).toBeCloseTo(theirs.pass_at_k[k]!, 12);
  // 3 of 4 wrong answers fail, the fourth runs forever: a timeout on both sides; the failing ground truth fails as a sample too.
  const gtFails = BCB_GT_FAILS.row.task_id!;
  expect(theirs.statuses).toEqual(
    Object.fromEntries(
      SAMPLES.map((s) => [
        s.task_id,
        [s.task_id === gtFails ? 'fail' : 'pass', 'pass', s.task_id === 'BigCodeBench/2' ? 'timeout' : 'fail'],
      ]),
    ),
  );
  // The ground truth ran once per task (15 samples, 5 runs, cached by content), each as trusted_check
  // runs it: a time where BigCodeBench has one, None where it has none.
  const stored = readdirSync(cacheDir).map(
    (f) => JSON.parse(readFileSync(path.join(cacheDir, f), 'utf8')) as { expected_time: number | null },
  );
  expect(stored).toHaveLength(TASKS.length);
  expect(stored.map((o) => o.expected_time === null).sort()).toEqual(
    Object.values(theirs.expected_time)
      .map((t) => t === null)
      .sort(),
  );
  expect(theirs.failed_tasks).toEqual([gtFails]);
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
  expect(passAtK).toMatchObject({ gt_pass_rate: theirs.gt_pass_rate, failed_tasks: theirs.failed_tasks });
  expect(results).toMatchObject({ scores: { ground_truth: { checked: true, pass_rate: 0.8, failed_tasks: [gtFails] } } });
  expect(readFileSync(path.join(outDir, 'pass_at_k.json'), 'utf8')).toBe(readFileSync(path.join(dir, 'samples_pass_at_k.json'), 'utf8'));
}, 300_000);

// The two sweeps only wait on their start-sweep.ts processes, each on task queues and files of its own: they run at
// once, after the evaluate.ts case (whose 1 s limits per task are bigcodebench's own, kept clear of their load).
describe.concurrent('a sweep of BigCodeBench tasks against a scripted chat server', () => {
  const { config, env: stackEnv } = testConfig();
  const bucket = testBucket(config);
  let server: ScriptedLlmServer;
  const messages: string[] = [];
  const SWEPT = BCB_TASKS.slice(0, 2);

  beforeAll(async () => {
    server = await startScriptedLlmServer((req) => {
      const user = (req.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'user')!.content;
      messages.push(user);
      const task = SWEPT.find((t) => user.includes(t.row.complete_prompt!.trim()));
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
    writeFileSync(file, bcbJsonl(SWEPT));
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
    expect(new Set(messages)).toEqual(new Set(SWEPT.map((t) => bigCodeBenchChatMessage('complete', t.row.complete_prompt!))));
    const [cell] = results.cells;
    expect(cell.passAtK['pass@1']).toBeCloseTo(1 / 2, 12);
    expect(cell.passAtK['pass@2']).toBeCloseTo(1, 12);
    await expectCellFilesAsStored(bucket, id, outDir, String(cell.cell.cell));
    // Each task's ground truth ran (once, cached in the bucket) and passed.
    expect(outputJson(outDir, String(cell.cell.cell), 'results.json')).toMatchObject({
      tasks: 2,
      samples: 4,
      'pass@1': 0.5,
      scores: { ground_truth: { checked: true, pass_rate: 1, failed_tasks: [] } },
    });
    // BigCodeBench's files in the cell's folder, the model named by its id.
    const statuses = outputJson(outDir, String(cell.cell.cell), 'eval_results.json') as { eval: Record<string, Array<{ status: string }>> };
    expect(Object.values(statuses.eval).map((list) => list.map((s) => s.status))).toEqual([
      ['pass', 'fail'],
      ['pass', 'fail'],
    ]);
    expect(outputJson(outDir, String(cell.cell.cell), 'pass_at_k.json')).toMatchObject({ 'pass@1': 0.5, 'pass@2': 1, model: 'chat' });
  }, 300_000);
});

describe.concurrent('rag and ExploraCoder on a task importing pytz, with API docs of pytz', () => {
  const { config, env: stackEnv } = testConfig();
  const bucket = testBucket(config);
  const task = BCB_TASKS[3]!;
  const prompt = task.row.complete_prompt!;
  const problem = {
    dataset: 'bcb-pytz',
    index: 0,
    task_id: task.row.task_id!,
    prompt,
    entry_point: 'task_func',
    canonical_solution: task.right,
    full: true,
    requirement: naturalLanguageOf(prompt),
  };
  const seen: Classified[] = [];
  const libDir = path.join(dir, 'methods');
  // An environment holding a copy of the sandbox's pytz: a module imported from it names this folder.
  const libEnv = path.join(libDir, 'env');
  const sitePackages = path.join(libEnv, 'lib', 'python3.11', 'site-packages');
  const DOCS = [
    ['pytz.timezone', 'timezone(zone)', 'Return the tzinfo of the named time zone (an IANA name such as America/New_York).'],
    [
      'pytz.tzinfo.DstTzInfo.localize',
      'localize(dt, is_dst=False)',
      "Attach this time zone to a naive datetime, with the offset in force at that date (not the zone's first, LMT, offset).",
    ],
    ['pytz.utc', 'utc', 'The UTC time zone.'],
    ['datetime.datetime.astimezone', 'astimezone(tz=None)', 'Convert an aware datetime to the time zone tz.'],
  ];
  // The exploration snippet: converts with the API, and says where pytz came from.
  const SNIPPET =
    "import pytz\nfrom datetime import datetime\nd = pytz.timezone('America/New_York').localize(datetime(2024, 1, 1, 12))\nprint(d.astimezone(pytz.utc).strftime('%Y-%m-%d %H:%M:%S'), pytz.__file__)";
  let server: ScriptedLlmServer;

  beforeAll(async () => {
    mkdirSync(path.join(libEnv, 'explora-modules'), { recursive: true });
    writeFileSync(path.join(libEnv, 'explora-modules', 'pytz'), '');
    const pytzDir = execFileSync(resolveSandboxPython(), ['-c', 'import os, pytz; print(os.path.dirname(pytz.__file__))'], {
      encoding: 'utf8',
    }).trim();
    cpSync(pytzDir, path.join(sitePackages, 'pytz'), { recursive: true });
    server = await startScriptedLlmServer((req) => {
      const c = classify(req, [problem]);
      seen.push(c);
      const fenced = (code: string) => `\`\`\`python\n${code}\n\`\`\`\n`;
      switch (c.role) {
        case 'plan':
          return { content: 'Plan:\n1. Localize a New York time with pytz and convert it to UTC.\n' };
        case 'rerank':
        case 'global':
          return { content: [...c.text.matchAll(/^\[\d+\] (\S+?):/gm)].map((m) => m[1]!).join('\n') };
        case 'explore':
          return { content: `The experiment:\n${fenced(SNIPPET)}` };
        case 'final':
          return { content: `Solution:\n${fenced(task.right)}` };
        case 'generate':
          // rag: sample 0 (seed SEED) wrong, sample 1 right.
          return { content: fenced(Number(req.body.seed) === SEED ? task.wrong : task.right) };
        default:
          return { content: 'not scripted' };
      }
    });
  });
  afterAll(async () => {
    await server.close();
    bucket.s3.destroy();
  });

  it("rag's prompt carries the docs; the snippet imports pytz from the environment; pass@k is the script's", async () => {
    const rows = path.join(libDir, 'rows.jsonl');
    writeFileSync(rows, bcbJsonl([task]));
    const docs = path.join(libDir, 'pytz-docs.jsonl');
    writeFileSync(
      docs,
      DOCS.map(
        ([import_path, signature, description]) =>
          JSON.stringify({ import_path, name: import_path!.split('.').pop(), signature, description }) + '\n',
      ).join(''),
    );
    const id = `bcb-methods-${uniqueSuffix()}`;
    const file = path.join(libDir, 'sweep.yaml');
    writeScriptedSweep(file, {
      id,
      datasets: [
        {
          name: 'bcb-pytz',
          family: 'bigcodebench',
          path: rows,
          environment: libEnv,
          timeout_per_task: 10,
          library: { api_docs: docs, name: 'pytz', summary: 'World time zones (the IANA database) for Python datetimes.' },
        },
      ],
      baseUrl: server.url,
      methods: ['rag', 'exploracoder'],
      methodOptions: { candidates: 1 },
      nSamples: 2,
      k: [1, 2],
    });
    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], stackEnv);
    expect(run.code, run.output).toBe(0);

    // rag's one prompt per sample carries the retrieved docs of pytz.
    const rag = seen.filter((c) => c.role === 'generate');
    expect(rag).toHaveLength(2);
    for (const c of rag) {
      for (const [importPath, , description] of DOCS) {
        expect(c.text).toContain(importPath!);
        expect(c.text).toContain(description!);
      }
    }

    // ExploraCoder's snippet ran in the sandbox with pytz from the environment, and the final request saw its output.
    const trace = ExplorationTraceSchema.parse(
      JSON.parse((await getText(bucket, cellTraceKey(id, 'bcb-pytz.chat.exploracoder.t0.8', 0)))!),
    );
    expect(trace.subtasks).toHaveLength(1);
    const [attempt] = trace.subtasks[0]!.attempts;
    expect(attempt).toMatchObject({ code: SNIPPET, status: 'passed', selected: true });
    expect(attempt!.stdout).toContain(`2024-01-01 17:00:00 ${path.join(sitePackages, 'pytz', '__init__.py')}`);
    for (const c of seen.filter((x) => x.role === 'final')) expect(c.text).toContain('2024-01-01 17:00:00');

    // rag: one of two samples right; ExploraCoder: both.
    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!) as {
      cells: Array<{ cell: { cell: string }; passAtK: Record<string, number> }>;
    };
    const passAtK = Object.fromEntries(results.cells.map((c) => [c.cell.cell, c.passAtK]));
    expect(passAtK).toEqual({
      'bcb-pytz.chat.rag.t0.8': { 'pass@1': 0.5, 'pass@2': 1 },
      'bcb-pytz.chat.exploracoder.t0.8': { 'pass@1': 1, 'pass@2': 1 },
    });
  }, 300_000);
});
