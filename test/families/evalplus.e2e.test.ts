/**
 * evalplus end to end: a sweep over HumanEval+ and MBPP+ rows (written by hand in the release
 * format, test/support/evalplus-rows.ts) against a scripted server whose samples are right, right
 * on the base inputs only, or wrong: each cell's base and plus pass@1 are what the samples imply,
 * in results.json, the sweep's results and the report; the canonical solutions' outputs are cached
 * in the bucket by content, so a second sweep computes none.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cellFileKey, sweepResultsKey } from '../../domain/sweep/keys.js';
import { getText, listKeys } from '../../infra/s3.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { runTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { HUMANEVAL_PLUS_TASKS, jsonl, MBPP_PLUS_TASKS, type EvalplusFixtureTask } from '../support/evalplus-rows.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';

const N = 4;

/** The completion of sample i of a task: its scripted samples in turn. */
function sampleOf(task: EvalplusFixtureTask, i: number) {
  return task.samples[i % task.samples.length]!;
}

/** pass@1 of a score over tasks: the mean share of each task's N samples that pass it. */
function expectedPassAt1(tasks: EvalplusFixtureTask[], score: 'base' | 'plus'): number {
  const shares = tasks.map((t) => Array.from({ length: N }, (_, i) => sampleOf(t, i)[score]).filter(Boolean).length / N);
  return shares.reduce((a, s) => a + s, 0) / shares.length;
}

describe('a sweep over HumanEval+ and MBPP+ rows, against a scripted server', () => {
  const { config, env } = testConfig();
  const bucket = testBucket(config);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-evalplus-'));
  const tasks = [...HUMANEVAL_PLUS_TASKS, ...MBPP_PLUS_TASKS];
  const byPrompt = new Map(tasks.map((t) => [t.prompt, t]));
  const served = new Map<string, number>();
  const chatInstructions: string[] = [];
  let server: ScriptedLlmServer;

  beforeAll(async () => {
    writeFileSync(path.join(dir, 'HumanEvalPlus.jsonl'), jsonl(HUMANEVAL_PLUS_TASKS));
    writeFileSync(path.join(dir, 'MbppPlus.jsonl'), jsonl(MBPP_PLUS_TASKS));
    server = await startScriptedLlmServer((req) => {
      // Completions continue the prompt; chat answers (asked with evalplus's instruction) are the
      // whole program in a python block: the stub and its body (HumanEval+) or the code (MBPP+).
      const chat = req.api === 'chat';
      const user = chat ? (req.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'user')!.content : '';
      const task = chat ? tasks.find((t) => user.includes(t.prompt)) : byPrompt.get(String(req.body.prompt));
      if (!task) return { content: 'pass\n' };
      if (chat) chatInstructions.push(user);
      const n = Number(req.body.n ?? 1);
      const key = `${req.api} ${task.task_id}`;
      const first = served.get(key) ?? 0;
      served.set(key, first + n);
      const texts = Array.from({ length: n }, (_, i) => {
        const completion = sampleOf(task, first + i).completion;
        return chat
          ? `Sure:\n\`\`\`python\n${task.task_id.startsWith('Mbpp/') ? completion : task.prompt + completion}\`\`\`\n`
          : completion;
      });
      return { content: n === 1 ? texts[0]! : texts };
    });
  });
  afterAll(async () => {
    await server.close();
    bucket.s3.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  function sweepYaml(id: string): string {
    return `id: ${id}
datasets:
  - name: humanevalplus
    family: evalplus
    variant: humaneval
    path: HumanEvalPlus.jsonl
    min_time_limit: 1
  - name: mbppplus
    family: evalplus
    variant: mbpp
    path: MbppPlus.jsonl
models:
  - id: base
    base_url: ${server.url}
    model: scripted-base
    api: completions
  - id: chat
    base_url: ${server.url}
    model: scripted-chat
methods: [direct]
temperatures: [0.8]
n_samples: ${N}
k: [1]
timeout_s: 10
`;
  }

  it('base and plus pass@1 are what the samples imply; the reference outputs are computed once per content', async () => {
    const id = `evalplus-${uniqueSuffix()}`;
    const file = path.join(dir, 'sweep.yaml');
    writeFileSync(file, sweepYaml(id));
    const outDir = path.join(dir, `out-${id}`);
    const run = await runTs(
      'scripts/start-sweep.ts',
      ['--config', file, '--no-progress', '--check-references', '--output-dir', outDir],
      env,
    );
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain(`humanevalplus: ${HUMANEVAL_PLUS_TASKS.length} of ${HUMANEVAL_PLUS_TASKS.length} references pass`);
    expect(run.output).toContain(`mbppplus: ${MBPP_PLUS_TASKS.length} of ${MBPP_PLUS_TASKS.length} references pass`);

    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!);
    // Both models, both datasets; the chat model was given evalplus's instruction.
    expect(results.cells).toHaveLength(4);
    expect(chatInstructions.length).toBeGreaterThan(0);
    for (const text of chatInstructions)
      expect(text).toContain('Please provide a self-contained Python script that solves the following problem in a markdown code block.');
    for (const cell of results.cells) {
      const mine = cell.cell.dataset === 'mbppplus' ? MBPP_PLUS_TASKS : HUMANEVAL_PLUS_TASKS;
      const base = expectedPassAt1(mine, 'base');
      const plus = expectedPassAt1(mine, 'plus');
      // The fixtures make the two differ: plus inputs catch samples that pass base.
      expect(plus).toBeLessThan(base);
      expect(cell.scores.kind).toBe('named');
      expect(cell.scores.byName.base.passAtK['pass@1']).toBeCloseTo(base, 10);
      expect(cell.scores.byName.plus.passAtK['pass@1']).toBeCloseTo(plus, 10);
      // The headline pass@1 is plus, evalplus's base + extra.
      expect(cell.passAtK['pass@1']).toBeCloseTo(plus, 10);

      const cellResults = JSON.parse((await getText(bucket, cellFileKey(id, String(cell.cell.cell), 'results.json')))!);
      expect(cellResults.scores.base['pass@1']).toBeCloseTo(base, 10);
      expect(cellResults.scores.plus['pass@1']).toBeCloseTo(plus, 10);
      for (const t of cellResults.per_task) {
        const task = mine.find((m) => m.task_id === t.task_id)!;
        const want = (score: 'base' | 'plus') => Array.from({ length: N }, (_, i) => sampleOf(task, i)[score]).filter(Boolean).length;
        expect(t.scores, t.task_id).toEqual({ base: want('base'), plus: want('plus') });
      }

      // --output-dir: evalplus's eval_results.json beside explora's files: each sample's solution
      // (as generations.json has it) and status per phase, and both pass@k.
      const cellDir = path.join(outDir, String(cell.cell.cell));
      const evalResults = JSON.parse(readFileSync(path.join(cellDir, 'eval_results.json'), 'utf8')) as {
        date: string;
        eval: Record<
          string,
          Array<{ task_id: string; solution: string; base_status: string; plus_status: string; base_fail_tests: unknown[] }>
        >;
        pass_at_k: { base: Record<string, number>; plus: Record<string, number> };
      };
      expect(evalResults.date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
      expect(evalResults.pass_at_k).toEqual({ base: cell.scores.byName.base.passAtK, plus: cell.scores.byName.plus.passAtK });
      const generations = JSON.parse(readFileSync(path.join(cellDir, 'generations.json'), 'utf8')) as string[][];
      expect(Object.keys(evalResults.eval)).toEqual(mine.map((m) => m.task_id));
      mine.forEach((task, t) => {
        const rows = evalResults.eval[task.task_id]!;
        expect(rows.map((r) => r.solution)).toEqual(generations[t]);
        const statuses = (score: 'base' | 'plus') => Array.from({ length: N }, (_, i) => (sampleOf(task, i)[score] ? 'pass' : 'fail'));
        expect(
          rows.map((r) => r.base_status),
          task.task_id,
        ).toEqual(statuses('base'));
        expect(
          rows.map((r) => r.plus_status),
          task.task_id,
        ).toEqual(statuses('plus'));
      });
    }

    // The canonical solutions' outputs are in the bucket's cache, one per task; a second sweep
    // (another id) reads them instead of computing them again: a new run would record new times.
    // It runs while the first sweep's report is made.
    const cached = async () => {
      const entries: string[] = [];
      for await (const k of listKeys(bucket, 'cache/reference-outputs/')) entries.push(`${k} ${await getText(bucket, k)}`);
      return entries;
    };
    const before = await cached();
    expect(before.length).toBeGreaterThanOrEqual(tasks.length);
    const again = `evalplus-${uniqueSuffix()}`;
    const againFile = path.join(dir, 'again.yaml');
    writeFileSync(againFile, sweepYaml(again));
    const [report, second] = await Promise.all([
      runTs('scripts/report.ts', [id, '--out', dir], env),
      runTs('scripts/start-sweep.ts', ['--config', againFile, '--no-progress'], env),
    ]);
    // The report shows both scores.
    expect(report.code, report.output).toBe(0);
    const html = readFileSync(path.join(dir, `report-${id}.html`), 'utf8');
    expect(html).toContain('id="named-scores-table"');
    expect(html).toMatch(/<td>humanevalplus<\/td>.*<td>base<\/td>/);
    expect(html).toMatch(/<td>mbppplus<\/td>.*<td>plus<\/td>/);

    expect(second.code, second.output).toBe(0);
    expect((await cached()).sort()).toEqual(before.sort());
  });
});
