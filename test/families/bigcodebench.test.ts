/**
 * BigCodeBench through the bigcodebench family, on rows in Hugging Face's bigcode/bigcodebench
 * format (test/support/bigcodebench-rows.ts), against bigcodebench's own code
 * (test/families/bigcodebench_reference.py, its package in the tests' venv): the chat messages of
 * both splits, the base models' stop words, the standard library the family needs no environment
 * for. And what the family decides alone: the rows it refuses, the options of its task names, the
 * libraries it refuses tasks by (the environment's markers), its verdicts. Outcomes in the sandbox,
 * against bigcodebench's untrusted_check: bigcodebench.e2e.test.ts.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bigCodeBenchFamily as family, BigCodeBenchEntrySchema } from '../../domain/families/bigcodebench/index.js';
import {
  BIGCODEBENCH_ENVIRON,
  DETAILS_MARK,
  detailsOf,
  GROUND_TRUTH_MARK,
  VERDICT_MARK,
} from '../../domain/families/bigcodebench/harness.js';
import { BIGCODEBENCH_SCORES, bigCodeBenchPeerFiles } from '../../domain/families/bigcodebench/scores.js';
import { BIGCODEBENCH_STOP_WORDS, parseLibs, PYTHON_STDLIB } from '../../domain/families/bigcodebench/prompt.js';
import { bigcodeTask } from '../../domain/families/registry.js';
import { chatMessagesOf } from '../../domain/methods/promptTemplate.js';
import { chatUserMessage } from '../../methods/direct/request.js';
import { parseSweepConfig } from '../../domain/sweep/config.js';
import { scoreFields } from '../../domain/sweep/records.js';
import { requirementsProblem } from '../../scripts/lib/requirements.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { BCB_GT_FAILS, BCB_TASKS, bcbJsonl } from '../support/bigcodebench-rows.js';
import { RUN_ENTRY } from '../support/processes.js';

const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const PEER = path.join(PROJECT_ROOT, '.tools/test-python-bigcodebench');
const SCRIPT = path.resolve(import.meta.dirname, 'bigcodebench_reference.py');
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-bcb-unit-'));

const load = (options: Record<string, unknown> = {}, text = bcbJsonl(BCB_TASKS)) =>
  family.load({
    entry: BigCodeBenchEntrySchema.parse({ name: 'bcb', family: 'bigcodebench', path: 'b.jsonl', ...options }),
    texts: { rows: text },
    sources: { rows: 'b.jsonl' },
  }).problems;

let peer: { messages: { complete: string[]; instruct: string[] }; prefix: string; stop: string[]; stdlib: string[] };
beforeAll(() => {
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-bigcodebench.sh')], { stdio: 'inherit' });
  const out = execFileSync(PYTHON, [SCRIPT], {
    input: JSON.stringify({ mode: 'prompts', rows: BCB_TASKS.map((t) => t.row) }),
    env: { ...process.env, PYTHONPATH: PEER },
  });
  peer = JSON.parse(out.toString()) as typeof peer;
}, 600_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("bigcodebench's prompts", () => {
  it.each(['complete', 'instruct'] as const)("the %s split: direct sends make_raw_chat_prompt's message, as is", (split) => {
    const problems = load({ split });
    expect(problems.map((p) => chatUserMessage(p))).toEqual(peer.messages[split]);
    expect(problems.map((p) => family.chatInstruction(p))).toEqual(problems.map(() => peer.prefix));
    // A template's instruction takes the message back to the instruction and the fenced prompt.
    expect(chatUserMessage(problems[0]!, { instruction: 'Solve it.' })).toBe(`Solve it.\n\n\`\`\`python\n${problems[0]!.prompt}\`\`\`\n`);
  });

  it("sends no system message, as its gen/util/openai_request.py sends the user's alone; a model's prompt.system adds one", () => {
    const [problem] = load();
    const user = chatUserMessage(problem!);
    expect(chatMessagesOf(problem!, user)).toEqual([{ role: 'user', content: peer.messages.complete[0] }]);
    expect(chatMessagesOf(problem!, user, { system: 'Be brief.' })).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: user },
    ]);
  });

  it("base models stop at its EOS and extra_eos_for_direct_completion('bigcodebench'); complete_prompt is continued", () => {
    const entry = BigCodeBenchEntrySchema.parse({ name: 'bcb', family: 'bigcodebench', path: 'b.jsonl' });
    expect(family.stopWords(entry)).toEqual(peer.stop);
    expect(BIGCODEBENCH_STOP_WORDS).toEqual(peer.stop);
    const [problem] = load();
    expect(family.completionPrompt(problem!)).toBe(BCB_TASKS[0]!.row.complete_prompt);
    expect(family.solution(problem!, 'completions', '    return 1\n')).toBe(`${BCB_TASKS[0]!.row.complete_prompt}    return 1\n`);
    expect(family.solution(problem!, 'saved', 'def task_func(): pass\n')).toBe('def task_func(): pass\n');
  });

  it("its libraries outside the standard library are those not in the interpreter's sys.stdlib_module_names", () => {
    expect([...PYTHON_STDLIB].sort()).toEqual(peer.stdlib);
  });
});

describe('rows and options', () => {
  it("reads libs as Hugging Face's text of a Python list, or a list; refuses what is neither", () => {
    expect(parseLibs("['pandas', 'random']")).toEqual(['pandas', 'random']);
    expect(parseLibs('["a"]')).toEqual(['a']);
    expect(parseLibs('[]')).toEqual([]);
    expect(parseLibs(['x'])).toEqual(['x']);
    expect(parseLibs('pandas')).toBeNull();
    expect(parseLibs("['a' 'b']")).toBeNull();
    const bad = bcbJsonl([{ ...BCB_TASKS[0]!, row: { ...BCB_TASKS[0]!.row, libs: 'numpy' } }]);
    expect(() => load({}, bad)).toThrow('b.jsonl:1: libs: must be a list of module names');
    const noTests = bcbJsonl([{ ...BCB_TASKS[0]!, row: { ...BCB_TASKS[0]!.row, test: 'def check(): pass' } }]);
    expect(() => load({}, noTests)).toThrow(/b\.jsonl:1.*test.*TestCases/);
    expect(() => load({ environment: 'relative/env' })).toThrow('an absolute path (the sandbox mounts the environment there)');
  });

  it("evaluate.ts's results.json names the ground truth's settings when not the defaults", () => {
    const support = family.evaluate;
    if (support.kind !== 'reads') throw new Error('bigcodebench reads problems files');
    const cell = (options: Record<string, unknown>) =>
      (support.problems({ text: bcbJsonl(BCB_TASKS.slice(0, 1)), source: 'b.jsonl', options }) as { cell: unknown }).cell;
    expect(cell({})).toEqual({});
    expect(cell({ no_gt: true, min_time_limit: 2 })).toEqual({ min_time_limit: 2, no_gt: true });
  });

  it("bigcodebench's task names set the split and the subset", () => {
    expect(bigcodeTask('bigcodebench-complete')).toMatchObject({ family: 'bigcodebench', options: { split: 'complete' } });
    expect(bigcodeTask('bigcodebench-instruct-hard')).toMatchObject({
      family: 'bigcodebench',
      options: { split: 'instruct', subset: 'hard' },
    });
    expect(bigcodeTask('bigcodebench-hard')).toBeUndefined();
  });

  it('calibrates the solution with the code_prompt and a pass body, unless calibrated is false; the reference is complete_prompt and the canonical solution', () => {
    const [calibrated] = load();
    const [plain] = load({ calibrated: false });
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    expect(family.embedSolution(calibrated!, 'X\n')).toContain(b64(`${BCB_TASKS[0]!.row.code_prompt}\n    pass\nX\n`));
    expect(family.embedSolution(plain!, 'X\n')).toContain(b64('X\n'));
    expect(family.referenceSolution(calibrated!)).toBe(`${BCB_TASKS[0]!.row.complete_prompt}\n${BCB_TASKS[0]!.row.canonical_solution}`);
  });

  it("gives each run BigCodeBench's limits: the suite TIMEOUT_LIMIT + 1 s, the process one more, 30 GiB", () => {
    const [problem] = load({ timeout_per_task: 5 });
    const measured = JSON.stringify({ expected_time: 0.25 });
    expect(family.limits(problem!, measured, 3000)).toMatchObject({ timeoutMs: 7000, memoryBytes: 30 * 1024 ** 3 });
    expect(family.tests(problem!, measured)).toContain('_BCB_TIMEOUT = 6\n');
    expect(family.limits(load()[0]!, measured, 3000)).toMatchObject({ timeoutMs: 242_000 });
  });
});

describe("the ground truth's time and each task's limit, as evaluate() derives them", () => {
  // [timeout_per_task, min_time_limit, the ground truth's time (null: it failed)]
  const CASES: Array<[number, number, number | null]> = [
    [240, 1, null],
    [240, 1, 0.01],
    [1, 1, 0.05],
    [1, 1, null],
    [1, 1, 0],
    [2, 0.5, 0.3],
    [5, 30, 2.5],
    [5, 1, 12.75],
    [300, 1, 400.25],
  ];
  let theirs: Array<{ sample: { suite: number; join: number }; ground_truth: { process: number; join: number } }>;
  beforeAll(() => {
    const out = execFileSync(PYTHON, [SCRIPT], {
      input: JSON.stringify({ mode: 'limits', cases: CASES }),
      env: { ...process.env, PYTHONPATH: PEER },
    });
    theirs = JSON.parse(out.toString()) as typeof theirs;
  }, 120_000);

  it("a sample's suite gets untrusted_check's timeout and its process p.join's, from the task's ground-truth time (20 s without one)", () => {
    const ours = CASES.map(([timeout_per_task, min_time_limit, time]) => {
      const [problem] = load({ timeout_per_task, min_time_limit });
      const reference = JSON.stringify({ expected_time: time });
      const suite = Number(/_BCB_TIMEOUT = ([\d.]+)\n/.exec(family.tests(problem!, reference))![1]);
      return { suite, join: family.limits(problem!, reference, 3000).timeoutMs! / 1000 };
    });
    expect(ours).toEqual(theirs.map((t) => t.sample));
  });

  it("the ground truth runs once per task, with trusted_check's limits, the program complete_prompt + canonical_solution and the test", () => {
    const ours = CASES.map(([timeout_per_task, min_time_limit]) => {
      const checking = family.checking(load({ timeout_per_task, min_time_limit })[0]!);
      if (checking.kind !== 'reference-outputs') throw new Error(`checking ${checking.kind}`);
      expect(checking.program).toContain(`_BCB_TIMEOUT = ${JSON.stringify(timeout_per_task)}\n_BCB_TRUSTED = True`);
      return { process: checking.limits.timeoutMs! / 1000 - 1, join: checking.limits.timeoutMs! / 1000 };
    });
    expect(ours).toEqual(theirs.map((t) => t.ground_truth));
    const [problem] = load();
    const checking = family.checking(problem!) as Extract<ReturnType<typeof family.checking>, { kind: 'reference-outputs' }>;
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    expect(checking.program).toContain(b64(`${BCB_TASKS[0]!.row.complete_prompt}\n${BCB_TASKS[0]!.row.canonical_solution}`));
    expect(checking.program).toContain(b64(BCB_TASKS[0]!.row.test!));
    // Cached by what the time depends on: the same for every sample (and sweep), another with other limits or rows.
    expect((family.checking(load()[0]!) as typeof checking).cacheKey).toBe(checking.cacheKey);
    expect((family.checking(load({ min_time_limit: 2 })[0]!) as typeof checking).cacheKey).not.toBe(checking.cacheKey);
    expect((family.checking(load({ environment: '/env' })[0]!) as typeof checking).cacheKey).not.toBe(checking.cacheKey);
  });

  it('reads the time the run printed; none, or null, is a failed ground truth (None), never an error', () => {
    const [problem] = load();
    const checking = family.checking(problem!) as Extract<ReturnType<typeof family.checking>, { kind: 'reference-outputs' }>;
    const parse = (status: 'passed' | 'failed' | 'timeout', stdout: string) =>
      checking.parse({ status, stdout, stderr: '', durationMs: 1, exitCode: 0, signal: null } as never);
    expect(parse('passed', `noise\n${GROUND_TRUTH_MARK} 0.125\n`)).toEqual({ ok: true, outputs: '{"expected_time":0.125}' });
    expect(parse('passed', `${GROUND_TRUTH_MARK} null\n`)).toEqual({ ok: true, outputs: '{"expected_time":null}' });
    expect(parse('timeout', '')).toEqual({ ok: true, outputs: '{"expected_time":null}' });
    expect(parse('failed', `${GROUND_TRUTH_MARK} 1.5\n${GROUND_TRUTH_MARK} null\n`)).toEqual({
      ok: true,
      outputs: '{"expected_time":null}',
    });
  });

  it('no_gt runs none: the tests alone, 20 s for the time, and the records say nothing of it', () => {
    const [problem] = load({ no_gt: true, timeout_per_task: 1 });
    expect(family.checking(problem!)).toEqual({ kind: 'tests' });
    expect(family.limits(problem!, null, 3000)).toMatchObject({ timeoutMs: 22_000 });
    expect(family.score(problem!, { status: 'passed', stdout: `${VERDICT_MARK} pass\n` }, null)).not.toHaveProperty('gt_passed');
    const [checked] = load({ timeout_per_task: 1 });
    expect(family.score(checked!, { status: 'passed', stdout: `${VERDICT_MARK} pass\n` }, '{"expected_time":0.5}')).toMatchObject({
      gt_passed: true,
    });
    // A time of 0 passed (gt_pass_rate counts `v is not None`), though its limit takes 20 s (`if expected_time[task_id]`).
    const score = (reference: string) => family.score(checked!, { status: 'passed', stdout: `${VERDICT_MARK} pass\n` }, reference);
    expect(score('{"expected_time":0}')).toMatchObject({ gt_passed: true });
    expect(family.limits(checked!, '{"expected_time":0}', 3000)).toMatchObject({ timeoutMs: 22_000 });
    expect(score('{"expected_time":null}')).toMatchObject({ gt_passed: false });
  });
});

describe("verdicts: BigCodeBench's pass, fail and timeout", () => {
  const [problem] = load();
  const score = (status: 'passed' | 'failed' | 'error' | 'timeout', stdout: string) => family.score(problem!, { status, stdout });
  it.each([
    ['a pass that ran to its end', 'passed', `\n${VERDICT_MARK} pass\n`, true],
    ['a fail', 'failed', `\n${VERDICT_MARK} fail\n`, false],
    ["a forged pass before the harness's fail", 'failed', `${VERDICT_MARK} pass\n\n${VERDICT_MARK} fail\n`, false],
    ['a pass line from a run that ended otherwise (os._exit)', 'error', `${VERDICT_MARK} pass\n`, false],
    ['a timeout', 'timeout', '', false],
  ] as const)('%s', (_what, status, stdout, passed) => {
    expect(score(status, stdout).passed).toBe(passed);
  });
  it('a run that ended well without a verdict is a timeout, as BigCodeBench counts a check that set none', () => {
    expect(score('passed', '')).toMatchObject({ passed: false, failure: { type: 'Timeout' } });
  });
});

describe('libraries beyond the standard library', () => {
  const datasets = (problems: ReturnType<typeof load>) => [{ name: 'bcb', family: 'bigcodebench', problems }];
  const requirementsOf = (p: ReturnType<typeof load>[number]) => family.requirements(p);

  it('standard-library tasks need nothing', () => {
    expect(load().slice(0, 3).flatMap(requirementsOf)).toEqual([]);
  });

  it('a task importing pytz is refused by that name without an environment, and with one that lacks it; runs with its marker', () => {
    const pytz = load().slice(3);
    const refused = requirementsProblem(datasets(pytz), requirementsOf);
    expect(refused).toContain('1 BigCodeBench (pytz) task(s) need the file /bigcodebench-environment-not-given/explora-modules/pytz');
    expect(refused).toContain('`npm run setup -- --bigcodebench` makes .tools/bigcodebench-python');

    const env = path.join(dir, 'env');
    mkdirSync(path.join(env, 'explora-modules'), { recursive: true });
    const withEnv = load({ environment: env }).slice(3);
    expect(requirementsProblem(datasets(withEnv), requirementsOf)).toContain(`else it lacks pytz`);
    writeFileSync(path.join(env, 'explora-modules', 'pytz'), '');
    expect(requirementsProblem(datasets(withEnv), requirementsOf)).toBeNull();
    // The sandbox mounts the environment for them, and the harness puts its site-packages first.
    expect(family.requirements(withEnv[0]!)).toEqual([expect.objectContaining({ kind: 'file', readableDir: env })]);
    expect(family.tests(withEnv[0]!, null)).toContain(`_BCB_ENVIRONMENT = ${JSON.stringify(env)}`);
  });

  it("the methods' own runs (exploration snippets) get the environment the scoring mounts, with BigCodeBench's memory limit", () => {
    const docs = JSON.stringify({ import_path: 'pytz.timezone', name: 'timezone', signature: 'timezone(zone)', description: 'A zone.' });
    const libraryOf = (options: Record<string, unknown>, tasks = BCB_TASKS) =>
      family.load({
        entry: BigCodeBenchEntrySchema.parse({
          name: 'bcb',
          family: 'bigcodebench',
          path: 'b.jsonl',
          library: { api_docs: 'docs.jsonl', name: 'pytz', summary: 'Time zones.' },
          ...options,
        }),
        texts: { rows: bcbJsonl(tasks), api_docs: docs },
        sources: { rows: 'b.jsonl', api_docs: 'docs.jsonl' },
      }).library!.library;
    const env = path.join(dir, 'env');
    expect(libraryOf({ environment: env }).sandbox).toEqual({
      python_environment: {
        path: env,
        environ: { TZ: 'UTC', OMP_NUM_THREADS: '1', TF_CPP_MIN_LOG_LEVEL: '3', TF_ENABLE_ONEDNN_OPTS: '0' },
      },
      memory_bytes: 30 * 1024 ** 3,
    });
    // The variables are those the scoring's harness sets.
    const harness = family.tests(load({ environment: env })[3]!, null);
    for (const [name, value] of Object.entries(BIGCODEBENCH_ENVIRON)) expect(harness).toContain(`os.environ["${name}"] = "${value}"`);
    // The scoring mounts nothing for standard-library tasks, nor without an environment (then the pytz task is refused).
    expect(libraryOf({ environment: env }, BCB_TASKS.slice(0, 3)).sandbox).toBeUndefined();
    expect(libraryOf({}).sandbox).toBeUndefined();
  });

  it("the environment is by default where setup installs it: the loading machine's tools folder", () => {
    const [problem] = family.load({
      entry: BigCodeBenchEntrySchema.parse({ name: 'bcb', family: 'bigcodebench', path: 'b.jsonl' }),
      texts: { rows: bcbJsonl(BCB_TASKS.slice(3)) },
      sources: { rows: 'b.jsonl' },
      tools: '/machine/tools/',
    }).problems;
    expect(family.tests(problem!, null)).toContain('_BCB_ENVIRONMENT = "/machine/tools/bigcodebench-python"');
    expect(family.requirements(problem!)).toEqual([
      expect.objectContaining({
        path: '/machine/tools/bigcodebench-python/explora-modules/pytz',
        readableDir: '/machine/tools/bigcodebench-python',
      }),
    ]);
    // One named in the entry wins.
    const named = family.load({
      entry: BigCodeBenchEntrySchema.parse({ name: 'bcb', family: 'bigcodebench', path: 'b.jsonl', environment: '/env' }),
      texts: { rows: bcbJsonl(BCB_TASKS.slice(3)) },
      sources: { rows: 'b.jsonl' },
      tools: '/machine/tools',
    }).problems;
    expect(family.requirements(named[0]!)).toEqual([expect.objectContaining({ readableDir: '/env' })]);
  });

  it('evaluate.ts without an environment where setup puts it refuses the pytz task before anything runs, naming the set-up command', async () => {
    // A tools folder without the environment (the sandbox's Python falls back to python3).
    const tools = path.join(dir, 'tools-without-bcb');
    mkdirSync(tools, { recursive: true });
    const rows = path.join(dir, 'pytz-rows.jsonl');
    writeFileSync(rows, bcbJsonl(BCB_TASKS.slice(3)));
    const samples = path.join(dir, 'pytz-samples.jsonl');
    writeFileSync(samples, JSON.stringify({ task_id: BCB_TASKS[3]!.row.task_id, solution: BCB_TASKS[3]!.right }) + '\n');
    const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [
          RUN_ENTRY,
          path.join(PROJECT_ROOT, 'scripts/evaluate.ts'),
          '--problems',
          rows,
          '--samples',
          samples,
          '--tasks',
          'bigcodebench-complete',
        ],
        { cwd: PROJECT_ROOT, timeout: 120_000, env: { ...process.env, EXPLORA_TOOLS_DIR: tools } },
        (error, _stdout, err) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stderr: err }),
      ),
    );
    expect(code, stderr).toBe(2);
    expect(stderr).toContain(`1 BigCodeBench (pytz) task(s) need the file ${tools}/bigcodebench-python/explora-modules/pytz`);
    expect(stderr).toContain(`the BigCodeBench environment ${tools}/bigcodebench-python`);
    expect(stderr).toContain('when it is missing, install it with `npm run setup -- --bigcodebench`');
    expect(stderr).not.toContain('evaluate: running');
    expect(existsSync(`${samples}_results.jsonl`)).toBe(false);
  }, 120_000);
});

describe("BigCodeBench's own files: eval_results.json and pass_at_k.json", () => {
  // Task 0 with a right answer, a wrong one, one that does not compile and one whose failure reads
  // outside ASCII; task 1 with three: pass@4 is left out, a task having 3 samples only; a task whose
  // ground truth fails, scored all the same. (No timeout here; the e2e test has one.) evaluate.py
  // runs the ground truth (not --no_gt): pass_at_k.json's gt_pass_rate and failed_tasks.
  const tasks = [...BCB_TASKS.slice(0, 2), BCB_GT_FAILS];
  const solutions = [
    [tasks[0]!.right, tasks[0]!.wrong, 'def task_func(:\n', 'def task_func(words, n=2):\n    return "café ✓ \u{1F600}"\n'],
    [tasks[1]!.right, tasks[1]!.wrong, tasks[1]!.right],
    [tasks[2]!.wrong, tasks[2]!.right, tasks[2]!.right],
  ];
  const samplesFile = path.join(dir, 'model-x--bigcodebench-hard-complete--openai-0-4-sanitized_calibrated.jsonl');
  const k = [1, 3, 4];
  let theirs: { eval_results: string; pass_at_k: string };
  beforeAll(() => {
    writeFileSync(
      samplesFile,
      solutions.flatMap((list, t) => list.map((solution) => JSON.stringify({ task_id: tasks[t]!.row.task_id, solution }) + '\n')).join(''),
    );
    const input = {
      mode: 'files',
      rows: tasks.map((t) => t.row),
      samples_file: samplesFile,
      split: 'complete',
      subset: 'hard',
      k,
      calibrated: true,
      timeout_per_task: 1,
      no_gt: false,
    };
    const out = execFileSync(PYTHON, [SCRIPT], {
      input: JSON.stringify(input),
      env: { ...process.env, PYTHONPATH: PEER },
      timeout: 300_000,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    theirs = JSON.parse(out.toString().trim().split('\n').at(-1)!) as typeof theirs;
  }, 300_000);

  it("are evaluate.py's, byte for byte, from the same verdicts and details", () => {
    const peer = JSON.parse(theirs.eval_results) as {
      date: string;
      eval: Record<string, Array<{ status: string; details: Record<string, string> }>>;
    };
    expect(Object.values(peer.eval).map((list) => list.map((s) => s.status))).toEqual([
      ['pass', 'fail', 'fail', 'fail'],
      ['pass', 'fail', 'pass'],
      ['fail', 'pass', 'pass'],
    ]);
    expect(JSON.parse(theirs.pass_at_k)).toMatchObject({ gt_pass_rate: 2 / 3, failed_tasks: [BCB_GT_FAILS.row.task_id] });
    const problems = load({ subset: 'hard' }, bcbJsonl(tasks));
    // The ground truth's outputs the reference run stores: a time, or null for the task whose ground truth fails.
    const reference = (taskId: string) => JSON.stringify({ expected_time: taskId === BCB_GT_FAILS.row.task_id ? null : 0.01 });
    // Each sample's record score as the family makes it, its verdict and details those evaluate.py found.
    const samples = problems.flatMap((problem, t) =>
      peer.eval[problem.task_id]!.map((s) => {
        const stdout = s.status === 'timeout' ? '' : `${VERDICT_MARK} ${s.status}\n${DETAILS_MARK} ${JSON.stringify(s.details)}\n`;
        const score = family.score(
          problem,
          { status: s.status === 'pass' ? 'passed' : s.status === 'fail' ? 'failed' : 'timeout', stdout },
          reference(problem.task_id),
        );
        return {
          task_id: tasks[t]!.row.task_id!,
          // The record's score, as a sweep's record and evaluate.ts's keep it.
          score: scoreFields(score).score!,
        };
      }),
    );
    const cell = BIGCODEBENCH_SCORES.newCell();
    const states = new Map<string, unknown>();
    for (const [i, s] of samples.entries())
      states.set(
        s.task_id,
        BIGCODEBENCH_SCORES.add(cell, states.get(s.task_id), s.score, {
          problem: problems.find((p) => p.task_id === s.task_id)!,
          taskId: s.task_id,
          sampleIndex: i,
          passed: false,
        }),
      );
    const figures = BIGCODEBENCH_SCORES.figures(
      cell,
      problems.map((p) => ({ n: 1, c: 0, state: states.get(p.task_id) })),
      k,
    );
    // results.json's scores say it as pass_at_k.json does.
    expect(BIGCODEBENCH_SCORES.resultsJson(figures)).toMatchObject({
      ground_truth: { checked: true, pass_rate: 2 / 3, failed_tasks: [BCB_GT_FAILS.row.task_id] },
    });
    const ours = bigCodeBenchPeerFiles(figures, {
      generations: solutions,
      samples,
      date: peer.date,
      samplesName: path.basename(samplesFile),
    });
    expect(ours['eval_results.json']).toBe(theirs.eval_results);
    expect(ours['pass_at_k.json']).toBe(theirs.pass_at_k);
    expect(JSON.parse(theirs.pass_at_k)).toMatchObject({ model: 'model-x', subset: 'hard', calibrated: true });
    expect(theirs.eval_results).toContain('caf\\u00e9 \\u2713 \\ud83d\\ude00');
  });

  it('evaluate.ts writes them where evaluate.py does: beside a samples file, in a samples folder', () => {
    const beside = BIGCODEBENCH_SCORES.besideSamples!;
    expect(beside('/d/m--bigcodebench-complete.jsonl', false)).toEqual({
      'eval_results.json': '/d/m--bigcodebench-complete_eval_results.json',
      'pass_at_k.json': '/d/m--bigcodebench-complete_pass_at_k.json',
    });
    expect(beside('/d/samples', true)).toEqual({
      'eval_results.json': '/d/samples/eval_results.json',
      'pass_at_k.json': '/d/samples/pass_at_k.json',
    });
  });

  it("reads the harness's details from the line after its last verdict, and none from a forged one before it", () => {
    const line = (status: string, details: unknown) => `${VERDICT_MARK} ${status}\n${DETAILS_MARK} ${JSON.stringify(details)}\n`;
    expect(detailsOf(line('fail', { test_a: 'Traceback ...' }))).toEqual({ test_a: 'Traceback ...' });
    expect(detailsOf(`${line('pass', { forged: 'x' })}\n${VERDICT_MARK} fail\n`)).toEqual({});
    expect(detailsOf('')).toEqual({});
  });
});

describe('methods', () => {
  const config = (library?: Record<string, string>) => ({
    datasets: [{ name: 'bcb', family: 'bigcodebench', path: 'b.jsonl', ...(library ? { library } : {}) }],
    models: [{ id: 'm', base_url: 'http://127.0.0.1:8080/v1', model: 'x' }],
    methods: ['direct', 'rag', 'exploracoder'],
    temperatures: [0.2],
    n_samples: 1,
    k: [1],
  });
  it('direct, rag and exploracoder take a BigCodeBench dataset that names API docs; rag and exploracoder need them', () => {
    const docs = { api_docs: 'bcb-docs.jsonl', name: 'bigcodebench-libraries', summary: 'The libraries BigCodeBench tasks call.' };
    expect(parseSweepConfig(config(docs)).methods).toEqual(['direct', 'rag', 'exploracoder']);
    expect(() => parseSweepConfig(config())).toThrow(/method rag \(methods\[1\]\) needs the dataset's API library/);
    expect(() => parseSweepConfig(config())).toThrow(/method exploracoder \(methods\[2\]\) needs the dataset's API library/);
  });
});
