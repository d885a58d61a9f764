/**
 * BigCodeBench through the bigcodebench family, on rows in Hugging Face's bigcode/bigcodebench
 * format (test/support/bigcodebench-rows.ts), against bigcodebench's own code
 * (test/families/bigcodebench_reference.py, its package in the tests' venv): the chat messages of
 * both splits, the base models' stop words, the standard library the family needs no environment
 * for. And what the family decides alone: the rows it refuses, the options of its task names, the
 * libraries it refuses tasks by (the environment's markers), its verdicts. Outcomes in the sandbox,
 * against bigcodebench's untrusted_check: bigcodebench.e2e.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bigCodeBenchFamily as family, BigCodeBenchEntrySchema } from '../../domain/families/bigcodebench/index.js';
import { VERDICT_MARK } from '../../domain/families/bigcodebench/harness.js';
import { BIGCODEBENCH_STOP_WORDS, parseLibs, PYTHON_STDLIB } from '../../domain/families/bigcodebench/prompt.js';
import { bigcodeTask } from '../../domain/families/registry.js';
import { chatUserMessage } from '../../methods/direct/request.js';
import { parseSweepConfig } from '../../domain/sweep/config.js';
import { requirementsProblem } from '../../scripts/lib/requirements.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { BCB_TASKS, bcbJsonl } from '../support/bigcodebench-rows.js';

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
    expect(refused).toContain('bash scripts/install-bigcodebench.sh');

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
