/**
 * bigcode's program-repair tasks end to end. scripts/evaluate.ts on the rows in their owners'
 * formats (test/support/repair-rows.ts) with bigcode's task names, the samples a completions model's
 * raw continuations become ({task_id, completion}, cut at the request's stop words): every sample's
 * solution and outcome in the sandbox (passed; a timeout, a crash, an empty answer, a missing entry
 * point failing) and the scores are those of bigcode's code (repair_reference.py, its
 * check_correctness and compute_code_eval run in the tests' Python). And one sweep through Temporal
 * over the three families against the scripted server (a completions model and a chat model),
 * whose cells report pass@k (QuixBugs, Parity) and mean exact match (Python Bugs), with the cells'
 * files, bigcode's evaluation_results.json and the report.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parityFamily } from '../../domain/families/parity/index.js';
import { pythonBugsFamily } from '../../domain/families/python-bugs/index.js';
import { QUIXBUGS_PROMPT_STOP_WORDS, quixBugsFamily } from '../../domain/families/quixbugs/index.js';
import { truncateAtStopWords } from '../../domain/llm/extract.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import {
  beforeAllTestPython,
  evaluateWithBigcodeFlags,
  runReference,
  scriptedServerForSuite,
  sweepReportHtml,
  userMessage,
} from '../support/bigcode-tasks.js';
import {
  jsonl,
  PARITY_BUGS,
  PARITY_GENERATIONS,
  PYTHON_BUGS_GENERATIONS,
  PYTHON_BUGS_ROWS,
  QUIXBUGS_GENERATIONS,
  QUIXBUGS_ROWS,
} from '../support/repair-rows.js';
import { testBucket } from '../support/s3.js';
import { expectCellFilesAsStored, outputJson, scriptedModelsYaml, sweepWithOutputDir } from '../support/sweep-output.js';

const SCRIPT = path.resolve(import.meta.dirname, 'repair_reference.py');
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-repair-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Reference {
  solutions: string[][];
  passed?: boolean[][];
  metrics: Record<string, Record<string, number> | number>;
}

const bigcode = (task: string, rows: unknown[], generations: string[][], execute: boolean) =>
  runReference<Reference>(SCRIPT, { task, prompt: 'prompt', rows, generations, execute });

beforeAllTestPython();

/** evaluate.ts on a rows file and {task_id, completion} samples; its metrics line, every sample's line, bigcode's metric file. */
const evaluate = (name: string, rows: string, samples: unknown[], args: string[]) =>
  evaluateWithBigcodeFlags(dir, name, rows, samples, args);

/** bigcode's results and explora's evaluation_results.json entry: the same keys in the same order, values equal to rounding. */
function expectBigcodeResults(mine: unknown, reference: unknown) {
  if (typeof reference === 'number') return expect(mine as number).toBeCloseTo(reference, 12);
  expect(Object.keys(mine as object)).toEqual(Object.keys(reference as object));
  for (const [key, value] of Object.entries(reference as object)) expectBigcodeResults((mine as Record<string, unknown>)[key], value);
}

/** Each task's share of passing samples, in task order, from evaluate.ts's sample lines. */
const passRates = (lines: Array<{ task_id: string; passed: boolean }>, ids: string[]) =>
  ids.map((id) => {
    const mine = lines.filter((l) => l.task_id === id);
    return mine.filter((l) => l.passed).length / mine.length;
  });

// The cases and the sweep only wait on their processes (evaluate.ts, bigcode's Python, the sweep): they run at once.
describe.concurrent("evaluate.ts with bigcode's task names, against bigcode's own scoring", () => {
  it("quixbugs: every sample's solution and outcome, each task's pass@1 and their mean are bigcode's", async () => {
    // Lines as a sweep's endpoint answers them: cut at the request's four stop words (dropped; the family cuts
    // at the others), with its finish_reason, `length` for the continuation without any stop word, of which
    // bigcode keeps nothing.
    const generations = QUIXBUGS_GENERATIONS;
    expect(generations.flat().some((g) => !QUIXBUGS_PROMPT_STOP_WORDS.some((s) => g.includes(s)))).toBe(true);
    const referenced = bigcode('quixbugs', QUIXBUGS_ROWS, generations, true);
    const samples = QUIXBUGS_ROWS.flatMap((r, t) =>
      generations[t]!.map((g) => {
        const raw = truncateAtStopWords(g, QUIXBUGS_PROMPT_STOP_WORDS.slice(0, 4));
        return {
          task_id: `quixbugs/${r.name}`,
          completion: raw,
          finish_reason: raw.length < g.length ? 'stop' : 'length',
        };
      }),
    );
    const [reference, { metrics, lines, bigcodeFile }] = await Promise.all([
      referenced,
      evaluate('quixbugs', jsonl(QUIXBUGS_ROWS), samples, ['--tasks', 'quixbugs', '--k', '1']),
    ]);
    // bigcode's evaluation_results.json: per program name its pass@k, `all` their mean, `num_correct`.
    expect(Object.keys(reference.metrics)).toEqual([...QUIXBUGS_ROWS.map((r) => r.name), 'all', 'num_correct']);
    expectBigcodeResults(bigcodeFile.quixbugs, reference.metrics);
    expectBigcodeResults(Object.fromEntries(Object.keys(reference.metrics).map((key) => [key, metrics[key]])), reference.metrics);
    expect(lines.map((l) => l.completion)).toEqual(reference.solutions.flat());
    expect(lines.map((l) => l.passed)).toEqual(reference.passed!.flat());
    // The edge cases ran as bigcode's: the bug left in times out (bitcount) and crashes (gcd); `def` alone, another name and
    // the answer cut at max_tokens without a stop word (empty) fail.
    expect(lines.map((l) => l.result)).toEqual(['passed', 'timeout', 'error', 'passed', 'error', 'error', 'passed', 'passed', 'error']);
    expect(lines.at(-1)!.completion).toBe('');
    const all = reference.metrics.all as Record<string, number>;
    expect(metrics['pass@1']).toBeCloseTo(all['pass@1']!, 12);
    // Each task's pass@1: bigcode's estimator, 1 - prod(1 - 1/i), is c/n to rounding.
    const perTask = QUIXBUGS_ROWS.map((r) => (reference.metrics[r.name] as Record<string, number>)['pass@1']!);
    const rates = passRates(
      lines,
      QUIXBUGS_ROWS.map((r) => `quixbugs/${r.name}`),
    );
    rates.forEach((rate, t) => expect(rate).toBeCloseTo(perTask[t]!, 12));
  }, 300_000);

  it("parity: every sample's solution and outcome, each bug count's pass@1 (bigcode's '<n> bugs') and their mean", async () => {
    const referenced = bigcode('parity', PARITY_BUGS, PARITY_GENERATIONS, true);
    const stops = parityFamily.stopWords({} as never);
    const samples = PARITY_BUGS.flatMap((n, t) =>
      PARITY_GENERATIONS[t]!.map((g) => ({ task_id: `parity/${n}-bugs`, completion: truncateAtStopWords(g, stops) })),
    );
    // bigcode's compute_code_eval default: 3 s a program.
    const [reference, { metrics, lines, bigcodeFile }] = await Promise.all([
      referenced,
      evaluate('parity', jsonl(PARITY_BUGS), samples, ['--tasks', 'parity', '--k', '1', '--timeout', '3']),
    ]);
    // bigcode's evaluation_results.json: "<n> bugs" and its pass@1, nothing else.
    expect(Object.keys(reference.metrics)).toEqual(PARITY_BUGS.map((n) => `${n} bugs`));
    expectBigcodeResults(bigcodeFile.parity, reference.metrics);
    expect(lines.map((l) => l.completion)).toEqual(reference.solutions.flat());
    expect(lines.map((l) => l.passed)).toEqual(reference.passed!.flat());
    expect(lines.filter((l) => l.result === 'timeout')).toHaveLength(1);
    const perCount = PARITY_BUGS.map((n) => (reference.metrics[`${n} bugs`] as Record<string, number>)['pass@1']!);
    const rates = passRates(
      lines,
      PARITY_BUGS.map((n) => `parity/${n}-bugs`),
    );
    rates.forEach((rate, t) => expect(rate).toBeCloseTo(perCount[t]!, 12));
    expect(metrics['pass@1']).toBeCloseTo(perCount.reduce((a, b) => a + b, 0) / perCount.length, 12);
  }, 300_000);

  it("python_bugs: every sample's answer and the mean exact match are bigcode's; nothing runs", async () => {
    // The requests carry no stop words: the completions are the raw continuations.
    const samples = PYTHON_BUGS_GENERATIONS.flatMap((gens, t) => gens.map((g) => ({ task_id: `python_bugs/${t}`, completion: g })));
    const [reference, { metrics, lines, stderr }] = await Promise.all([
      bigcode('python_bugs', PYTHON_BUGS_ROWS, PYTHON_BUGS_GENERATIONS, false),
      evaluate('python-bugs', jsonl(PYTHON_BUGS_ROWS), samples, ['--tasks', 'python_bugs', '--python', '/nonexistent/python']),
    ]);
    expect(lines.map((l) => l.completion)).toEqual(reference.solutions.flat());
    expect(metrics['mean exact match']).toBe(reference.metrics['mean exact match']);
    expect(metrics['mean exact match']).toBe(0.5);
    expect(stderr).toContain('scored 6 samples of 3 python-bugs problems from their text');
  }, 300_000);
});

describe.concurrent('a sweep over QuixBugs, Parity and Python Bugs against a scripted server', () => {
  const { config, env } = testConfig();
  const bucket = testBucket(config);
  afterAll(() => bucket.s3.destroy());
  const stops = new Map<string, unknown[]>();

  const load = <T>(family: { load: (input: never) => { problems: T[] } }, entry: object, text: string) =>
    family.load({ entry, texts: { rows: text }, sources: { rows: 'rows' } } as never).problems;
  const quix = load(quixBugsFamily, { name: 'qb', family: 'quixbugs', path: 'q.jsonl', prompt: 'prompt' }, jsonl(QUIXBUGS_ROWS));
  const parity = load(parityFamily, { name: 'parity', family: 'parity', path: 'p.jsonl', prompt: 'prompt' }, jsonl(PARITY_BUGS));
  const bugs = load(pythonBugsFamily, { name: 'pb', family: 'python-bugs', path: 'b.jsonl', prompt: 'prompt' }, jsonl(PYTHON_BUGS_ROWS));

  /** Each prompt's fixed function: right for even tasks, a function under another name for odd ones. */
  const fixes = new Map<string, { family: string; code: string }>();
  QUIXBUGS_ROWS.forEach((r, i) =>
    fixes.set(quix[i]!.prompt, { family: 'quixbugs', code: i % 2 === 0 ? r.solution : `def other_${r.name}(*args):\n    return None` }),
  );
  PARITY_BUGS.forEach((n, i) =>
    fixes.set(parity[i]!.prompt, {
      family: 'parity',
      code: i % 2 === 0 ? 'def parity(b1,b2,b3,b4):\n    return sum([b1,b2,b3,b4]) % 2' : 'def parity(b1,b2,b3,b4):\n    return 0',
    }),
  );
  PYTHON_BUGS_ROWS.forEach((r, i) =>
    fixes.set(bugs[i]!.prompt, { family: 'python-bugs', code: i % 2 === 0 ? r.correct_code : r.prompt_code }),
  );

  const server = scriptedServerForSuite((req) => {
    if (req.api === 'completions') {
      const fix = fixes.get(String(req.body.prompt));
      if (!fix) return { content: 'pass' };
      stops.set(fix.family, [...(stops.get(fix.family) ?? []), req.body.stop]);
      // The continuation after the prompt's final `def`, then more code a stop word ends.
      return { content: `${fix.code.slice('def'.length)}\n\nprint("more")\n` };
    }
    const user = userMessage(req.body);
    const fix = [...fixes.entries()].find(([prompt]) => user.includes(prompt))?.[1];
    return { content: fix ? `Fixed:\n\`\`\`python\n${fix.code}\n\`\`\`\n` : 'no idea' };
  });

  it('QuixBugs and Parity cells report pass@1 from the sandbox, Python Bugs mean exact match; files, peer files, report', async () => {
    const id = `repair-${uniqueSuffix()}`;
    // A folder of its own: the evaluate.ts cases write their files in `dir` meanwhile.
    const sweepDir = path.join(dir, 'sweep');
    mkdirSync(sweepDir);
    const files = {
      quixbugs: path.join(sweepDir, 'quixbugs_python.jsonl'),
      parity: path.join(sweepDir, 'parity.jsonl'),
      bugs: path.join(sweepDir, 'bugs.jsonl'),
    };
    writeFileSync(files.quixbugs, jsonl(QUIXBUGS_ROWS));
    writeFileSync(files.parity, jsonl(PARITY_BUGS));
    writeFileSync(files.bugs, jsonl(PYTHON_BUGS_ROWS));
    const { output, outDir, results } = await sweepWithOutputDir({
      dir: sweepDir,
      id,
      env,
      bucket,
      flags: ['--check-references'],
      yaml: `id: ${id}
datasets:
  - name: quixbugs
    family: quixbugs
    path: ${files.quixbugs}
  - name: parity
    family: parity
    path: ${files.parity}
  - name: python-bugs
    family: python-bugs
    path: ${files.bugs}
${scriptedModelsYaml(server.url)}methods: [direct]
temperatures: [0]
n_samples: 1
k: [1]
timeout_s: 5
# All six cells at once (a layout setting: no result changes).
max_parallel_cells: 6
`,
    });
    // The references of the run tasks ran first: QuixBugs's fixed programs, Parity's function without bugs.
    expect(output).toContain(`quixbugs: ${QUIXBUGS_ROWS.length} of ${QUIXBUGS_ROWS.length} references pass`);
    expect(output).toContain(`parity: ${PARITY_BUGS.length} of ${PARITY_BUGS.length} references pass`);
    expect(results.cells).toHaveLength(6);
    const expected: Record<string, number> = { quixbugs: 2 / 3, parity: 3 / 5 };
    for (const cell of results.cells) {
      const dataset = cell.cell.dataset as string;
      const cellId = String(cell.cell.cell);
      await expectCellFilesAsStored(bucket, id, outDir, cellId);
      const metrics = outputJson(outDir, cellId, 'evaluation_results.json') as Record<string, unknown>;
      if (dataset === 'python-bugs') {
        expect(cell.scores).toMatchObject({ kind: 'text', metric: 'mean-exact-match', samplesScored: 'all', samples: 3 });
        expect(cell.scores.figures['mean exact match'], cellId).toBeCloseTo(2 / 3, 12);
        expect(cell.passAtK).toEqual({});
        expect(cell.cost.sandboxRuns).toBe(0);
        expect(metrics[dataset]).toEqual(cell.scores.figures);
        expect(outputJson(outDir, cellId, 'references.json')).toEqual(PYTHON_BUGS_ROWS.map((r) => r.correct_code));
      } else {
        expect(cell.passAtK['pass@1'], cellId).toBeCloseTo(expected[dataset]!, 12);
        // bigcode's keys, one sample a task: each task's pass@1 is its one sample's outcome.
        const passes = dataset === 'quixbugs' ? [1, 0, 1] : [1, 0, 1, 0, 1];
        const keys = dataset === 'quixbugs' ? QUIXBUGS_ROWS.map((r) => r.name) : PARITY_BUGS.map((n) => `${n} bugs`);
        const perTask = Object.fromEntries(keys.map((key, i) => [key, { 'pass@1': passes[i] }]));
        const all = { 'pass@1': 2 / 3 };
        expectBigcodeResults(metrics[dataset], dataset === 'quixbugs' ? { ...perTask, all, num_correct: 2 } : perTask);
        // The cell's results.json carries them too, under `scores.bigcode`.
        const cellResults = outputJson(outDir, cellId, 'results.json') as { scores: { bigcode: unknown } };
        expectBigcodeResults(cellResults.scores.bigcode, metrics[dataset]);
      }
    }
    // Completions carry each family's first four stop words; Python Bugs's none (bigcode's cut is the family's).
    expect(stops.get('quixbugs')).toEqual(QUIXBUGS_ROWS.map(() => QUIXBUGS_PROMPT_STOP_WORDS.slice(0, 4)));
    expect(stops.get('parity')).toEqual(PARITY_BUGS.map(() => parityFamily.stopWords({} as never).slice(0, 4)));
    for (const s of stops.get('python-bugs')!) expect(s === undefined || (Array.isArray(s) && s.length === 0)).toBe(true);

    const { code, output: reported, html } = await sweepReportHtml(id, sweepDir, env);
    expect(code, reported).toBe(0);
    expect(html).toContain('id="text-scores-table"');
    expect(html).toContain('quixbugs');
  }, 600_000);
});
