/**
 * The report of a real sweep (real Temporal, SeaweedFS and sandbox, a scripted OpenAI-compatible
 * server): built by the activity into S3 and by the CLI into a file, opened in headless Chromium,
 * charts checked for what they drew, the drill-down clicked open, a screenshot saved.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chartJsSource, createReportActivities } from '../../activities/storage/report.js';
import { getText } from '../../infra/s3.js';
import { renderSweepReport } from '../../domain/report/html.js';
import { sweepReportKey } from '../../domain/report/model.js';
import { sweepResultsKey } from '../../domain/sweep/keys.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { runTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { humanEvalProblems, pbeProblems, scriptedAnswers, scriptedSweepYaml, SMALL_PBE, type Fault } from '../sweep/support.js';
import { canvasInk, openBrowser, type OpenBrowser } from '../support/browser.js';
import { synthReport } from './support.js';

const { config, env } = testConfig();
const bucket = testBucket(config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-report-'));
/** Kept after the run, to be looked at. */
const SHOTS = path.join(os.tmpdir(), 'explora-report-screenshots');
const N = 4;
const LIMIT = 3;
const problems = [...humanEvalProblems(LIMIT), ...pbeProblems(SMALL_PBE).slice(0, LIMIT)];
// One request refused for good: its sample is an llm_error in the report.
const faults = new Map<string, Fault>([['pbe#1#2', '400']]);
const sweepId = `report-${uniqueSuffix()}`;

let server: ScriptedLlmServer;
let browser: OpenBrowser;
let html = '';
let reportFile = '';
let results: {
  cells: Array<{
    cell: { cell: string; dataset: string; model: string; method: string; temperature: number };
    passAtK: Record<string, number>;
    successAtK: Record<string, number>;
    samples: number;
  }>;
};

beforeAll(async () => {
  server = await startScriptedLlmServer(scriptedAnswers(problems, faults));
  const file = path.join(dir, 'sweep.yaml');
  writeFileSync(
    file,
    `id: ${sweepId}
${scriptedSweepYaml(server.url, N, LIMIT)}`,
  );
  const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
  if (run.code !== 0) throw new Error(`the sweep failed:\n${run.output}`);
  results = JSON.parse((await getText(bucket, sweepResultsKey(sweepId)))!);
  browser = await openBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** The page's globals, as the test reads them (this project's TypeScript has no DOM types). */
interface PageGlobals {
  __exploraCharts: Record<string, any>;
  __pwned?: number;
  scrollTo(x: number, y: number): void;
}

const label = (c: { model: string; method: string; temperature: number }) => `${c.model} · ${c.method} · t${c.temperature}`;

describe('the report of a real sweep', () => {
  it('the activity stores it at sweeps/<id>/report.html, heartbeating as it reads', async () => {
    const activity = new MockActivityEnvironment();
    let beats = 0;
    activity.on('heartbeat', () => beats++);
    const key = (await activity.run(createReportActivities(bucket).buildSweepReport, { sweepId })) as string;
    expect(key).toBe(`sweeps/${sweepId}/report.html`);
    expect(key).toBe(sweepReportKey(sweepId));
    expect(beats).toBeGreaterThan(4);
    html = (await getText(bucket, key))!;
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain(`Sweep ${sweepId}`);
    expect(html).toContain(chartJsSource());
  });

  it('the CLI writes the same page to <out>/report-<id>.html and prints the path; an unknown sweep is refused', async () => {
    const out = path.join(dir, 'out');
    const res = await runTs('scripts/report.ts', [sweepId, '--out', out], env);
    expect(res.code, res.output).toBe(0);
    reportFile = path.join(out, `report-${sweepId}.html`);
    expect(res.output.trim().split('\n').at(-1)).toBe(reportFile);
    const local = readFileSync(reportFile, 'utf8');
    const withoutTime = (s: string) => s.replace(/report generated [^<·]+/, '');
    expect(withoutTime(local)).toBe(withoutTime(html));

    const missing = await runTs('scripts/report.ts', [`no-such-${uniqueSuffix()}`, '--out', out], env);
    expect(missing.code).toBe(1);
    expect(missing.output).toMatch(/report: sweep no-such-\S+ has no results/);
    const bad = await runTs('scripts/report.ts', ['../escape', '--out', out], env);
    expect(bad.code).toBe(1);
    expect(bad.output).toMatch(/sweep id "..\/escape"/);
  });

  it('opens offline in Chromium and its charts draw the sweep’s numbers, with axis titles and legends', async () => {
    const { page, errors, external } = browser;
    await page.goto(`file://${reportFile}`);
    await page.waitForFunction(() => Object.keys((globalThis as unknown as Partial<PageGlobals>).__exploraCharts ?? {}).length > 0);
    expect(errors).toEqual([]);
    expect(external).toEqual([]);

    type Info = { id: string; type: string; title: string; x: string; y: string; legend: string[]; colors: string[]; data: unknown[][] };
    const charts: Info[] = await page.evaluate(() =>
      Object.entries((globalThis as unknown as PageGlobals).__exploraCharts).map(([id, c]) => ({
        id,
        type: c.config.type,
        title: c.options.plugins.title.text,
        x: c.options.scales.x.title.text,
        y: c.options.scales.y.title.text,
        legend: c.legend.legendItems.map((i: { text: string }) => i.text),
        colors: c.data.datasets.map((d: { borderColor: string }) => d.borderColor),
        data: c.data.datasets.map((d: { data: unknown[] }) => d.data),
      })),
    );
    // Two datasets: pass@k and success@k curves and a cost scatter each, the statuses, PBE's pipeline lengths.
    expect(charts.map((c) => c.id).sort()).toEqual(
      [
        'chart-cost-0',
        'chart-cost-1',
        'chart-passk-0',
        'chart-passk-1',
        'chart-pipeline-1',
        'chart-status',
        'chart-successk-0',
        'chart-successk-1',
      ].sort(),
    );
    for (const c of charts) {
      expect(c.title, c.id).toBeTruthy();
      expect(c.x, c.id).toBeTruthy();
      expect(c.y, c.id).toBeTruthy();
      expect(c.legend.length, c.id).toBeGreaterThan(0);
    }
    // The curves go through the sweep's own pass@k and success@k at the requested k.
    for (const [di, dataset] of ['humaneval', 'pbe'].entries()) {
      const cells = results.cells.filter((c) => c.cell.dataset === dataset);
      for (const [which, field] of [
        ['pass', 'passAtK'],
        ['success', 'successAtK'],
      ] as const) {
        const chart = charts.find((c) => c.id === `chart-${which}k-${di}`)!;
        expect(chart.legend).toEqual(cells.map((c) => label(c.cell)));
        cells.forEach((cell, i) => {
          const points = chart.data[i] as Array<{ x: number; y: number }>;
          expect(points.map((p) => p.x)).toEqual([1, 2, 3, 4]);
          for (const k of [1, 2, 4]) expect(points[k - 1]!.y).toBeCloseTo(cell[field][`${which}@${k}`]!, 12);
        });
      }
    }
    const status = charts.find((c) => c.id === 'chart-status')!;
    expect(status.legend).toEqual(expect.arrayContaining(['passed', 'failed', 'error', 'llm_error']));
    results.cells.forEach((cell, i) => expect(status.data.reduce((a, d) => a + (d[i] as number), 0)).toBe(cell.samples));

    // Every canvas drew, and drew its series: pixels of each series' color are on it.
    const colors = [...new Set(charts.flatMap((c) => c.colors))];
    const ink = await canvasInk(page, colors);
    expect(ink).toHaveLength(charts.length);
    for (const canvas of ink) {
      const chart = charts.find((c) => c.id === canvas.id)!;
      expect(canvas.width, canvas.id).toBeGreaterThan(300);
      expect(canvas.height, canvas.id).toBeGreaterThan(150);
      expect(canvas.inked / (canvas.width * canvas.height), canvas.id).toBeGreaterThan(0.01);
      chart.colors.forEach((color, i) => {
        const empty = (chart.data[i] ?? []).every((v) => v === 0 || v === null);
        if (!empty) expect(canvas.byColor[color], `${canvas.id} ${color}`).toBeGreaterThan(20);
      });
    }
    // Legends are in the page's text too.
    await expect(page.locator('#curves figcaption').first().textContent()).resolves.toContain('chatty · direct · t0.2');

    // The scatter switches its cost axis.
    await page.selectOption('.scatter-controls[data-chart="chart-cost-0"] select[name=metric]', 'calls');
    await page.selectOption('.scatter-controls[data-chart="chart-cost-0"] select[name=k]', '4');
    const axis = await page.evaluate(() => {
      const c = (globalThis as unknown as PageGlobals).__exploraCharts['chart-cost-0'];
      return { x: c.options.scales.x.title.text, y: c.options.scales.y.title.text, point: c.data.datasets[0].data[0] };
    });
    expect(axis.x).toBe('LLM calls per task');
    expect(axis.y).toBe('pass@4');
    expect(axis.point.y).toBeCloseTo(results.cells[0]!.passAtK['pass@4']!, 12);

    // The config's tables nested in key/value tables keep their cell padding (the models' table read
    // as one string, 'qwen-0.5bhttp://127.0.0.1:8090/v1...', when the key/value rule overrode it).
    const nestedCells = await page.evaluate(() => {
      const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<unknown> } }).document;
      const view = globalThis as unknown as { getComputedStyle(e: unknown): { paddingLeft: string; paddingRight: string } };
      return Array.from(doc.querySelectorAll('#config table.kv table.grid > tbody > tr > td')).map((td) => {
        const style = view.getComputedStyle(td);
        return Number.parseFloat(style.paddingLeft) + Number.parseFloat(style.paddingRight);
      });
    });
    expect(nestedCells.length).toBeGreaterThan(0);
    for (const padding of nestedCells) expect(padding).toBeGreaterThanOrEqual(8);

    mkdirSync(SHOTS, { recursive: true });
    const shot = path.join(SHOTS, `${sweepId}-top.png`);
    await page.evaluate(() => (globalThis as unknown as PageGlobals).scrollTo(0, 0));
    await page.screenshot({ path: shot });
    await page.locator('#curves').screenshot({ path: path.join(SHOTS, `${sweepId}-curves.png`) });
    await page.locator('#cost').screenshot({ path: path.join(SHOTS, `${sweepId}-cost.png`) });
    expect(readFileSync(shot).length).toBeGreaterThan(20_000);
    console.log(`report screenshots: ${SHOTS}/${sweepId}-*.png`);
  });

  it('drills down: a task shows its prompt, a sample its raw response, extracted code and result', async () => {
    const { page, errors } = browser;
    const task = page.locator('#task-humaneval-0');
    const prompt = task.locator('pre.prompt');
    expect(await prompt.isVisible()).toBe(false);
    await task.locator('> summary').click();
    await expect(prompt.textContent()).resolves.toContain(problems[0]!.prompt.trim().split('\n')[0]);
    expect(await prompt.isVisible()).toBe(true);

    // Scripted: sample 3 of task 0 raises ValueError('scripted crash'); sample 1 is correct.
    const chat = task.locator('.cell-samples[data-cell="humaneval.chatty.direct.t0.2"]');
    const crashed = chat.locator('details.sample[data-sample="3"]');
    expect(await crashed.locator('pre.raw').isVisible()).toBe(false);
    await crashed.locator('> summary').click();
    expect(await crashed.locator('pre.raw').isVisible()).toBe(true);
    await expect(crashed.locator('pre.raw').textContent()).resolves.toContain('Here you go:');
    await expect(crashed.locator('pre.code').textContent()).resolves.toContain("raise ValueError('scripted crash')");
    expect(await crashed.locator('table.result').isVisible()).toBe(true);
    await expect(crashed.locator('table.result').textContent()).resolves.toMatch(
      /status\s*error[\s\S]*exception\s*ValueError: scripted crash/,
    );

    const good = chat.locator('details.sample[data-sample="1"]');
    await good.locator('> summary').click();
    await expect(good.locator('table.result').textContent()).resolves.toMatch(/status\s*passed/);
    await expect(good.locator('pre.code').textContent()).resolves.toContain(`def ${problems[0]!.entry_point}(`);

    // An outcome link opens its task; the refused request's sample shows the LLM error.
    await page.locator('#outcomes a[href="#task-pbe-1"]').first().click();
    const pbeTask = page.locator('#task-pbe-1');
    await expect(pbeTask.evaluate((d) => (d as unknown as { open: boolean }).open)).resolves.toBe(true);
    const refused = pbeTask.locator('.cell-samples[data-cell="pbe.chatty.direct.t0.2"] details.sample[data-sample="2"]');
    await refused.locator('> summary').click();
    await expect(refused.locator('table.result').textContent()).resolves.toMatch(/status\s*llm_error[\s\S]*LLM error\s*\S/);

    await pbeTask.screenshot({ path: path.join(SHOTS, `${sweepId}-drilldown.png`) });
    expect(errors).toEqual([]);
  });

  it('at 1280 px: a jump lands below the sticky nav, and a wide provenance fits the page (synthetic data)', async () => {
    const { page, errors } = browser;
    const data = synthReport();
    // Every field a worker records, with the long values of a remote endpoint and a dozen compilers.
    const runtime = Object.fromEntries(
      ['node', 'python', 'go', 'rustc', 'javac', 'g++', 'ruby', 'php', 'lua', 'perl', 'Rscript', 'racket', 'ldc2', 'scala', 'mono'].map(
        (t) => [t, `${t} version 1.23.4 (build 2026-11-30, x86_64-unknown-linux-gnu)`],
      ),
    );
    for (const c of data.cells)
      c.provenance = {
        explora: { version: '0.42.0', commit: 'c0ffee'.repeat(6) + 'abcd' },
        config_sha256: 'ab'.repeat(32),
        dataset_sha256: 'cd'.repeat(32),
        model: {
          endpoint: 'https://inference.example.org/v1/deployments/a-rather-long-deployment-name',
          name: 'org/model-name-34b-instruct-v0.3',
          system_fingerprints: ['fp_0123456789'],
        },
        prompt_template_sha256: 'ef'.repeat(32),
        runtime,
      };
    const file = path.join(dir, 'layout.html');
    writeFileSync(file, renderSweepReport(data, { chartLibrary: chartJsSource() }));
    // At 1280 px, and at 700 px, where the nav used to wrap onto a second line taller than the jump's margin.
    for (const width of [700, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`file://${file}`);
      const links = await page.locator('nav a').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
      expect(links).toContain('#provenance');
      // The nav's sections, and the links inside the page (a task's drill-down, a prompt template).
      const inPage = await page.locator('main a[href^="#"]').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
      expect(inPage.length).toBeGreaterThan(0);
      for (const href of [...links, ...new Set(inPage)]) {
        await page.evaluate(() => (globalThis as unknown as PageGlobals).scrollTo(0, 0));
        await page.locator(`a[href="${href}"]`).first().click();
        // The jump's scroll is instant (no smooth scrolling in the page's CSS).
        const { navBottom, targetTop, scrollY } = await page.evaluate((id) => {
          const g = globalThis as unknown as { document: any; scrollY: number };
          const target = g.document.getElementById(id);
          return {
            navBottom: g.document.querySelector('nav').getBoundingClientRect().bottom as number,
            // A section's first line is its heading.
            targetTop: (target.querySelector(':scope > h2') ?? target).getBoundingClientRect().top as number,
            scrollY: g.scrollY,
          };
        }, href.slice(1));
        // Jumped (the page scrolled), and the first line is below the nav, not under it.
        expect(scrollY, `${width} px ${href}`).toBeGreaterThan(0);
        expect(targetTop, `${width} px ${href}`).toBeGreaterThanOrEqual(navBottom);
      }
    }
    const widths = await page.evaluate(() => {
      const g = globalThis as unknown as { document: any };
      const table = g.document.getElementById('provenance-table');
      const box = table.parentElement;
      const root = g.document.documentElement;
      return {
        table: [table.scrollWidth, table.clientWidth],
        box: [box.scrollWidth, box.clientWidth],
        page: [root.scrollWidth, root.clientWidth],
      };
    });
    // Nothing scrolls sideways: not the table, not its box, not the page.
    expect(widths.table[0], JSON.stringify(widths)).toBeLessThanOrEqual(widths.table[1]);
    expect(widths.box[0], JSON.stringify(widths)).toBeLessThanOrEqual(widths.box[1]);
    expect(widths.page[0], JSON.stringify(widths)).toBeLessThanOrEqual(widths.page[1]);
    // Every field is still there, named.
    expect(await page.locator('#provenance-table td[data-field="runtime.mono"]').count()).toBe(data.cells.length);
    await page.locator('#provenance').screenshot({ path: path.join(SHOTS, 'provenance-1280.png') });
    expect(errors).toEqual([]);
  });

  it('shows an exploration trace subtask by subtask, and hostile text stays text (synthetic data)', async () => {
    const { page, errors, external } = browser;
    const file = path.join(dir, 'synthetic.html');
    writeFileSync(file, renderSweepReport(synthReport(), { chartLibrary: chartJsSource() }));
    await page.goto(`file://${file}`);
    const task = page.locator('#task-pbe-2');
    await task.locator('> summary').click();
    const sample = task.locator('.cell-samples[data-cell="pbe.alpha.exploracoder.t0.2"] details.sample[data-sample="0"]');
    const subtask = sample.locator('li.subtask', { hasText: 'TRACE-SUBTASK-MARKER' });
    expect(await subtask.isVisible()).toBe(false);
    await sample.locator('> summary').click();
    expect(await subtask.isVisible()).toBe(true);
    await expect(sample.locator('.trace h5').textContent()).resolves.toBe('Exploration trace (exploracoder): 1 of 3 subtasks solved');
    expect(await sample.locator('li.subtask').count()).toBe(3);
    // The solved subtask starts folded; opening it shows the selected attempt.
    const first = sample.locator('li.subtask').first();
    expect(await first.locator('li.attempt.selected').isVisible()).toBe(false);
    await first.locator('summary').click();
    expect(await first.locator('li.attempt.selected pre.code').isVisible()).toBe(true);
    await expect(first.locator('li.attempt.selected pre.code').textContent()).resolves.toBe('print("a b".split())');

    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).__pwned)).toBeUndefined();
    expect(await page.locator('img').count()).toBe(0);
    expect(errors).toEqual([]);
    expect(external).toEqual([]);
    await sample.screenshot({ path: path.join(SHOTS, 'synthetic-trace.png') });
    expect(existsSync(path.join(SHOTS, 'synthetic-trace.png'))).toBe(true);

    // Filter by task id.
    await page.fill('input.task-filter[data-list="tasks-pbe"]', 'PBE/4');
    expect(await page.locator('#tasks-pbe details.task:not([hidden])').count()).toBe(1);
    expect(await page.locator('#task-pbe-4').isVisible()).toBe(true);
  });
});
