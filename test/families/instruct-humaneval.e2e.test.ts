/**
 * bigcode's instruct-humaneval and instruct-humaneval-nocontext end to end: scripts/evaluate.ts with
 * the task names and StarChat's --instruction-tokens on rows in codeparrot/instructhumaneval's format
 * and a model's raw completions: every sample's program and outcome in the sandbox (passes, wrong
 * answers, a crash, a timeout, an empty answer) and pass@1 and pass@2 equal bigcode's
 * (instruct_humaneval_reference.py: its generation steps, check_correctness and compute_code_eval).
 * And one sweep through Temporal against the scripted server (completions and chat) over this family
 * and instruct_wizard_humaneval (whose evaluate.ts case is instruct-wizard-humaneval.e2e.test.ts's),
 * with the cells' files, bigcode's evaluation_results.json and the report.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instructHumanEvalFamily as family, instructStopWords } from '../../domain/families/instruct-humaneval/index.js';
import { instructWizardHumanEvalFamily as wizard } from '../../domain/families/instruct-wizard-humaneval/index.js';
import { truncateAtStopWords } from '../../domain/llm/extract.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import {
  INSTRUCT_CONTEXT_GENERATIONS,
  INSTRUCT_NOCONTEXT_GENERATIONS,
  INSTRUCT_ROWS,
  STARCHAT_EOS,
  STARCHAT_TOKENS,
} from '../support/instruct-humaneval-rows.js';
import { RUN_ENTRY, runTs } from '../support/processes.js';
import { jsonl } from '../support/repair-rows.js';
import { startScriptedLlmServer, type ScriptedLlmServer, type ScriptedRequest } from '../support/scripted-llm-server.js';
import { testBucket } from '../support/s3.js';
import { expectCellFilesAsStored, outputJson, scriptedModelsYaml, sweepWithOutputDir } from '../support/sweep-output.js';
import { WIZARD_ROWS } from '../support/wizard-humaneval-rows.js';

const run = promisify(execFile);
const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const SCRIPT = path.resolve(import.meta.dirname, 'instruct_humaneval_reference.py');
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-instruct-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(() => {
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'inherit' });
}, 600_000);

function bigcode(context: boolean, generations: string[][]) {
  return new Promise<{ solutions: string[][]; passed: boolean[][]; metrics: Record<string, number> }>((resolve, reject) => {
    const child = execFile(PYTHON, [SCRIPT], { maxBuffer: 1 << 26, timeout: 300_000 }, (error, stdout) =>
      error ? reject(new Error(`instruct_humaneval_reference.py: ${error.message}`)) : resolve(JSON.parse(stdout) as never),
    );
    child.stdin!.end(
      JSON.stringify({ rows: INSTRUCT_ROWS, context, tokens: STARCHAT_TOKENS, eos: STARCHAT_EOS, generations, execute: true }),
    );
  });
}

// The cases and the sweep only wait on their processes (evaluate.ts, bigcode's Python, start-sweep.ts), each on files of its own: they run at once.
describe.concurrent('instruct-humaneval through evaluate.ts and a sweep', () => {
  it.each([
    ['instruct-humaneval', true, INSTRUCT_CONTEXT_GENERATIONS],
    ['instruct-humaneval-nocontext', false, INSTRUCT_NOCONTEXT_GENERATIONS],
  ] as const)(
    "evaluate.ts --tasks %s: every sample's program and outcome, pass@1 and pass@2 are bigcode's",
    async (task, context, generations) => {
      const referenced = bigcode(context, generations as string[][]);
      referenced.catch(() => {}); // awaited below
      // What the server returns: the continuation ended at the request's stop words or the model's EOS.
      const stops = [...instructStopWords(STARCHAT_TOKENS), STARCHAT_EOS];
      const rowsFile = path.join(dir, `${task}.jsonl`);
      const samplesFile = path.join(dir, `${task}-samples.jsonl`);
      const out = path.join(dir, `${task}-out`);
      writeFileSync(rowsFile, jsonl(INSTRUCT_ROWS));
      writeFileSync(
        samplesFile,
        jsonl(
          INSTRUCT_ROWS.flatMap((r, t) => generations[t]!.map((g) => ({ task_id: r.task_id, completion: truncateAtStopWords(g, stops) }))),
        ),
      );
      const [reference, { stdout }] = await Promise.all([
        referenced,
        run(
          process.execPath,
          [
            ...[RUN_ENTRY, 'scripts/evaluate.ts', '--problems', rowsFile, '--samples', samplesFile, '--tasks', task],
            ...['--instruction-tokens', STARCHAT_TOKENS.join(','), '--form', 'completion', '--k', '1,2', '--timeout', '3'],
            ...['--output-dir', out, '--metric_output_path', path.join(dir, `${task}-evaluation_results.json`)],
          ],
          { timeout: 300_000 },
        ),
      ]);
      const lines = readFileSync(path.join(out, 'samples.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { completion: string; passed: boolean; result: string });
      expect(lines.map((l) => l.completion)).toEqual(reference.solutions.flat());
      expect(lines.map((l) => l.passed)).toEqual(reference.passed.flat());
      expect(new Set(lines.map((l) => l.result)).size).toBeGreaterThan(2);
      const metrics = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, number>;
      expect(metrics['pass@1']).toBeCloseTo(reference.metrics['pass@1']!, 12);
      expect(metrics['pass@2']).toBeCloseTo(reference.metrics['pass@2']!, 12);
    },
    300_000,
  );

  describe.concurrent('one sweep over instruct-humaneval and instruct_wizard_humaneval against a scripted server', () => {
    const { config, env } = testConfig();
    const bucket = testBucket(config);
    let server: ScriptedLlmServer;
    /** The stop words of each dataset's completions requests. */
    const stops = { ih: [] as unknown[], wizard: [] as unknown[] };
    const problems = family.load({
      entry: family.entrySchema.parse({ name: 'ih', family: 'instruct-humaneval', path: 'x.jsonl', instruction_tokens: STARCHAT_TOKENS }),
      texts: { rows: jsonl(INSTRUCT_ROWS) },
      sources: { rows: 'x.jsonl' },
    }).problems;
    /** Even tasks answered with the dataset's body, odd ones with a wrong one. */
    const bodies = new Map(problems.map((p, i) => [p.prompt, i % 2 === 0 ? INSTRUCT_ROWS[i]!.canonical_solution : '    return None\n']));
    const wizardProblems = wizard.load({
      entry: { name: 'wizard', family: 'instruct-wizard-humaneval', path: 'HumanEval.jsonl' },
      texts: { rows: jsonl(WIZARD_ROWS) },
      sources: { rows: 'HumanEval.jsonl' },
    }).problems;
    /** Even tasks answered with the dataset's function, odd ones with a wrong one. */
    const wizardAnswers = new Map(
      wizardProblems.map((p, i) => [
        p.prompt,
        i % 2 === 0 ? wizard.referenceSolution(p)! : `def ${p.entry_point}(*args):\n    return None`,
      ]),
    );

    /** instruct-humaneval's model answers: a raw body after the prompt, or a fenced function. */
    function instructReply(req: ScriptedRequest): { content: string } | undefined {
      if (req.api === 'completions') {
        const body = bodies.get(String(req.body.prompt));
        if (body === undefined) return undefined;
        stops.ih.push(req.body.stop);
        return { content: `${body}\nprint("more")\n` };
      }
      const user = (req.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'user')!.content;
      const i = INSTRUCT_ROWS.findIndex((r) => user.includes(r.instruction.trim()));
      const row = INSTRUCT_ROWS[i];
      return row
        ? {
            content: `\`\`\`python\n${row.prompt.slice(row.prompt.indexOf('def '))}${i % 2 === 0 ? row.canonical_solution : '    return None\n'}\`\`\`\n`,
          }
        : undefined;
    }

    /** A WizardCoder-style model's answers: prose around a fenced function (tab-indented on the completions API). */
    function wizardReply(req: ScriptedRequest): { content: string } | undefined {
      if (req.api === 'completions') {
        const answer = wizardAnswers.get(String(req.body.prompt));
        if (answer === undefined) return undefined;
        stops.wizard.push(req.body.stop);
        return { content: `\nHere is the code:\n\`\`\`python\n${answer.replaceAll('    ', '\t')}\n\`\`\`\nDone.</s>` };
      }
      const user = (req.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'user')!.content;
      const answer = [...wizardAnswers.entries()].find(([prompt]) => user.includes(prompt))?.[1];
      return answer ? { content: `\`\`\`python\n${answer}\n\`\`\`\n` } : undefined;
    }

    beforeAll(async () => {
      // WizardCoder's template first: a request holding its whole prompt is certainly its.
      server = await startScriptedLlmServer((req) => wizardReply(req) ?? instructReply(req) ?? { content: 'no idea' });
    });
    afterAll(async () => {
      await server.close();
      bucket.s3.destroy();
    });

    it("pass@1 is the share of tasks answered right, for both families and both APIs; each family's stop words; files, bigcode's metrics, the report", async () => {
      const id = `instruct-${uniqueSuffix()}`;
      // A folder of its own: the evaluate.ts cases write theirs in `dir` meanwhile.
      const sweepDir = path.join(dir, 'sweep');
      mkdirSync(sweepDir);
      const rowsFile = path.join(sweepDir, 'instructhumaneval.jsonl');
      writeFileSync(rowsFile, jsonl(INSTRUCT_ROWS));
      const wizardFile = path.join(sweepDir, 'sweep-HumanEval.jsonl');
      writeFileSync(wizardFile, jsonl(WIZARD_ROWS));
      const { outDir, results, output } = await sweepWithOutputDir({
        dir: sweepDir,
        id,
        env,
        bucket,
        flags: ['--check-references'],
        yaml: `id: ${id}
datasets:
  - name: ih
    family: instruct-humaneval
    path: ${rowsFile}
    instruction_tokens: ${JSON.stringify(STARCHAT_TOKENS)}
  - name: wizard
    family: instruct-wizard-humaneval
    path: ${wizardFile}
${scriptedModelsYaml(server.url)}methods: [direct]
temperatures: [0]
n_samples: 1
k: [1]
timeout_s: 5
`,
      });
      expect(output).toContain(`ih: ${INSTRUCT_ROWS.length} of ${INSTRUCT_ROWS.length} references pass`);
      expect(output).toContain(`wizard: ${WIZARD_ROWS.length} of ${WIZARD_ROWS.length} references pass`);
      expect(results.cells).toHaveLength(4);
      for (const cell of results.cells) {
        const cellId = String(cell.cell.cell);
        const dataset = String(cell.cell.dataset);
        expect(cell.passAtK['pass@1'], cellId).toBeCloseTo(2 / 3, 12);
        await expectCellFilesAsStored(bucket, id, outDir, cellId);
        expect(outputJson(outDir, cellId, 'evaluation_results.json')[dataset]).toEqual(cell.passAtK);
      }
      expect(results.cells.map((c: { cell: { dataset: string } }) => c.cell.dataset).sort()).toEqual(['ih', 'ih', 'wizard', 'wizard']);
      expect(stops.ih.length).toBe(INSTRUCT_ROWS.length);
      for (const s of stops.ih) expect(s).toEqual(instructStopWords(STARCHAT_TOKENS).slice(0, 4));
      // instruct_wizard_humaneval sends no stop words.
      for (const s of stops.wizard) expect(s === undefined || (Array.isArray(s) && s.length === 0)).toBe(true);
      expect(stops.wizard.length).toBe(WIZARD_ROWS.length);
      const report = await runTs('scripts/report.ts', [id, '--out', sweepDir], env);
      expect(report.code, report.output).toBe(0);
      expect(readFileSync(path.join(sweepDir, `report-${id}.html`), 'utf8')).toContain('wizard');
    }, 600_000);
  });
});
