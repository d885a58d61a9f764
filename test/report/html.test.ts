import { describe, expect, it } from 'vitest';
import { estimateAtK, meanInterval } from '../../domain/metrics/passAtK.js';
import { atKCurve, curveKs, datasetOutcomes, selectDrillTasks, selectSamples } from '../../domain/report/analysis.js';
import { esc, jsonForScript, renderSweepReport, scriptSource } from '../../domain/report/html.js';
import type { ReportSample, SweepReportData } from '../../domain/report/model.js';
import { ReportSampleSchema } from '../../domain/report/model.js';
import { paperAnalyses } from '../../domain/report/paperAnalyses.js';
import { ExplorationTraceSchema } from '../../domain/report/trace.js';
import { counts, HOSTILE, synthCell, synthReport, synthTrace } from './support.js';

const FAKE_LIB = '/*FAKE-CHART-LIB*/ window.Chart = function () {};';

interface Spec {
  id: string;
  type: string;
  title: string;
  xLabel: string;
  yLabel: string;
  labels?: string[];
  datasets: Array<{
    label: string;
    data: Array<number | null | { x: number; y: number }>;
    band?: Array<{ x: number; low: number | null; high: number | null }>;
  }>;
  variants?: Record<string, { datasets: Array<{ label: string; data: Array<{ x: number; y: number }> }> }>;
}

function chartsOf(html: string): Spec[] {
  const m = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html);
  expect(m).not.toBeNull();
  return JSON.parse(m![1]!).charts as Spec[];
}

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

describe('renderSweepReport', () => {
  const data = synthReport();
  const html = renderSweepReport(data, { chartLibrary: FAKE_LIB });

  it('has every section, the config and one pass@k row per cell with its values', () => {
    for (const id of ['summary', 'config', 'passk', 'curves', 'cost', 'status', 'pipeline', 'outcomes', 'samples'])
      expect(html).toContain(`<section id="${id}">`);
    expect(html).toContain('alpha-7b');
    expect(html).toContain('prompt_plus_completion');
    const table = /<table class="grid metrics" id="passk-table">([\s\S]*?)<\/table>/.exec(html)![1]!;
    const rows = [...table.matchAll(/<tr[^>]*><td>([\s\S]*?)<\/tr>/g)].map((r) => r[0]);
    expect(rows).toHaveLength(data.cells.length);
    data.cells.forEach((cell, i) => {
      const want = estimateAtK(
        cell.perTask.map((t) => ({ n: t.n, c: t.c })),
        [1, 2, 4],
      ).averages;
      const wantS = estimateAtK(
        cell.perTask.map((t) => ({ n: t.n, c: t.s })),
        [1, 2, 4],
      ).averages;
      // A metric's cell: its value, then its 95% interval over tasks (mean ± 1.96 SE, clipped).
      const cellsText = [...rows[i]!.matchAll(/<td[^>]*>([^<]*)(?:<span class="ci"[^>]*>([^<]*)<\/span>)?<\/td>/g)].map((m) => m[1]);
      const intervals = [...rows[i]!.matchAll(/<td[^>]*>[^<]*(?:<span class="ci"[^>]*>([^<]*)<\/span>)?<\/td>/g)].map((m) => m[1]);
      expect(cellsText.slice(0, 4)).toEqual([cell.dataset, cell.model, cell.method, String(cell.temperature)]);
      expect(cellsText.slice(6)).toEqual([want['1']!, want['2']!, want['4']!, wantS['1']!, wantS['2']!, wantS['4']!].map(pct));
      const ci = (counts: number[], k: number) => {
        const est = estimateAtK(
          cell.perTask.map((t, j) => ({ n: t.n, c: counts[j]! })),
          [k],
        );
        const ps = est.perTask.map((t) => t.atK[String(k)]!);
        const mean = ps.reduce((a, p) => a + p, 0) / ps.length;
        const se = Math.sqrt(ps.reduce((a, p) => a + (p - mean) ** 2, 0) / (ps.length - 1) / ps.length);
        return `${(Math.max(0, mean - 1.96 * se) * 100).toFixed(1)}–${(Math.min(1, mean + 1.96 * se) * 100).toFixed(1)}%`;
      };
      const c = cell.perTask.map((t) => t.c);
      const s = cell.perTask.map((t) => t.s);
      expect(intervals.slice(6)).toEqual([ci(c, 1), ci(c, 2), ci(c, 4), ci(s, 1), ci(s, 2), ci(s, 4)]);
    });
  });

  it('embeds chart specs with the curves, cost scatter, statuses and pipeline lengths the data implies', () => {
    const charts = chartsOf(html);
    const byId = new Map(charts.map((c) => [c.id, c]));
    // Curves: one pass@k and one success@k chart per dataset, one line per cell, every k to n.
    for (const [di, dataset] of ['mini', 'pbe'].entries()) {
      const mine = data.cells.filter((c) => c.dataset === dataset);
      for (const [which, field] of [
        ['pass', 'c'],
        ['success', 's'],
      ] as const) {
        const spec = byId.get(`chart-${which}k-${di}`)!;
        expect(spec.type).toBe('line');
        expect(spec.xLabel).toMatch(/^k /);
        expect(spec.datasets.map((d) => d.label)).toEqual(mine.map((c) => `${c.model} · ${c.method} · t0.2`));
        spec.datasets.forEach((d, i) => {
          const est = estimateAtK(
            mine[i]!.perTask.map((t) => ({ n: t.n, c: t[field] })),
            [1, 2, 3, 4],
          ).averages;
          expect(d.data).toEqual([1, 2, 3, 4].map((k) => ({ x: k, y: est[String(k)] })));
          // Its 95% interval over tasks at every k, drawn as a band.
          const per = estimateAtK(
            mine[i]!.perTask.map((t) => ({ n: t.n, c: t[field] })),
            [1, 2, 3, 4],
          ).perTask;
          expect(d.band).toEqual(
            [1, 2, 3, 4].map((k) => {
              const ci = meanInterval(per.map((t) => t.atK[String(k)]!));
              return { x: k, low: ci.low, high: ci.high };
            }),
          );
        });
      }
    }
    // Cost scatter: a variant per cost metric and k; tokens per task on x, pass@k on y.
    const scatter = byId.get('chart-cost-1')!;
    expect(Object.keys(scatter.variants!).sort()).toEqual(
      ['calls', 'runs', 'time', 'tokens'].flatMap((m) => [1, 2, 4].map((k) => `${m}|${k}`)).sort(),
    );
    const explore = data.cells.find((c) => c.method === 'exploracoder')!;
    const point = scatter.variants!['tokens|2']!.datasets.find((d) => d.label.includes('exploracoder'))!.data[0]!;
    expect(point).toEqual({ x: (explore.cost.promptTokens + explore.cost.completionTokens) / explore.tasks, y: explore.passAtK['pass@2'] });
    expect(scatter.variants!['runs|1']!.datasets.find((d) => d.label.includes('exploracoder'))!.data[0]!.x).toBe(36);
    // Statuses: per cell, the counts add up to its samples.
    const status = byId.get('chart-status')!;
    data.cells.forEach((c, i) => expect(status.datasets.reduce((a, d) => a + (d.data[i] as number), 0)).toBe(c.samples));
    // Pipeline length: only the PBE dataset, lengths 1..4, the cells' rates.
    expect(charts.filter((c) => c.id.startsWith('chart-pipeline-')).map((c) => c.title)).toEqual([
      'pbe: pass rate by hidden pipeline length',
    ]);
    const pipeline = byId.get('chart-pipeline-1')!;
    expect(pipeline.labels).toEqual(['1 (1 tasks)', '2 (2 tasks)', '3 (1 tasks)', '4 (2 tasks)']);
    expect(pipeline.datasets.find((d) => d.label.includes('exploracoder'))!.data).toEqual([1, 0.875, 0.5, 0.125]);
  });

  it('escapes every piece of data: hostile prompts, responses, exceptions and config values stay text', () => {
    expect(html).not.toContain(HOSTILE);
    expect(html).not.toContain('<img');
    expect(html).toContain(esc(HOSTILE));
    // The only script elements are the data, the library and the page's own script.
    expect(html.match(/<script/g)).toHaveLength(3);
    expect(html.match(/<\/script>/g)).toHaveLength(3);
    expect(jsonForScript({ a: '</script><!-- \u2028' })).not.toMatch(/[<\u2028]/);
    expect(JSON.parse(jsonForScript({ a: '</script><!-- \u2028' }))).toEqual({ a: '</script><!-- \u2028' });
    expect(scriptSource('var s = "</script>"; var t = "<!--";')).toBe('var s = "<\\/script>"; var t = "<\\!--";');
  });

  it('inlines the chart library, so the page needs nothing from the network', () => {
    expect(html).toContain(FAKE_LIB);
    expect(html).not.toMatch(/<script[^>]+src=/);
    expect(html).not.toMatch(/<link[^>]+href=/);
    const lib = renderSweepReport(data, { chartLibrary: 'var s = "</script><script>alert(1)</script>";' });
    expect(lib.match(/<\/script>/g)).toHaveLength(3);
  });

  it('drills down to the prompt, raw response, extracted code and result of every sample', () => {
    const tasks = [...html.matchAll(/<details class="task" id="([^"]+)"/g)].map((m) => m[1]);
    expect(tasks).toEqual([...[0, 1, 2, 3].map((i) => `task-mini-${i}`), ...[0, 1, 2, 3, 4, 5].map((i) => `task-pbe-${i}`)]);
    expect(html.match(/<details class="sample"/g)).toHaveLength(data.cells.reduce((a, c) => a + c.samples, 0));
    expect(html).toContain('PROMPT-PBE/3');
    expect(html).toContain('RAW-PBE/3-2: here is the code');
    expect(html).toContain('CODE-Mini/1-3');
    expect(html).toMatch(/<b>ValueError<\/b>: bad value &lt;\/script&gt;/);
    // Outcome links point at drill-down anchors that exist.
    for (const m of html.matchAll(/href="#(task-[^"]+)"/g)) expect(tasks).toContain(m[1]);
  });

  it('renders the exploration trace subtask by subtask where a sample has one, and only there', () => {
    const explore = data.cells.find((c) => c.method === 'exploracoder')!;
    expect(html.match(/<div class="trace">/g)).toHaveLength(explore.samples);
    expect(html).toContain('Exploration trace (exploracoder): 1 of 3 subtasks solved');
    expect(html).toContain('upper-case every other word (TRACE-SUBTASK-MARKER)');
    expect(html).toContain('<code>str.split</code>');
    expect(html).toMatch(/attempt 1 <span class="st st-passed"[^>]*>passed<\/span> <span class="chosen">selected<\/span>/);
    expect(html).toContain('<b>TypeError</b>: must be str, not int');
    expect(html).toContain('words = s.split()');
    // A direct sample's body has no trace.
    const direct = /<details class="sample" id="task-pbe-2-pbe-alpha-direct-t0-2-s0"[\s\S]*?<\/details>/.exec(html)![0];
    expect(direct).not.toContain('class="trace"');
    // The trace is part of a sample record's shape.
    const stored = ReportSampleSchema.parse(JSON.parse(JSON.stringify(data.drilldown[1]!.tasks[0]!.cells[1]!.samples[0])));
    expect(stored.trace).toEqual(synthTrace('PBE/0'));
  });

  it('outcomes: which tasks every cell, no cell and exactly one cell solved', () => {
    const o = datasetOutcomes('mini', data.cells);
    expect(o.counts).toEqual({ all: 1, none: 1, one: 2, some: 0 });
    expect(o.tasks.map((t) => t.category)).toEqual(['all', 'one', 'one', 'none']);
    expect(o.tasks[1]!.solvedBy).toEqual(['mini.beta.direct.t0.2']);
    expect(o.uniqueSolves).toEqual({ 'mini.alpha.direct.t0.2': 1, 'mini.beta.direct.t0.2': 1 });
    const section = /<section id="outcomes">([\s\S]*?)<\/section>/.exec(html)![1]!;
    expect(section).toMatch(/solved by no cell<\/th><td class="num">1<\/td><td><a href="#task-mini-3">Mini\/3<\/a>/);
    expect(section).toMatch(/only beta · direct · t0.2<\/th><td class="num">1<\/td><td><a href="#task-mini-1">Mini\/1<\/a>/);
    expect(section).toMatch(
      /only alpha · exploracoder · t0.2<\/th><td class="num">2<\/td><td><a href="#task-pbe-3">PBE\/3<\/a>, <a href="#task-pbe-4">PBE\/4<\/a>/,
    );
  });

  it('shows no interval where the stored results have none (before intervals, or one task)', () => {
    const [first, ...rest] = data.cells;
    const { passAtKCI: _p, successAtKCI: _s, ...old } = first!;
    const one = synthCell({ dataset: 'solo', model: 'gamma', method: 'direct', perTask: counts('Solo', [[1, 2]]) });
    const page = renderSweepReport({ ...data, cells: [old, ...rest, one] }, { chartLibrary: FAKE_LIB });
    const table = /<table class="grid metrics" id="passk-table">([\s\S]*?)<\/table>/.exec(page)![1]!;
    const rows = [...table.matchAll(/<tr[^>]*><td>([\s\S]*?)<\/tr>/g)].map((r) => r[0]);
    expect(rows[0]).not.toContain('class="ci"');
    expect(rows[0]).toContain(pct(first!.passAtK['pass@1']!));
    expect(rows[1]).toContain('class="ci"');
    expect(rows.at(-1)).not.toContain('class="ci"');
    // The single task's curve has no band; the others' curves (from per-task counts) still do.
    const solo = chartsOf(page).find((c) => c.title === 'solo: pass@k')!;
    expect(solo.datasets[0]!.band).toBeUndefined();
  });

  it('says what is missing: no config, no cells', () => {
    const bare: SweepReportData = { ...data, config: null, cells: [], drilldown: [], notes: ['something was odd'] };
    const page = renderSweepReport(bare, { chartLibrary: FAKE_LIB });
    expect(page).toContain('config.json is missing');
    expect(page).toContain('This sweep has no cells with results.');
    expect(page).toContain('something was odd');
  });
});

describe('large sweeps', () => {
  // 500 tasks in two cells: outcomes cycle through all / one / none / some-of-two (= one or all).
  const n = 10;
  const perTaskA = counts(
    'Big',
    Array.from({ length: 500 }, (_, i) => [[5, 0, 0, 2][i % 4]!, 8] as [number, number]),
    n,
  );
  const perTaskB = counts(
    'Big',
    Array.from({ length: 500 }, (_, i) => [[3, 0, 0, 0][i % 4]!, 9] as [number, number]),
    n,
  );
  const cells = [
    synthCell({ dataset: 'big', model: 'a', method: 'direct', perTask: perTaskA, ks: [1, 10] }),
    synthCell({ dataset: 'big', model: 'b', method: 'direct', perTask: perTaskB, ks: [1, 10] }),
  ];

  it('the drill-down shows a stratified, capped sample of tasks and says so', () => {
    const outcomes = datasetOutcomes('big', cells);
    expect(outcomes.counts).toEqual({ all: 125, none: 250, one: 125, some: 0 });
    const sel = selectDrillTasks(outcomes, 20);
    expect(sel.taskIndices).toHaveLength(20);
    expect(new Set(sel.taskIndices).size).toBe(20);
    expect([...sel.taskIndices].sort((a, b) => a - b)).toEqual(sel.taskIndices);
    const cats = sel.taskIndices.map((i) => outcomes.tasks[i]!.category);
    expect(cats.filter((c) => c === 'one')).toHaveLength(7);
    expect(cats.filter((c) => c === 'none')).toHaveLength(7);
    expect(cats.filter((c) => c === 'all')).toHaveLength(6);
    expect(sel.note).toMatch(/^Showing 20 of 500 tasks/);
    expect(selectDrillTasks(outcomes, 600).note).toBe('');
    expect(selectDrillTasks(outcomes, 600).taskIndices).toHaveLength(500);

    const data: SweepReportData = {
      sweepId: 'big',
      generatedAt: '2025-01-01T00:00:00.000Z',
      config: null,
      cells,
      drilldown: [
        {
          dataset: 'big',
          totalTasks: 500,
          note: sel.note,
          tasks: sel.taskIndices.map((i) => ({ problem: { task_index: i, task_id: `Big/${i}`, prompt: 'p' }, cells: [] })),
        },
      ],
    };
    const html = renderSweepReport(data, { chartLibrary: FAKE_LIB, maxOutcomeRows: 50, maxListedTasks: 10 });
    expect(html).toContain('(20 of 500 tasks shown)');
    expect(html).toContain(esc(sel.note));
    expect(html).toContain('The table shows the first 50 of 500 tasks');
    expect(html).toContain('… and 240 more');
    const matrix = /<table class="grid outcome-matrix">([\s\S]*?)<\/table>/.exec(html)![1]!;
    expect(matrix.match(/<tr class="outcome-/g)).toHaveLength(50);
  });

  it('curves cover every k up to n on a log-spaced grid beyond 40, with the requested k', () => {
    expect(curveKs(4)).toEqual([1, 2, 3, 4]);
    const ks = curveKs(1000, [1, 100, 777]);
    expect(ks[0]).toBe(1);
    expect(ks.at(-1)).toBe(1000);
    expect(ks).toContain(777);
    expect(ks).toContain(100);
    expect(ks.length).toBeLessThan(50);
    const curve = atKCurve(
      counts(
        'T',
        [
          [3, 5],
          [0, 1],
          [10, 10],
        ],
        10,
      ),
      'c',
      [1, 10],
    );
    expect(curve.map((p) => p.k)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (let i = 1; i < curve.length; i++) expect(curve[i]!.value).toBeGreaterThanOrEqual(curve[i - 1]!.value);
    expect(curve.at(-1)!.value).toBeCloseTo(2 / 3, 12);
  });

  it('samples shown per task and cell: the first of each status, then in order', () => {
    const s = (i: number, status: ReportSample['status']) => ({ sample_index: i, status });
    const all = [s(0, 'passed'), s(1, 'passed'), s(2, 'passed'), s(3, 'passed'), s(4, 'timeout'), s(5, 'passed'), s(6, 'error')];
    expect(selectSamples(all, 3).map((x) => x.sample_index)).toEqual([0, 4, 6]);
    expect(selectSamples(all, 4).map((x) => x.sample_index)).toEqual([0, 1, 4, 6]);
    expect(selectSamples(all, 10)).toHaveLength(7);
  });

  it('clips long texts, saying how much is left out', () => {
    const data = synthReport();
    const sample = data.drilldown[0]!.tasks[0]!.cells[0]!.samples[0]!;
    sample.raw = 'x'.repeat(20_000);
    const html = renderSweepReport(data, { chartLibrary: FAKE_LIB, maxTextChars: 1000 });
    expect(html).toContain('… 19,000 more characters not shown (20,000 in all).');
    expect(html).not.toContain('x'.repeat(1001));
  });
});

describe('the ExploraCoder paper analyses section', () => {
  it('is left out without ExploraCoder- or CAPIR-family cells', () => {
    const html = renderSweepReport(synthReport(), { chartLibrary: FAKE_LIB });
    expect(html).not.toContain('<section id="paper">');
    expect(html).not.toContain('href="#paper"');
  });

  it('lays out what paperAnalyses computed for the cell: cost per stage, p1/p2, CoAE vs pass', () => {
    const data = synthReport();
    const cell = data.cells.find((c) => c.method === 'exploracoder')!;
    // Task i: one subtask, explored ok on even tasks; plan prompts of 10 (i + 1) tokens.
    const evidence = cell.perTask.map((t, i) => ({
      task_index: i,
      n: t.n,
      c: t.c,
      trace: ExplorationTraceSchema.parse({
        subtasks: [{ index: 0, description: 'd', attempts: [], outcome: 'solved', explored_ok: i % 2 === 0 }],
        stages: {
          plan: { requests: 1, answers: 1, prompt_tokens: 10 * (i + 1), completion_tokens: 5 },
          explore: { requests: 2, answers: 4, prompt_tokens: 100, completion_tokens: 40 },
        },
      }),
    }));
    cell.paperAnalyses = paperAnalyses(evidence);
    const html = renderSweepReport(data, { chartLibrary: FAKE_LIB });
    expect(html).toContain('<section id="paper">');
    expect(html).toContain('href="#paper"');
    const field = (selector: RegExp, name: string) =>
      new RegExp(`<td class="num" data-field="${name}">([^<]*)</td>`).exec(selector.exec(html)![0])![1];
    const planRow = new RegExp(`<tr data-cell="${cell.id.replace(/\./g, '\\.')}" data-stage="plan">[\\s\\S]*?</tr>`);
    const tasks = cell.perTask.length;
    expect(field(planRow, 'requests')).toBe('1.00');
    expect(field(planRow, 'prompt_tokens')).toBe(((10 * tasks * (tasks + 1)) / 2 / tasks).toFixed(1));
    const totalRow = new RegExp(`<tr class="total" data-cell="${cell.id.replace(/\./g, '\\.')}" data-stage="total">[\\s\\S]*?</tr>`);
    expect(field(totalRow, 'requests')).toBe('3.00');
    expect(field(totalRow, 'answers')).toBe('5.00');
    const debugRow = /<table class="grid" id="paper-debug-table">[\s\S]*?<\/table>/;
    expect(field(debugRow, 'explored_subtasks')).toBe(String(tasks));
    expect(field(debugRow, 'p1')).toBe(pct(cell.paperAnalyses.debug.p1!));
    const coaeRow = /<table class="grid" id="paper-coae-table">[\s\S]*?<\/table>/;
    expect(field(coaeRow, 'ok-tasks')).toBe(String(Math.ceil(tasks / 2)));
    expect(field(coaeRow, 'ok-pass')).toBe(pct(cell.paperAnalyses.coae.all_subtasks_ok.pass_rate!));
    // Only the family's cells get rows.
    expect(html.match(/data-stage="total"/g)).toHaveLength(1);
  });
});

describe('the config section', () => {
  const withMethods = (methods: string[]): SweepReportData => {
    const data = synthReport();
    const stored = data.config!;
    const options = {
      candidates: 5,
      rag_k: 10,
      retriever: 'bm25',
      doc_masking: 'auto',
      repair_check: 'runtime-errors',
      explore_temperature: 0.8,
    };
    return { ...data, config: { ...stored, config: { ...(stored.config as Record<string, unknown>), methods, method_options: options } } };
  };
  const configSection = (html: string) => html.slice(html.indexOf('<section id="config">'), html.indexOf('<details class="raw-config">'));

  it("shows only the method options the sweep's methods read", () => {
    const direct = configSection(renderSweepReport(withMethods(['direct']), { chartLibrary: FAKE_LIB }));
    expect(direct).not.toContain('method_options');
    const rag = configSection(renderSweepReport(withMethods(['direct', 'rag']), { chartLibrary: FAKE_LIB }));
    expect(rag).toContain('<th>method_options</th>');
    for (const shown of ['rag_k', 'retriever', 'doc_masking']) expect(rag).toContain(`<th>${shown}</th>`);
    for (const hidden of ['candidates', 'repair_check', 'explore_temperature']) expect(rag).not.toContain(`<th>${hidden}</th>`);
    const explora = configSection(renderSweepReport(withMethods(['exploracoder']), { chartLibrary: FAKE_LIB }));
    for (const shown of ['candidates', 'explore_temperature', 'retriever']) expect(explora).toContain(`<th>${shown}</th>`);
    expect(explora).not.toContain('<th>rag_k</th>');
  });

  it('keeps every option in the stored config.json below it', () => {
    const html = renderSweepReport(withMethods(['direct']), { chartLibrary: FAKE_LIB });
    expect(html.slice(html.indexOf('<details class="raw-config">'))).toContain('&quot;candidates&quot;: 5');
  });
});

describe('the batch savings table', () => {
  const LIVE = { input_per_mtok: 2, output_per_mtok: 8, currency: 'USD' };
  const BATCH = { input_per_mtok: 1, output_per_mtok: 4, currency: 'USD' };
  function withBatchAnswers(): SweepReportData {
    const data = synthReport();
    const [first, ...rest] = data.cells;
    const cells = [{ ...first!, cost: { ...first!.cost, batchPromptTokens: 300_000, batchCompletionTokens: 100_000 } }, ...rest];
    const config = { models: [{ id: first!.model, price: LIVE, batch: { price: BATCH } }] };
    return { ...data, cells, config: { config } };
  }

  it("gives each cell's batch-answered tokens at the live and at the batch price, and what that saved", () => {
    const html = renderSweepReport(withBatchAnswers(), { chartLibrary: FAKE_LIB });
    const table = /<table class="grid" id="batch-savings">([\s\S]*?)<\/table>/.exec(html)![1]!;
    const rows = [...table.matchAll(/<tr><td>[\s\S]*?<\/tr>/g)].map((r) => [...r[0].matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((m) => m[1]));
    // 0.3 M prompt and 0.1 M completion tokens: 0.6 + 0.8 USD live, 0.3 + 0.4 USD in batches.
    expect(rows).toEqual([['mini', expect.any(String), '300,000', '100,000', '1.40 USD', '0.70 USD', '0.70 USD']]);
  });

  it('is left out when no answer came from a batch', () => {
    expect(renderSweepReport(synthReport(), { chartLibrary: FAKE_LIB })).not.toContain('batch-savings');
  });
});
