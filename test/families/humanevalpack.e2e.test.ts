/**
 * HumanEvalPack end to end. scripts/evaluate.ts on rows in the published format
 * (test/support/humanevalpack-rows.ts) with bigcode's task names (humanevalsynthesize-python,
 * humanevalfixtests-js with --prompt octocoder, and one task of each of java, go, cpp and rust,
 * run as code_eval_octopack runs them: g++, javac and java Main, go test, cargo), the samples a completions model's raw
 * continuations become ({task_id, completion}, cut at the request's stop words): every sample's
 * solution and outcome in the sandbox and pass@1 are those of bigcode's code
 * (humanevalpack_reference.py: its post-processing, process_results and code_eval_octopack's
 * execution run in the tests' Python; passes, wrong answers, a crash, a timeout, an empty answer,
 * numpy from the import helper, JavaScript that prints). And one sweep through Temporal over both
 * languages against the scripted server (a completions model and a chat model), whose cells
 * report pass@1, with the cells' files, bigcode's evaluation_results.json and the report.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { humanEvalPackFamily } from '../../domain/families/humanevalpack/index.js';
import { truncateAtStopWords } from '../../domain/llm/extract.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { GO_MODULE_FILES, OCTOPACK_DIR, RUST_CARGO_PROJECT } from '../../infra/sandbox/process/toolchains/octopack.js';
import {
  CPP_GENERATIONS,
  CPP_ROWS,
  GO_GENERATIONS,
  GO_ROWS,
  JAVA_GENERATIONS,
  JAVA_ROWS,
  JS_GENERATIONS,
  JS_ROWS,
  jsonl,
  PYTHON_GENERATIONS,
  PYTHON_ROWS,
  RUST_GENERATIONS,
  RUST_ROWS,
} from '../support/humanevalpack-rows.js';
import {
  beforeAllTestPython,
  evaluateWithBigcodeFlags,
  runReference,
  scriptedServerForSuite,
  sweepReportHtml,
  userMessage,
} from '../support/bigcode-tasks.js';
import { testBucket } from '../support/s3.js';
import { expectCellFilesAsStored, outputJson, scriptedModelsYaml, sweepWithOutputDir } from '../support/sweep-output.js';

const SCRIPT = path.resolve(import.meta.dirname, 'humanevalpack_reference.py');
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-humanevalpack-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Reference {
  solutions: string[][];
  passed: boolean[][];
  results: string[][];
  'pass@1': number;
}

/** bigcode's scoring of a job; the compiled languages run as code_eval_octopack runs them, with copies of the installed caches (offline). */
const bigcode = (job: { language: string; variant: string; prompt: string; rows: unknown[]; generations: string[][] }) =>
  runReference<Reference>(SCRIPT, {
    ...job,
    execute: true,
    node: process.execPath,
    ...{ octopack: OCTOPACK_DIR, go_module: GO_MODULE_FILES, cargo_project: RUST_CARGO_PROJECT },
  });

beforeAllTestPython();

/** The generations as a request with stop words returns them: <|endoftext|> after those no stop word ends (see humanevalpack.test.ts). */
const endedByStopWord = (generations: readonly string[][], stops: readonly string[]) =>
  generations.map((gens) => gens.map((g) => (stops.some((s) => g.includes(s)) ? g : `${g}<|endoftext|>`)));

/** The compiled languages' samples in this file: the first task's right, wrong and non-compiling answers, the second task's right one (the rest in humanevalpack.test.ts). */
const fewer = (generations: readonly string[][]) => [generations[0]!.slice(0, 3), generations[1]!.slice(0, 1)];

const cases = [
  {
    name: 'python',
    task: 'humanevalsynthesize-python',
    language: 'python',
    variant: 'synthesize',
    prompt: 'instruct',
    rows: PYTHON_ROWS,
    raw: PYTHON_GENERATIONS,
  },
  {
    name: 'js',
    task: 'humanevalfixtests-js',
    language: 'js',
    variant: 'fixtests',
    prompt: 'octocoder',
    rows: JS_ROWS,
    raw: JS_GENERATIONS,
  },
  {
    name: 'java',
    task: 'humanevalsynthesize-java',
    language: 'java',
    variant: 'synthesize',
    prompt: 'instruct',
    rows: JAVA_ROWS,
    raw: fewer(JAVA_GENERATIONS),
  },
  {
    name: 'go',
    task: 'humanevalfixtests-go',
    language: 'go',
    variant: 'fixtests',
    prompt: 'octocoder',
    rows: GO_ROWS,
    raw: fewer(GO_GENERATIONS),
  },
  {
    name: 'cpp',
    task: 'humanevalfixdocs-cpp',
    language: 'cpp',
    variant: 'fixdocs',
    prompt: 'instruct',
    rows: CPP_ROWS,
    raw: fewer(CPP_GENERATIONS),
  },
  {
    name: 'rust',
    task: 'humanevalfixtests-rust',
    language: 'rust',
    variant: 'fixtests',
    prompt: 'codellama',
    rows: RUST_ROWS,
    raw: fewer(RUST_GENERATIONS),
  },
] as const;

/**
 * What each compiled language's samples come to (both sides agree on it above; said here so that a
 * change on both sides shows): the right answer passes, the bug fails, an answer that does not
 * compile fails; the second task's right answer passes after process_results' changes (Java's
 * empty Main dropped, Go's strconv and strings imported, C++'s boost::any, Rust's extra mains cut).
 */
const COMPILED_OUTCOMES = [true, false, false, true];

/** evaluate.ts on a case's samples, and bigcode's scoring of them: every sample's solution and outcome, and pass@1, agree. */
async function againstBigcode(c: (typeof cases)[number]): Promise<void> {
  const stops = humanEvalPackFamily.stopWords({ language: c.language, prompt: c.prompt } as never);
  const generations = endedByStopWord(c.raw, stops);
  const samples = c.rows.flatMap((r, t) => generations[t]!.map((g) => ({ task_id: r.task_id, completion: truncateAtStopWords(g, stops) })));
  const [reference, { metrics, lines }] = await Promise.all([
    bigcode({ language: c.language, variant: c.variant, prompt: c.prompt, rows: [...c.rows], generations }),
    evaluateWithBigcodeFlags(dir, c.name, jsonl(c.rows), samples, ['--tasks', c.task, '--prompt', c.prompt, '--k', '1']),
  ]);
  expect(lines.map((l) => l.completion)).toEqual(reference.solutions.flat());
  expect(lines.map((l) => l.passed)).toEqual(reference.passed.flat());
  expect(metrics['pass@1']).toBeCloseTo(reference['pass@1'], 12);
  if (c.language === 'python') {
    // Right (numpy from the import helper), wrong, a crash, empty; the loop that never ends times out.
    expect(lines.map((l) => l.passed)).toEqual([true, false, false, false, true, true, false, false]);
    expect(lines.at(-1)!.result).toBe('timeout');
  } else if (c.language !== 'js') {
    expect(lines.map((l) => l.passed)).toEqual(COMPILED_OUTCOMES);
  } else {
    // Right with more code after it, wrong, a throw, empty; extra braces, printing (bigcode fails it), never closed, right.
    expect(lines.map((l) => l.passed)).toEqual([true, false, false, false, true, false, false, true]);
    // The run that printed ended with exit code 1 (the program's first line), as bigcode fails it.
    expect(lines[5]!.result).toBe('error');
  }
}

const scripted = cases.filter((c) => c.language === 'python' || c.language === 'js');
const compiled = cases.filter((c) => c.language !== 'python' && c.language !== 'js');

// The scripted languages' cases and the sweep only wait on their processes (evaluate.ts, bigcode's Python, the
// sweep): they run at once.
describe.concurrent("evaluate.ts with bigcode's task names, against bigcode's own scoring", () => {
  for (const c of scripted)
    it(`${c.task}: every sample's solution and outcome, and pass@1, are bigcode's`, () => againstBigcode(c), 300_000);
});

describe.concurrent('a sweep over HumanEvalPack in Python and JavaScript against a scripted server', () => {
  const { config, env } = testConfig();
  const bucket = testBucket(config);
  afterAll(() => bucket.s3.destroy());
  const load = (c: (typeof cases)[number]) =>
    humanEvalPackFamily.load({
      entry: { name: c.name, family: 'humanevalpack', path: 'h.jsonl', language: c.language, variant: c.variant, prompt: c.prompt },
      texts: { rows: jsonl(c.rows) },
      sources: { rows: 'h.jsonl' },
    }).problems;
  /** Each prompt's answer: the canonical body for the first task, the buggy one for the second. */
  const bodies = new Map<string, { full: string; body: string; fence: string }>();
  for (const c of cases)
    load(c).forEach((p, t) => {
      const row = c.rows[t]!;
      const body = t === 0 ? row.canonical_solution : row.buggy_solution;
      bodies.set(p.prompt, { body, full: row.prompt + body, fence: c.language === 'python' ? 'python' : 'javascript' });
    });

  const server = scriptedServerForSuite((req) => {
    if (req.api === 'completions') {
      const answer = bodies.get(String(req.body.prompt));
      return { content: answer ? `\n${answer.body}\nprint("more")\n` : 'pass' };
    }
    const user = userMessage(req.body);
    const answer = [...bodies.entries()].find(([prompt]) => user.includes(prompt))?.[1];
    return { content: answer ? `Here:\n\`\`\`${answer.fence}\n${answer.full}\`\`\`\n` : 'no idea' };
  });

  it('each cell reports pass@1 from the sandbox; files, peer files, report', async () => {
    const id = `humanevalpack-${uniqueSuffix()}`;
    // A folder of its own: the evaluate.ts cases write their files in `dir` meanwhile.
    const sweepDir = path.join(dir, 'sweep');
    mkdirSync(sweepDir);
    const files = { python: path.join(sweepDir, 'python.jsonl'), js: path.join(sweepDir, 'js.jsonl') };
    writeFileSync(files.python, jsonl(PYTHON_ROWS));
    writeFileSync(files.js, jsonl(JS_ROWS));
    const { output, outDir, results } = await sweepWithOutputDir({
      dir: sweepDir,
      id,
      env,
      bucket,
      flags: ['--check-references'],
      yaml: `id: ${id}
datasets:
  - name: synthesize-python
    family: humanevalpack
    path: ${files.python}
    language: python
  - name: fixtests-js
    family: humanevalpack
    path: ${files.js}
    language: js
    variant: fixtests
    prompt: octocoder
${scriptedModelsYaml(server.url)}methods: [direct]
temperatures: [0]
n_samples: 1
k: [1]
timeout_s: 5
`,
    });
    // The references ran first, each in its language's sandbox.
    expect(output).toContain('synthesize-python: 2 of 2 references pass');
    expect(output).toContain('fixtests-js: 2 of 2 references pass');
    expect(results.cells).toHaveLength(4);
    for (const cell of results.cells) {
      const dataset = cell.cell.dataset as string;
      const cellId = String(cell.cell.cell);
      await expectCellFilesAsStored(bucket, id, outDir, cellId);
      expect(cell.passAtK['pass@1'], cellId).toBeCloseTo(1 / 2, 12);
      const metrics = outputJson(outDir, cellId, 'evaluation_results.json') as Record<string, unknown>;
      expect(metrics[dataset]).toEqual(cell.passAtK);
    }
    const report = await sweepReportHtml(id, sweepDir, env);
    expect(report.code, report.output).toBe(0);
    expect(report.html).toContain('fixtests-js');
  }, 600_000);
});

/**
 * The compiled languages' cases one after another, after those: bigcode's execution gives compiling
 * and running a program one time limit (10 s for Java), which Java and Go passed when they compiled
 * beside the file's other processes on two cores.
 */
describe("evaluate.ts with bigcode's task names, against bigcode's own scoring: compiled languages", () => {
  for (const c of compiled)
    it(`${c.task}: every sample's solution and outcome, and pass@1, are bigcode's`, () => againstBigcode(c), 300_000);
});
