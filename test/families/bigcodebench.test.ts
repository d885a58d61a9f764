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
import { DETAILS_MARK, detailsOf, VERDICT_MARK } from '../../domain/families/bigcodebench/harness.js';
import { BIGCODEBENCH_SCORES, bigCodeBenchPeerFiles } from '../../domain/families/bigcodebench/scores.js';
import { BIGCODEBENCH_STOP_WORDS, parseLibs, PYTHON_STDLIB } from '../../domain/families/bigcodebench/prompt.js';
import { bigcodeTask } from '../../domain/families/registry.js';
import { chatMessagesOf } from '../../domain/methods/promptTemplate.js';
import { chatUserMessage } from '../../methods/direct/request.js';
import { parseSweepConfig } from '../../domain/sweep/config.js';
import { scoreFields } from '../../domain/sweep/records.js';
import { requirementsProblem } from '../../scripts/lib/requirements.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { BCB_TASKS, bcbJsonl } from '../support/bigcodebench-rows.js';
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
    expect(family.limits(problem!, null, 3000)).toMatchObject({ timeoutMs: 7000, memoryBytes: 30 * 1024 ** 3 });
    expect(family.tests(problem!, null)).toContain('_BCB_TIMEOUT = 6.0');
    expect(family.limits(load()[0]!, null, 3000)).toMatchObject({ timeoutMs: 242_000 });
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
    expect(requirementsProblem(datasets(withEnv), requirementsOf)).toContain(`the environment lacks pytz`);
    writeFileSync(path.join(env, 'explora-modules', 'pytz'), '');
    expect(requirementsProblem(datasets(withEnv), requirementsOf)).toBeNull();
    // The sandbox mounts the environment for them, and the harness puts its site-packages first.
    expect(family.requirements(withEnv[0]!)).toEqual([expect.objectContaining({ kind: 'file', readableDir: env })]);
    expect(family.tests(withEnv[0]!, null)).toContain(`_BCB_ENVIRONMENT = ${JSON.stringify(env)}`);
  });

  it('evaluate.ts without an environment refuses the pytz task before anything runs, naming the set-up command', async () => {
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
        { cwd: PROJECT_ROOT, timeout: 120_000 },
        (error, _stdout, err) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stderr: err }),
      ),
    );
    expect(code, stderr).toBe(2);
    expect(stderr).toContain('1 BigCodeBench (pytz) task(s) need the file /bigcodebench-environment-not-given/explora-modules/pytz');
    expect(stderr).toContain('`npm run setup -- --bigcodebench` makes .tools/bigcodebench-python');
    expect(stderr).not.toContain('evaluate: running');
    expect(existsSync(`${samples}_results.jsonl`)).toBe(false);
  }, 120_000);
});

describe("BigCodeBench's own files: eval_results.json and pass_at_k.json", () => {
  // Task 0 with a right answer, a wrong one, one that does not compile and one whose failure reads
  // outside ASCII; task 1 with three: pass@4 is left out, a task having 3 samples only. (No timeout:
  // without the ground truth's times evaluate.py gives each check 20 s; the e2e test has one.)
  const tasks = BCB_TASKS.slice(0, 2);
  const solutions = [
    [tasks[0]!.right, tasks[0]!.wrong, 'def task_func(:\n', 'def task_func(words, n=2):\n    return "café ✓ \u{1F600}"\n'],
    [tasks[1]!.right, tasks[1]!.wrong, tasks[1]!.right],
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
    ]);
    const problems = load({ subset: 'hard' }).slice(0, 2);
    // Each sample's record score as the family makes it, its verdict and details those evaluate.py found.
    const samples = problems.flatMap((problem, t) =>
      peer.eval[problem.task_id]!.map((s) => {
        const stdout = s.status === 'timeout' ? '' : `${VERDICT_MARK} ${s.status}\n${DETAILS_MARK} ${JSON.stringify(s.details)}\n`;
        const score = family.score(problem, {
          status: s.status === 'pass' ? 'passed' : s.status === 'fail' ? 'failed' : 'timeout',
          stdout,
        });
        return {
          task_id: tasks[t]!.row.task_id!,
          // The record's score, as a sweep's record and evaluate.ts's keep it.
          score: scoreFields(score).score!,
        };
      }),
    );
    const cell = BIGCODEBENCH_SCORES.newCell();
    for (const [i, s] of samples.entries())
      BIGCODEBENCH_SCORES.add(cell, undefined, s.score, {
        problem: problems.find((p) => p.task_id === s.task_id)!,
        taskId: s.task_id,
        sampleIndex: i,
        passed: false,
      });
    const figures = BIGCODEBENCH_SCORES.figures(
      cell,
      problems.map(() => ({ n: 1, c: 0, state: true })),
      k,
    );
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
