/**
 * LiveCodeBench end to end: scripts/evaluate.ts on code_generation_lite rows with samples
 * {task_id, completion}, with and without a contamination window (--release-after), whose pass@k
 * is what LiveCodeBench's own code computes on the same rows and samples
 * (test/families/livecodebench_reference.py, test venv); and a sweep through Temporal against a
 * scripted chat server, one dataset without a window and one with it, whose cells' pass@1 are
 * what the samples imply on each dataset's problems, with the window in the sweep's output and
 * the report's config, and the cells' files in --output-dir as stored; a sweep of two models with
 * `release_after: model_cutoff`, each cell over its own model's window and saying which; start-sweep.ts
 * refuses a dataset whose window starts before a model's training_cutoff.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LCB_SYSTEM_MESSAGE } from '../../domain/families/livecodebench/prompt.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { LCB_TASKS, lcbJsonl, type LcbFixtureTask } from '../support/livecodebench-rows.js';
import { beforeAllTestPython, runReference } from '../support/bigcode-tasks.js';
import { RUN_ENTRY, runTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { expectCellFilesAsStored, outputJson, sweepWithOutputDir } from '../support/sweep-output.js';

const run = promisify(execFile);
const WINDOW_START = '2024-05-01';
const inWindow = (t: LcbFixtureTask) => t.contest_date >= WINDOW_START;
/** The one problem released between the per-model sweep's two cut-offs (2024-04-30, 2024-06-30). */
const ONLY_EARLY = '3143';

const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-lcb-'));
const rowsFile = path.join(dir, 'test5.jsonl');
beforeAllTestPython();
writeFileSync(rowsFile, lcbJsonl(LCB_TASKS));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** LiveCodeBench's pass@k of the samples, from its own code. */
async function lcbMetrics(tasks: readonly LcbFixtureTask[], k: number[], startDate?: string): Promise<Record<string, number>> {
  const input = {
    rows: tasks.map((t) => t.line),
    timeout: 6,
    k,
    ...(startDate ? { start_date: startDate } : {}),
    samples: Object.fromEntries(tasks.map((t) => [t.question_id, t.samples.map((s) => s.code)])),
  };
  return (await runReference<{ metrics: Record<string, number> }>(path.resolve(import.meta.dirname, 'livecodebench_reference.py'), input))
    .metrics;
}

async function evaluate(samples: readonly LcbFixtureTask[], flags: string[]) {
  const samplesFile = path.join(dir, `samples-${flags.length}.jsonl`);
  writeFileSync(
    samplesFile,
    samples.flatMap((t) => t.samples.map((s) => JSON.stringify({ task_id: t.question_id, completion: s.code }) + '\n')).join(''),
  );
  const { stdout, stderr } = await run(
    process.execPath,
    [RUN_ENTRY, 'scripts/evaluate.ts', '--problems', rowsFile, '--samples', samplesFile, '--k', '1,2', ...flags],
    { timeout: 300_000 },
  );
  return { metrics: JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, number>, stderr };
}

// The out-of-window tasks get two right answers: the window changes the figure.
const TASKS: LcbFixtureTask[] = LCB_TASKS.map((t) =>
  inWindow(t) ? t : { ...t, samples: [t.samples[0]!, { ...t.samples[0]!, what: 'right again' }] },
);

// The cases and the sweeps only wait on their processes (evaluate.ts, LiveCodeBench's Python, start-sweep.ts): they run at once.
describe.concurrent('LiveCodeBench through evaluate.ts, start-sweep.ts --dry-run and sweeps', () => {
  it("evaluate.ts: pass@1 and pass@2 are LiveCodeBench's, over all problems and over the window", async () => {
    const outside = TASKS.filter((t) => !inWindow(t));
    // Samples of every problem with a window, as LiveCodeBench is run: those outside it are skipped and counted.
    const outDir = path.join(dir, 'windowed-out');
    const metricFile = path.join(dir, 'windowed-evaluation_results.json');
    // Every run at once: each writes files of its own.
    const [all, theirsAll, windowed, theirsWindow, none, refused] = await Promise.all([
      evaluate(TASKS, []),
      lcbMetrics(TASKS, [1, 2]),
      evaluate(TASKS, ['--release-after', WINDOW_START, '--output-dir', outDir, '--metric_output_path', metricFile]),
      lcbMetrics(TASKS, [1, 2], WINDOW_START),
      // Only samples outside the window: nothing to score, said so.
      evaluate(outside, ['--release-after', WINDOW_START]).catch((e: { code: number; stderr: string }) => e),
      run(
        process.execPath,
        [RUN_ENTRY, 'scripts/evaluate.ts', '--problems', rowsFile, '--samples', rowsFile, '--release-after', '2024-5-1'],
        {
          timeout: 120_000,
        },
      ).catch((e: { code: number; stderr: string }) => e),
    ]);
    expect(all.metrics['pass@1']).toBeCloseTo(theirsAll['pass@1']!, 12);
    expect(all.metrics['pass@2']).toBeCloseTo(theirsAll['pass@2']!, 12);
    expect(all.metrics['pass@1']).toBeCloseTo(7 / 10, 12);

    expect(windowed.metrics['pass@1']).toBeCloseTo(theirsWindow['pass@1']!, 12);
    expect(windowed.metrics['pass@1']).toBeCloseTo(1 / 2, 12);
    expect(windowed.metrics['pass@2']).toBeCloseTo(theirsWindow['pass@2']!, 12);
    expect(outside.length).toBeGreaterThan(0);
    expect(windowed.stderr).toContain(
      `evaluate: ${outside.flatMap((t) => t.samples).length} samples of ${outside.length} problems skipped: their problems are outside the window (LiveCodeBench scores those released from ${WINDOW_START})`,
    );
    // The cell's results.json says which window its numbers are for.
    const results = JSON.parse(readFileSync(path.join(outDir, 'results.json'), 'utf8')) as Record<string, unknown>;
    expect(results).toMatchObject({ release_window: `released from ${WINDOW_START}`, release_after: WINDOW_START });
    // And bigcode's evaluation_results.json, in the settings of the run.
    const bigcodeFile = JSON.parse(readFileSync(metricFile, 'utf8')) as { config: Record<string, unknown> };
    expect(bigcodeFile.config).toMatchObject({ release_window: `released from ${WINDOW_START}`, release_after: WINDOW_START });
    expect(none).toMatchObject({ code: 2 });
    expect((none as { stderr: string }).stderr).toContain('every sample is of a problem left out');

    expect(refused).toMatchObject({ code: 2 });
    expect((refused as { stderr: string }).stderr).toContain('--release-after');
  }, 600_000);

  it("start-sweep.ts refuses a LiveCodeBench dataset whose window starts before a model's training cut-off; plans a window per model", async () => {
    const file = path.join(dir, 'cutoff.yaml');
    writeFileSync(
      file,
      `datasets:
  - name: lcb
    family: livecodebench
    path: ${rowsFile}
    release_after: '2024-05-01'
models:
  - id: late
    base_url: http://127.0.0.1:1/v1
    model: m
    training_cutoff: '2024-06-30'
methods: [direct]
temperatures: [0.2]
n_samples: 1
k: [1]
`,
    );
    const refused = await runTs('scripts/start-sweep.ts', ['--config', file, '--dry-run'], {});
    expect(refused.code, refused.output).not.toBe(0);
    expect(refused.output).toContain(
      "datasets[0].release_after: model late (models[0]) has training_cutoff 2024-06-30: problems released up to it may be in its training data; set release_after: '2024-07-01' or later",
    );
    // A window per model instead: each model's cells on the problems after its own cut-off.
    writeFileSync(
      file,
      readFileSync(file, 'utf8')
        .replace("release_after: '2024-05-01'", 'release_after: model_cutoff')
        .replace(
          'methods:',
          "  - id: early\n    base_url: http://127.0.0.1:1/v1\n    model: m\n    training_cutoff: '2024-04-30'\nmethods:",
        ),
    );
    const planned = await runTs('scripts/start-sweep.ts', ['--config', file, '--dry-run'], {});
    expect(planned.code, planned.output).toBe(0);
    const after = (day: string) => LCB_TASKS.filter((t) => t.contest_date >= day).length;
    expect(planned.output).toMatch(new RegExp(`lcb-from-2024-07-01\\.late\\.direct\\.t0\\.2 +${after('2024-07-01')} `));
    expect(planned.output).toMatch(new RegExp(`lcb-from-2024-05-01\\.early\\.direct\\.t0\\.2 +${after('2024-05-01')} `));
    expect(planned.output).not.toContain('lcb-from-2024-05-01.late');
  }, 120_000);

  describe('a sweep over LiveCodeBench rows, with and without a window, against a scripted chat server', () => {
    const { config, env } = testConfig();
    // The per-model sweep runs at the same time as the other: on task queues of its own.
    const perModelEnv = testConfig().env;
    const bucket = testBucket(config);
    let server: ScriptedLlmServer;
    const systems = new Set<string>();

    beforeAll(async () => {
      server = await startScriptedLlmServer((req) => {
        const messages = req.body.messages as Array<{ role: string; content: string }>;
        // The per-model sweep's models send the default system message; the other sweep's, LiveCodeBench's.
        const perModel = String(req.body.model).startsWith('per-model-');
        if (!perModel) for (const m of messages) if (m.role === 'system') systems.add(m.content);
        const user = messages.find((m) => m.role === 'user')!.content;
        const task = TASKS.find((t) => user.includes(JSON.parse(t.line).question_content as string));
        if (!task) return { content: 'no task' };
        // Sample i is sent with seed 0 + i (the sweep's seed): it gets the task's sample i; the
        // per-model sweep's models get the right answer but on the task in the early model's window alone.
        const i = perModel ? (task.question_id === ONLY_EARLY ? 1 : 0) : Number(req.body.seed ?? 0);
        return { content: `Here it is:\n\`\`\`python\n${task.samples[i % task.samples.length]!.code}\n\`\`\`\n` };
      });
    });
    afterAll(async () => {
      await server.close();
      bucket.s3.destroy();
    });

    it("release_after: model_cutoff: each model's cell is over the problems after its own cut-off, and says so", async () => {
      const sub = path.join(dir, 'per-model');
      mkdirSync(sub, { recursive: true });
      const id = `lcb-cutoff-${uniqueSuffix()}`;
      const { outDir, results } = await sweepWithOutputDir({
        dir: sub,
        id,
        env: perModelEnv,
        bucket,
        yaml: `id: ${id}
datasets:
  - name: lcb
    family: livecodebench
    path: ${rowsFile}
    release_after: model_cutoff
models:
  - id: early
    base_url: ${server.url}
    model: per-model-early
    training_cutoff: '2024-04-30'
  - id: late
    base_url: ${server.url}
    model: per-model-late
    training_cutoff: '2024-06-30'
methods: [direct]
temperatures: [0.2]
n_samples: 1
k: [1]
timeout_s: 10
`,
      });
      const windows = { early: '2024-05-01', late: '2024-07-01' } as const;
      expect(results.cells.map((c) => `${String(c.cell.model)} ${String(c.cell.dataset)}`).sort()).toEqual([
        'early lcb-from-2024-05-01',
        'late lcb-from-2024-07-01',
      ]);
      for (const cell of results.cells) {
        const from = windows[cell.cell.model as keyof typeof windows];
        const own = TASKS.filter((t) => t.contest_date >= from);
        const cellId = String(cell.cell.cell);
        const cellResults = outputJson(outDir, cellId, 'results.json') as { per_task: Array<{ task_id: string }> } & Record<
          string,
          unknown
        >;
        // Its own window's problems only: the early model's one wrong answer counts in its cell alone.
        expect(cellResults.per_task.map((t) => t.task_id).sort()).toEqual(own.map((t) => t.question_id).sort());
        expect(cell.passAtK['pass@1']).toBeCloseTo(own.filter((t) => t.question_id !== ONLY_EARLY).length / own.length, 12);
        const window = { release_window: `released from ${from}`, release_after: from };
        expect(cellResults).toMatchObject(window);
        expect(cell.cell).toMatchObject(window);
        expect((outputJson(outDir, cellId, 'evaluation_results.json') as { config: unknown }).config).toMatchObject(window);
      }
    }, 300_000);

    it("each dataset's pass@1 is over its problems; the window is in the output, each cell's results and the report's config", async () => {
      const id = `lcb-${uniqueSuffix()}`;
      const { output, outDir, results } = await sweepWithOutputDir({
        dir,
        id,
        env,
        bucket,
        yaml: `id: ${id}
datasets:
  - name: lcb-all
    family: livecodebench
    path: ${rowsFile}
  - name: lcb-after-2024-05
    family: livecodebench
    path: ${rowsFile}
    release_after: '${WINDOW_START}'
models:
  - id: chat
    base_url: ${server.url}
    model: scripted-chat
    prompt:
      system: ${JSON.stringify(LCB_SYSTEM_MESSAGE)}
methods: [direct]
temperatures: [0.2]
n_samples: 2
k: [1, 2]
timeout_s: 10
`,
      });
      expect(output).toContain(`${rowsFile}: 5 problems of every release date (no contamination window)`);
      expect(output).toContain(`${rowsFile}: 3 problems released from ${WINDOW_START}; 2 outside the window left out`);
      expect([...systems]).toEqual([LCB_SYSTEM_MESSAGE]);
      const byDataset = new Map(results.cells.map((c) => [String(c.cell.dataset), c]));
      expect(byDataset.get('lcb-all').passAtK['pass@1']).toBeCloseTo(7 / 10, 12);
      expect(byDataset.get('lcb-after-2024-05').passAtK['pass@1']).toBeCloseTo(1 / 2, 12);
      expect(byDataset.get('lcb-after-2024-05').passAtK['pass@2']).toBeCloseTo(1, 12);
      for (const cell of results.cells) {
        const cellId = String(cell.cell.cell);
        await expectCellFilesAsStored(bucket, id, outDir, cellId);
        const cellResults = outputJson(outDir, cellId, 'results.json') as { per_task: Array<{ task_id: string }> } & Record<
          string,
          unknown
        >;
        const tasks = cellResults.per_task.map((t) => t.task_id);
        // The window the cell's figures are over, in its results.json and the sweep's (as evaluate.ts's results.json says it).
        const window =
          cell.cell.dataset === 'lcb-all' ? {} : { release_window: `released from ${WINDOW_START}`, release_after: WINDOW_START };
        for (const record of [cellResults, cell.cell as Record<string, unknown>])
          expect(
            Object.fromEntries(['release_window', 'release_after', 'release_before'].flatMap((k) => (k in record ? [[k, record[k]]] : []))),
          ).toEqual(window);
        expect(tasks.sort()).toEqual(
          TASKS.filter((t) => cell.cell.dataset === 'lcb-all' || inWindow(t))
            .map((t) => t.question_id)
            .sort(),
        );
      }

      const report = await runTs('scripts/report.ts', [id, '--out', dir], env);
      expect(report.code, report.output).toBe(0);
      const html = readFileSync(path.join(dir, `report-${id}.html`), 'utf8');
      expect(html).toContain(`release_after`);
      expect(html).toContain(WINDOW_START);
    }, 600_000);
  });
});
