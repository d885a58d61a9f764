/**
 * bigcode's instruct_wizard_humaneval end to end: scripts/evaluate.ts with the task's name on
 * HumanEval's rows as published and a WizardCoder-style model's raw completions: every sample's
 * program and outcome in the sandbox (passes, a wrong answer, a crash, a timeout, an empty answer,
 * another function's name) and pass@1 and pass@2 equal bigcode's check_correctness and
 * compute_code_eval on the same answers (wizard_humaneval_reference.py). And a sweep through
 * Temporal against the scripted server (a completions and a chat model) with the cells' files,
 * bigcode's evaluation_results.json and the report.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instructWizardHumanEvalFamily as wizard } from '../../domain/families/instruct-wizard-humaneval/index.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { runTs } from '../support/processes.js';
import { jsonl } from '../support/repair-rows.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { testBucket } from '../support/s3.js';
import { expectCellFilesAsStored, outputJson, scriptedModelsYaml, sweepWithOutputDir } from '../support/sweep-output.js';
import { WIZARD_GENERATIONS, WIZARD_ROWS } from '../support/wizard-humaneval-rows.js';

const run = promisify(execFile);
const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const SCRIPT = path.resolve(import.meta.dirname, 'wizard_humaneval_reference.py');
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-wizard-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(() => {
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'inherit' });
}, 600_000);

const problems = wizard.load({
  entry: { name: 'w', family: 'instruct-wizard-humaneval', path: 'HumanEval.jsonl' },
  texts: { rows: jsonl(WIZARD_ROWS) },
  sources: { rows: 'HumanEval.jsonl' },
}).problems;

it("evaluate.ts --tasks instruct_wizard_humaneval: every sample's program and outcome, pass@1 and pass@2 are bigcode's", async () => {
  // bigcode's clean_comp raises on a fence never closed (instruct-wizard-humaneval.test.ts): here it is closed.
  const generations = WIZARD_GENERATIONS.map((gens) => gens.map((g) => (/```python(?![^]*```)/.test(g) ? `${g}\n\`\`\`` : g)));
  const reference = await new Promise<{ solutions: string[][]; passed: boolean[][]; metrics: Record<string, number> }>(
    (resolve, reject) => {
      const child = execFile(PYTHON, [SCRIPT], { maxBuffer: 1 << 26, timeout: 300_000 }, (error, stdout) =>
        error ? reject(new Error(`wizard_humaneval_reference.py: ${error.message}`)) : resolve(JSON.parse(stdout) as never),
      );
      child.stdin!.end(JSON.stringify({ rows: WIZARD_ROWS, generations, execute: true }));
    },
  );
  const rowsFile = path.join(dir, 'HumanEval.jsonl');
  const samplesFile = path.join(dir, 'samples.jsonl');
  const out = path.join(dir, 'out');
  writeFileSync(rowsFile, jsonl(WIZARD_ROWS));
  writeFileSync(
    samplesFile,
    jsonl(WIZARD_ROWS.flatMap((r, t) => generations[t]!.map((completion) => ({ task_id: r.task_id, completion })))),
  );
  // The samples are raw completions here: --form completion says so (bigcode's saved generations are read as they are).
  const completions = await run(
    process.execPath,
    [
      '--import',
      'tsx',
      'scripts/evaluate.ts',
      '--problems',
      rowsFile,
      '--samples',
      samplesFile,
      '--tasks',
      'instruct_wizard_humaneval',
      '--form',
      'completion',
      '--k',
      '1,2',
      '--timeout',
      '3',
      '--output-dir',
      out,
      // bigcode's metric file, which --tasks writes (by default in the working directory).
      '--metric_output_path',
      path.join(dir, 'evaluation_results.json'),
    ],
    { timeout: 300_000 },
  );
  const lines = readFileSync(path.join(out, 'samples.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { completion: string; passed: boolean; result: string });
  expect(lines.map((l) => l.completion)).toEqual(reference.solutions.flat());
  expect(lines.map((l) => l.passed)).toEqual(reference.passed.flat());
  expect(lines.map((l) => l.result)).toEqual(['passed', 'failed', 'passed', 'passed', 'error', 'error', 'passed', 'timeout', 'error']);
  const metrics = JSON.parse(completions.stdout.trim().split('\n').at(-1)!) as Record<string, number>;
  expect(metrics['pass@1']).toBeCloseTo(reference.metrics['pass@1']!, 12);
  expect(metrics['pass@2']).toBeCloseTo(reference.metrics['pass@2']!, 12);
}, 300_000);

describe('a sweep over instruct_wizard_humaneval against a scripted server', () => {
  const { config, env } = testConfig();
  const bucket = testBucket(config);
  let server: ScriptedLlmServer;
  const stops: unknown[] = [];
  /** Even tasks answered with the dataset's function, odd ones with a wrong one. */
  const answers = new Map(
    problems.map((p, i) => [p.prompt, i % 2 === 0 ? wizard.referenceSolution(p)! : `def ${p.entry_point}(*args):\n    return None`]),
  );

  beforeAll(async () => {
    server = await startScriptedLlmServer((req) => {
      if (req.api === 'completions') {
        stops.push(req.body.stop);
        const answer = answers.get(String(req.body.prompt));
        return { content: answer ? `\nHere is the code:\n\`\`\`python\n${answer.replaceAll('    ', '\t')}\n\`\`\`\nDone.</s>` : '' };
      }
      const user = (req.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'user')!.content;
      const answer = [...answers.entries()].find(([prompt]) => user.includes(prompt))?.[1];
      return { content: answer ? `\`\`\`python\n${answer}\n\`\`\`\n` : 'no idea' };
    });
  });
  afterAll(async () => {
    await server.close();
    bucket.s3.destroy();
  });

  it("pass@1 is the share of tasks answered right, for both APIs; no stop words; files, bigcode's metrics, the report", async () => {
    const id = `wizard-${uniqueSuffix()}`;
    const rowsFile = path.join(dir, 'sweep-HumanEval.jsonl');
    writeFileSync(rowsFile, jsonl(WIZARD_ROWS));
    const { outDir, results, output } = await sweepWithOutputDir({
      dir,
      id,
      env,
      bucket,
      flags: ['--check-references'],
      yaml: `id: ${id}
datasets:
  - name: wizard
    family: instruct-wizard-humaneval
    path: ${rowsFile}
${scriptedModelsYaml(server.url)}methods: [direct]
temperatures: [0]
n_samples: 1
k: [1]
timeout_s: 5
`,
    });
    expect(output).toContain(`wizard: ${WIZARD_ROWS.length} of ${WIZARD_ROWS.length} references pass`);
    expect(results.cells).toHaveLength(2);
    for (const cell of results.cells) {
      const cellId = String(cell.cell.cell);
      expect(cell.passAtK['pass@1'], cellId).toBeCloseTo(2 / 3, 12);
      await expectCellFilesAsStored(bucket, id, outDir, cellId);
      expect(outputJson(outDir, cellId, 'evaluation_results.json').wizard).toEqual(cell.passAtK);
    }
    for (const s of stops) expect(s === undefined || (Array.isArray(s) && s.length === 0)).toBe(true);
    expect(stops.length).toBe(WIZARD_ROWS.length);
    const report = await runTs('scripts/report.ts', [id, '--out', dir], env);
    expect(report.code, report.output).toBe(0);
    expect(readFileSync(path.join(dir, `report-${id}.html`), 'utf8')).toContain('wizard');
  }, 600_000);
});
