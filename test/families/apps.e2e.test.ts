/**
 * APPS end to end: a sweep over APPS rows (written by hand in codeparrot/apps's format,
 * test/support/apps-rows.ts) against a scripted completions server whose samples pass all, some or
 * none of a task's test cases: results.json (in --output-dir, as stored in S3), the sweep's
 * results and the report carry strict accuracy (= pass@1) and average test-case accuracy as the
 * samples imply; requests stop at bigcode's APPS stop words.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPS_STOP_WORDS } from '../../domain/families/apps/index.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { runTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { APPS_TASKS, appsJsonl, type AppsFixtureTask } from '../support/apps-rows.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { expectCellFilesAsStored, outputJson, scriptedModelsYaml, sweepWithOutputDir } from '../support/sweep-output.js';

const N = 3;
const sampleOf = (task: AppsFixtureTask, i: number) => task.samples[i % task.samples.length]!;
const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;

describe('a sweep over APPS rows, against a scripted server', () => {
  const { config, env } = testConfig();
  const bucket = testBucket(config);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-apps-'));
  const served = new Map<string, number>();
  const stops: unknown[] = [];
  let server: ScriptedLlmServer;

  beforeAll(async () => {
    writeFileSync(path.join(dir, 'test.jsonl'), appsJsonl(APPS_TASKS));
    server = await startScriptedLlmServer((req) => {
      stops.push(req.body.stop);
      const prompt = String(req.body.prompt);
      const task = APPS_TASKS.find((t) => prompt.includes(JSON.parse(t.line).question as string));
      if (!task) return { content: 'pass\n' };
      const n = Number(req.body.n ?? 1);
      const first = served.get(prompt) ?? 0;
      served.set(prompt, first + n);
      const texts = Array.from({ length: n }, (_, i) => `${sampleOf(task, first + i).code}\nQUESTION:\nafter a stop word\n`);
      return { content: n === 1 ? texts[0]! : texts };
    });
  });
  afterAll(async () => {
    await server.close();
    bucket.s3.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('strict accuracy and average test-case accuracy are what the samples imply', async () => {
    const id = `apps-${uniqueSuffix()}`;
    const { output, outDir, results } = await sweepWithOutputDir({
      dir,
      id,
      env,
      bucket,
      flags: ['--check-references'],
      yaml: `id: ${id}
datasets:
  - name: apps
    family: apps
    path: test.jsonl
    test_time_limit: 1
${scriptedModelsYaml(server.url, { chat: false })}methods: [direct]
temperatures: [0.8]
n_samples: ${N}
k: [1]
timeout_s: 10
`,
    });
    expect(output).toContain(`apps: ${APPS_TASKS.length} of ${APPS_TASKS.length} references pass`);
    const strict = mean(
      APPS_TASKS.map((t) => Array.from({ length: N }, (_, i) => sampleOf(t, i)).filter((s) => s.passed === s.total).length / N),
    );
    const average = mean(APPS_TASKS.map((t) => mean(Array.from({ length: N }, (_, i) => sampleOf(t, i).passed / sampleOf(t, i).total))));
    expect(average).toBeGreaterThan(strict);

    const [cell] = results.cells;
    expect(cell.passAtK['pass@1']).toBeCloseTo(strict, 10);
    expect(cell.scores).toEqual({
      kind: 'test_cases',
      strictAccuracy: expect.closeTo(strict, 10),
      averageTestCaseAccuracy: expect.closeTo(average, 10),
    });
    const cellId = String(cell.cell.cell);
    await expectCellFilesAsStored(bucket, id, outDir, cellId);
    const cellResults = outputJson(outDir, cellId, 'results.json');
    expect(cellResults.scores.average_test_case_accuracy).toBeCloseTo(average, 10);
    for (const t of cellResults.per_task) {
      const task = APPS_TASKS.find((a) => String(a.problem_id) === t.task_id)!;
      expect(t.test_case_accuracy, t.task_id).toBeCloseTo(
        mean(Array.from({ length: N }, (_, i) => sampleOf(task, i).passed / sampleOf(task, i).total)),
        10,
      );
    }
    for (const s of stops) expect(s).toEqual(APPS_STOP_WORDS);

    const report = await runTs('scripts/report.ts', [id, '--out', dir], env);
    expect(report.code, report.output).toBe(0);
    const html = readFileSync(path.join(dir, `report-${id}.html`), 'utf8');
    expect(html).toContain('id="test-case-scores-table"');
  });
});
