/**
 * A sweep report as one self-contained HTML file: config, pass@k table and curves, cost against
 * pass@k, the ExploraCoder paper's analyses (ExploraCoder- and CAPIR-family cells), status breakdown,
 * pass rate by PBE pipeline length, per-task outcomes and a per-sample
 * drill-down (prompt, raw response, extracted code, execution result, exploration trace). Charts are
 * drawn by Chart.js, whose source the caller passes in and the page inlines, so it works offline.
 *
 * Pure: data in, HTML string out. Every piece of data is escaped (text and attributes with esc,
 * embedded JSON with jsonForScript), so prompts and model output can hold anything.
 */
import { atKCurve, cellLabel, datasetOutcomes, datasetsOf, scoredKs, type DatasetOutcomes, type OutcomeCategory } from './analysis.js';
import { REPORT_CLIENT_SCRIPT } from './client.js';
import { findMethod, optionsReadBy } from '../methods/registry.js';
import { batchSavings, type BatchSaving } from './batchSavings.js';
import { formatMoney, type Money } from '../sweep/price.js';
import type { DatasetDrilldown, DrillTask, ReportCell, ReportSample, SweepReportData } from './model.js';
import type { PaperAnalyses, PassGroup } from './paperAnalyses.js';
import type { ExplorationTrace } from './trace.js';
import { reportComparisons, REPORT_BOOTSTRAP_RESAMPLES } from './comparisons.js';
import { isSignificant, type MetricComparison, type PairComparison } from '../compare/compare.js';
import { formatP } from '../compare/format.js';
import { provenanceFields } from '../sweep/provenance.js';
import { corpusScoreLine } from '../sweep/corpusScore.js';
import { kindOfCell, scoreKinds } from '../scoring/scoreKinds.js';
import { headlineOf } from '../scoring/textScoreKind.js';
import type { AnyScoreKind, ReportFormat } from '../scoring/scoreKind.js';

export interface RenderOptions {
  /** Source of Chart.js's UMD build (dist/chart.umd.min.js), inlined into the page. */
  chartLibrary: string;
  /** Longest text (prompt, response, code, output) shown in full; longer ones are clipped, saying so. */
  maxTextChars?: number;
  /** Rows of the task-by-cell outcomes table; beyond, the table is cut, saying so. */
  maxOutcomeRows?: number;
  /** Task ids listed per outcome (e.g. "solved by none"); beyond, the list is cut, saying so. */
  maxListedTasks?: number;
}

// ---------------------------------------------------------------------------------------------
// Escaping and formatting

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML element content and quoted attribute values. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** JSON that can sit inside a <script> element: no `<` (so no `</script>` or `<!--`), no line separators. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Script source that cannot end its <script> element early. */
export function scriptSource(src: string): string {
  return src.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

/** An id or class fragment from data: only a-z 0-9 - _ survive. */
function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9_-]+/g, '-');
}

const pct = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '–' : `${(v * 100).toFixed(1)}%`);
/** A 95% interval as the tables show it (`46.9–55.5%`), or nothing when there is none. */
function ciText(ci: { stderr: number | null; low: number | null; high: number | null } | undefined): string {
  if (!ci || ci.low === null || ci.high === null) return '';
  const title = `95% interval over tasks: mean ± 1.96 × standard error${ci.stderr === null ? '' : ` (${(ci.stderr * 100).toFixed(1)} points)`}, clipped to 0–100%`;
  return `<span class="ci" title="${esc(title)}">${(ci.low * 100).toFixed(1)}–${(ci.high * 100).toFixed(1)}%</span>`;
}
const int = (v: number) => Math.round(v).toLocaleString('en-US');
const dec = (v: number, digits = 1) =>
  Number.isFinite(v) ? v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–';
function seconds(s: number): string {
  if (s < 60) return `${dec(s, 1)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}

// ---------------------------------------------------------------------------------------------
// Colors

const PALETTE = [
  '#4e79a7',
  '#e15759',
  '#59a14f',
  '#f28e2b',
  '#b07aa1',
  '#76b7b2',
  '#edc948',
  '#9c755f',
  '#ff9da7',
  '#5f6b6d',
  '#1f77b4',
  '#8c564b',
];

/** One color per cell label (model · method · temperature), the same in every chart. */
function colorsFor(cells: readonly ReportCell[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of cells) {
    const label = cellLabel(c);
    if (!out.has(label)) out.set(label, PALETTE[out.size % PALETTE.length]!);
  }
  return out;
}

const STATUS_ORDER = ['passed', 'failed', 'error', 'timeout', 'oom', 'killed', 'compile_error', 'llm_error', 'not_executed', 'scored'];
const STATUS_COLORS: Record<string, string> = {
  passed: '#59a14f',
  failed: '#f28e2b',
  error: '#e15759',
  timeout: '#b07aa1',
  oom: '#9c755f',
  killed: '#5f6b6d',
  llm_error: '#ff9da7',
  not_executed: '#bab0ac',
  scored: '#4e79a7',
};
const STATUS_HELP: Record<string, string> = {
  passed: 'ran to the end of the test',
  failed: 'stopped on a test assertion',
  error: 'stopped on another exception',
  timeout: 'ran out of time',
  oom: 'ran out of memory',
  killed: 'ended by a signal',
  llm_error: 'the model call failed; nothing was run',
  not_executed: 'generated only, not run',
  scored: "scored from its text against the task's reference (BLEU, exact match, ...); nothing was run",
};

// ---------------------------------------------------------------------------------------------
// Chart specs (JSON for the page's script)

type Point = { x: number; y: number };
interface ChartDataset {
  label: string;
  color: string;
  fill?: string;
  data: Array<number | null> | Point[];
  dashed?: boolean;
  pointRadius?: number;
  pointStyle?: string;
  borderWidth?: number;
  showLine?: boolean;
  /** A 95% interval per point, drawn as a translucent band behind the line (and given in its tooltip). */
  band?: Array<{ x: number; low: number | null; high: number | null }>;
}

const POINT_STYLES = ['circle', 'rect', 'triangle', 'rectRot', 'star', 'crossRot'];

/**
 * Series that coincide (equal results) must stay visible: Chart.js draws the first series on top,
 * so each later one gets a wider line and a bigger marker of another shape.
 */
function distinct(i: number, baseRadius: number): Pick<ChartDataset, 'pointStyle' | 'borderWidth' | 'pointRadius'> {
  return {
    pointStyle: POINT_STYLES[i % POINT_STYLES.length]!,
    borderWidth: Math.min(8, 2 + 1.5 * i),
    pointRadius: baseRadius === 0 ? 0 : Math.min(baseRadius + 6, baseRadius + 1.5 * i),
  };
}
interface AxisSpec {
  type?: 'linear' | 'logarithmic' | 'category';
  min?: number;
  max?: number;
  percent?: boolean;
  stacked?: boolean;
  integer?: boolean;
}
interface ChartSpec {
  id: string;
  type: 'line' | 'scatter' | 'bar';
  title: string;
  xLabel: string;
  yLabel: string;
  x: AxisSpec;
  y: AxisSpec;
  indexAxis?: 'x' | 'y';
  labels?: string[];
  datasets: ChartDataset[];
  variants?: Record<string, { title: string; xLabel: string; yLabel: string; datasets: ChartDataset[] }>;
}

function chartBox(spec: ChartSpec, height = 340, caption = ''): string {
  const legend = spec.datasets.map((d) => d.label);
  return `<figure class="chart">
  <div class="chart-box" style="height:${height}px"><canvas id="${esc(spec.id)}" role="img" aria-label="${esc(`${spec.title}: ${spec.yLabel} by ${spec.xLabel}`)}"></canvas></div>
  <figcaption>${caption ? `${caption} ` : ''}<span class="legend-text">Series: ${legend.map(esc).join('; ')}</span></figcaption>
</figure>`;
}

// ---------------------------------------------------------------------------------------------
// Sections

function renderSummary(data: SweepReportData): string {
  const cells = data.cells;
  const total = (f: (c: ReportCell) => number) => cells.reduce((a, c) => a + f(c), 0);
  const datasets = datasetsOf(cells);
  const best = datasets.map((d) => {
    // A dataset whose samples do not run (scored from their text) has no pass@1: its best is by its kind's headline figure.
    const headlineOfCell = (c: ReportCell) => {
      const kind = c.scores ? kindOfCell(c.scores) : undefined;
      return kind && !kind.runs && kind.headline ? kind.headline(c.scores!) : undefined;
    };
    const text = cells.filter((c) => c.dataset === d && headlineOfCell(c) !== undefined);
    if (text.length) {
      const value = (c: ReportCell) => headlineOfCell(c)?.value;
      const top = text.reduce<ReportCell | undefined>(
        (b, c) => (b === undefined || (value(c) ?? -Infinity) > (value(b) ?? -Infinity) ? c : b),
        undefined,
      )!;
      const headline = headlineOfCell(top)?.name ?? '';
      return `<li><b>${esc(d)}</b>: ${esc(cellLabel(top))}, ${esc(headline)} ${dec(value(top) ?? NaN, 4)}</li>`;
    }
    const mine = cells.filter((c) => c.dataset === d && c.passAtK['pass@1'] !== undefined);
    const top = mine.reduce<ReportCell | undefined>(
      (b, c) => (b === undefined || c.passAtK['pass@1']! > b.passAtK['pass@1']! ? c : b),
      undefined,
    );
    return top
      ? `<li><b>${esc(d)}</b>: ${esc(cellLabel(top))}, pass@1 ${pct(top.passAtK['pass@1'])}</li>`
      : `<li><b>${esc(d)}</b>: no pass@1</li>`;
  });
  const card = (label: string, value: string) =>
    `<div class="card"><div class="card-value">${value}</div><div class="card-label">${esc(label)}</div></div>`;
  return `<section id="summary">
<div class="cards">
  ${card('datasets', int(datasets.length))}
  ${card('cells', int(cells.length))}
  ${card('samples', int(total((c) => c.samples)))}
  ${card('LLM calls', int(total((c) => c.cost.calls)))}
  ${card('tokens (prompt + completion)', int(total((c) => c.cost.promptTokens + c.cost.completionTokens)))}
  ${card('sandbox runs', int(total((c) => c.cost.sandboxRuns)))}
</div>
${best.length ? `<p>Best pass@1 per dataset (a dataset scored from text: its metric):</p><ul class="best">${best.join('')}</ul>` : ''}
${(data.notes ?? []).map((n) => `<p class="note">${esc(n)}</p>`).join('\n')}
</section>`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function renderValue(v: unknown): string {
  if (v === null || v === undefined) return '<span class="muted">–</span>';
  if (Array.isArray(v)) {
    if (v.length === 0) return '<span class="muted">(none)</span>';
    if (v.every(isPlainObject)) {
      const keys = [...new Set(v.flatMap((o) => Object.keys(o as Record<string, unknown>)))];
      return `<table class="grid"><thead><tr>${keys.map((k) => `<th>${esc(k)}</th>`).join('')}</tr></thead><tbody>${v
        .map((o) => `<tr>${keys.map((k) => `<td>${renderValue((o as Record<string, unknown>)[k])}</td>`).join('')}</tr>`)
        .join('')}</tbody></table>`;
    }
    return v.map((x) => (isPlainObject(x) || Array.isArray(x) ? renderValue(x) : `<code>${esc(String(x))}</code>`)).join(' ');
  }
  if (isPlainObject(v)) {
    const entries = Object.entries(v);
    if (!entries.length) return '<span class="muted">{}</span>';
    return `<table class="kv">${entries.map(([k, x]) => `<tr><th>${esc(k)}</th><td>${renderValue(x)}</td></tr>`).join('')}</table>`;
  }
  return `<code>${esc(String(v))}</code>`;
}

/**
 * The config as the report shows it: `method_options` keeps only the options the sweep's methods
 * read (every default is spelled out in a resolved config; a sweep of `direct` reads none). The
 * stored config.json below it keeps everything.
 */
function shownConfig(config: unknown): unknown {
  if (!isPlainObject(config) || !isPlainObject(config.method_options) || !Array.isArray(config.methods)) return config;
  const read = new Set<string>(optionsReadBy(config.methods.filter((m): m is string => typeof m === 'string')));
  const { method_options: options, ...rest } = config;
  const kept = Object.fromEntries(Object.entries(options).filter(([name]) => read.has(name)));
  return Object.keys(kept).length > 0 ? { ...rest, method_options: kept } : rest;
}

function renderConfig(data: SweepReportData): string {
  if (!data.config) {
    return `<section id="config"><h2>Config</h2><p class="note">This sweep has no stored config (sweeps/${esc(data.sweepId)}/config.json is missing).</p></section>`;
  }
  const sha = data.config.config_sha256 ?? data.configSha256;
  return `<section id="config"><h2>Config</h2>
${sha ? `<p>config sha256 <code>${esc(sha)}</code></p>` : ''}
<div class="config">${renderValue(shownConfig(data.config.config))}</div>
<details class="raw-config"><summary>config.json as stored</summary><pre>${esc(JSON.stringify(data.config, null, 2))}</pre></details>
</section>`;
}

/**
 * The prompt templates of the cells (results record each cell's), numbered in order of first use:
 * the pass table's "prompt" column names them, a list under it spells them out. Empty when no cell
 * was asked with a template.
 */
function promptTemplatesOf(cells: readonly ReportCell[]): string[] {
  const out: string[] = [];
  for (const c of cells) {
    if (!c.promptTemplate || c.promptTemplate === 'default') continue;
    const json = JSON.stringify(c.promptTemplate);
    if (!out.includes(json)) out.push(json);
  }
  return out;
}

function promptCell(c: ReportCell, templates: readonly string[]): string {
  if (!c.promptTemplate) return '<td class="muted">–</td>';
  const named = c.promptName === undefined ? '' : `${esc(c.promptName)}: `;
  if (c.promptTemplate === 'default') return `<td>${named}default</td>`;
  const n = templates.indexOf(JSON.stringify(c.promptTemplate)) + 1;
  return `<td>${named}<a href="#prompt-template-${n}">template ${n}</a></td>`;
}

function renderPromptTemplates(cells: readonly ReportCell[], templates: readonly string[]): string {
  if (templates.length === 0) {
    return cells.some((c) => c.promptTemplate === 'default')
      ? '<p class="muted">Prompts: the default prompts of each task family and language (no model has a prompt template).</p>'
      : '';
  }
  const items = templates.map((json, i) => {
    const t = JSON.parse(json) as Record<string, unknown>;
    const fields = Object.entries(t)
      .map(([k, v]) => `<tr><th>${esc(k)}</th><td><pre>${esc(JSON.stringify(v))}</pre></td></tr>`)
      .join('');
    return `<li id="prompt-template-${i + 1}"><b>template ${i + 1}</b><table class="kv">${fields}</table></li>`;
  });
  return `<p>Prompt templates (models[i].prompt or the prompts: axis; "default": the default prompts of each task family and language):</p><ol class="prompt-templates">${items.join('')}</ol>${renderTemplateScopes(cells)}`;
}

/**
 * What a template shaped, for each method of a templated cell: a multi-step method's planner,
 * reranks and exploration keep their own prompts, and a reader comparing templates must know it.
 */
function renderTemplateScopes(cells: readonly ReportCell[]): string {
  const methods = [...new Set(cells.filter((c) => c.promptTemplate && c.promptTemplate !== 'default').map((c) => c.method))];
  const items = methods.flatMap((m) => {
    const scope = findMethod(m)?.promptTemplateScope;
    return scope ? [`<li><code>${esc(m)}</code>: ${esc(scope)}</li>`] : [];
  });
  return items.length ? `<p>What a template shapes, per method:</p><ul class="prompt-template-scopes">${items.join('')}</ul>` : '';
}

function renderPassTable(cells: readonly ReportCell[]): string {
  const ks = scoredKs(cells);
  const templates = promptTemplatesOf(cells);
  const promptColumn = templates.length > 0;
  const datasets = datasetsOf(cells);
  const bestOf = (dataset: string, key: string, field: 'passAtK' | 'successAtK') =>
    Math.max(...cells.filter((c) => c.dataset === dataset).map((c) => c[field][key] ?? -1));
  const rows = cells
    .map((c, i) => {
      const metric = (field: 'passAtK' | 'successAtK', prefix: string) =>
        ks
          .map((k) => {
            const v = c[field][`${prefix}@${k}`];
            const best = v !== undefined && v === bestOf(c.dataset, `${prefix}@${k}`, field);
            const ci = v === undefined ? undefined : c[field === 'passAtK' ? 'passAtKCI' : 'successAtKCI']?.[`${prefix}@${k}`];
            return `<td class="num${best ? ' best' : ''}">${pct(v)}${ciText(ci)}</td>`;
          })
          .join('');
      const start = i > 0 && cells[i - 1]!.dataset !== c.dataset ? ' class="dataset-start"' : '';
      return `<tr${start}><td>${esc(c.dataset)}</td><td>${esc(c.model)}</td><td>${esc(c.method)}</td><td class="num">${esc(c.temperature)}</td>${promptColumn ? promptCell(c, templates) : ''}<td class="num">${int(c.tasks)}</td><td class="num">${int(c.nSamples)}</td>${metric('passAtK', 'pass')}${metric('successAtK', 'success')}</tr>`;
    })
    .join('\n');
  const dropped = [...new Set(cells.flatMap((c) => c.droppedK))];
  return `<section id="passk"><h2>pass@k</h2>
<p>Unbiased estimator over the n samples of each task, averaged over tasks. <b>success@k</b>: the same for samples that ran to the end of the test or stopped only on a test assertion (no crash, timeout or kill). Best per dataset in bold. Under each value, its 95% interval over tasks: the mean ± 1.96 standard errors of the per-task estimates (normal approximation, as Inspect reports it), clipped to 0–100%; it measures how the score varies with the tasks drawn, not with the samples. None for a single task, nor for results stored before intervals were kept.</p>
<table class="grid metrics" id="passk-table"><thead>
<tr><th rowspan="2">dataset</th><th rowspan="2">model</th><th rowspan="2">method</th><th rowspan="2">T</th>${promptColumn ? '<th rowspan="2">prompt</th>' : ''}<th rowspan="2">tasks</th><th rowspan="2">n</th><th colspan="${ks.length}">pass@k</th><th colspan="${ks.length}">success@k</th></tr>
<tr>${ks.map((k) => `<th>k=${k}</th>`).join('')}${ks.map((k) => `<th>k=${k}</th>`).join('')}</tr>
</thead><tbody>
${rows}
</tbody></table>
${datasets.length > 1 ? '<p class="muted">Rows of different datasets are not comparable with each other.</p>' : ''}
${renderPromptTemplates(cells, templates)}
${dropped.length ? `<p class="note">Not scored: ${dropped.map(esc).join('; ')}</p>` : ''}
</section>`;
}

/** The report's formatting, as a score kind's table uses it. */
const REPORT_FORMAT: ReportFormat = { esc, pct, dec, int, ci: ciText };

/** Where the table of run cells also scored from their text stands among the kinds' tables (ScoreKind.report.order). */
const ALSO_TEXT_ORDER = 40;

/**
 * The scores beyond pass@k: a table per score kind the cells have (ScoreKind.report, in its order:
 * a text-scored family's metric, evalplus's named scores' pass@k, APPS's accuracies, PAL's greedy
 * and majority-voting accuracy, ...), and the text metric of run cells also scored from their text
 * (Spider's BLEU). Empty when no cell has any.
 */
function renderExtraScores(cells: readonly ReportCell[]): string {
  const ks = scoredKs(cells);
  const label = (c: ReportCell) =>
    `<td>${esc(c.dataset)}</td><td>${esc(c.model)}</td><td>${esc(c.method)}</td><td class="num">${esc(c.temperature)}</td>`;
  const table = (intro: string, id: string, headers: string[], rows: string[]) => `<p>${intro}</p>
<table class="grid metrics" id="${id}"><thead><tr><th>dataset</th><th>model</th><th>method</th><th>T</th>${headers.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>
${rows.join('\n')}
</tbody></table>`;
  const kindTable = (kind: AnyScoreKind): string | undefined => {
    const mine = cells.filter((c) => c.scores !== undefined && kindOfCell(c.scores) === kind);
    if (!mine.length) return undefined;
    const rows = mine.flatMap((c) =>
      kind.report
        .rows(c.scores, ks, REPORT_FORMAT)
        .map((row) => `<tr>${label(c)}${row.map((cell) => `<td${cell.num ? ' class="num"' : ''}>${cell.html}</td>`).join('')}</tr>`),
    );
    return table(kind.report.intro, kind.report.tableId, kind.report.headers(ks), rows);
  };
  const alsoTextTable = (): string | undefined => {
    const alsoText = cells.filter((c) => c.alsoText !== undefined);
    if (!alsoText.length) return undefined;
    const rows = alsoText.map((c) =>
      c.alsoText
        ? `<tr>${label(c)}<td class="num">${pct(c.passAtK['pass@1'])}</td><td>${esc(c.alsoText.metric)}</td><td class="num">${dec(headlineOf(c.alsoText) ?? NaN, 4)}</td><td>${esc(corpusScoreLine(c.alsoText))}</td></tr>`
        : '',
    );
    return table(
      "Datasets run and also scored from the same generations' text (Spider with its databases: execution accuracy, its pass@1, and bigcode's corpus BLEU of each task's first sample against the gold query).",
      'also-text-scores-table',
      ['pass@1', 'metric', 'headline', 'figures'],
      rows,
    );
  };
  const sections = [
    ...scoreKinds().map((kind) => ({ order: kind.report.order, render: () => kindTable(kind) })),
    { order: ALSO_TEXT_ORDER, render: alsoTextTable },
  ].sort((a, b) => a.order - b.order);
  const parts = sections.flatMap((section) => section.render() ?? []);
  return parts.length ? `<section id="scores"><h2>Scores by test set</h2>\n${parts.join('\n')}\n</section>` : '';
}

const TEST_TEXT: Record<MetricComparison['test'], string> = {
  'mcnemar-exact': 'McNemar exact',
  'permutation-exact': 'permutation, exact',
  'permutation-monte-carlo': 'permutation, Monte Carlo',
  'paired-bootstrap': 'paired bootstrap (corpus metric)',
};

function pairFlips(pair: PairComparison, labels: Record<string, string>, max: number): string {
  const list = (flips: PairComparison['flips']['aOnly'], who: string) =>
    flips.length
      ? `<div class="flip-list"><b>${esc(who)}</b> only (${int(flips.length)}): ${flips
          .slice(0, max)
          .map((f) => `<span class="task-id" title="${esc(`${f.a} vs ${f.b} passing samples`)}">${esc(f.task_id)}</span>`)
          .join(', ')}${flips.length > max ? ` and ${int(flips.length - max)} more` : ''}</div>`
      : '';
  const body = list(pair.flips.aOnly, labels[pair.a] ?? pair.a) + list(pair.flips.bOnly, labels[pair.b] ?? pair.b);
  return body
    ? `<details class="flips"><summary>${int(pair.flips.aOnly.length)} / ${int(pair.flips.bOnly.length)}</summary>${body}</details>`
    : '0 / 0';
}

/**
 * Every pair of cells of each dataset compared task by task (domain/compare): the difference of
 * each score with its paired intervals, the paired test, the p-value after Holm over the dataset's
 * pairs, significant ones marked; and the tasks one cell solved and the other did not.
 */
function renderComparisons(data: SweepReportData, opts: Required<RenderOptions>): string {
  const compared = reportComparisons(data.sweepId, data.cells, cellLabel);
  if (!compared.length) return '';
  const signedPct = (v: number) => `${v >= 0 ? '+' : '−'}${(Math.abs(v) * 100).toFixed(1)}`;
  // A corpus metric keeps its own units (CodeXGLUE's BLEU is already x 100).
  const signedRaw = (v: number) => `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(4)}`;
  const rangeOf = (show: (v: number) => string) => (i: { low: number; high: number } | null) =>
    i ? `[${show(i.low)}, ${show(i.high)}]` : '–';
  const parts = compared.map((d, di) => {
    if (d.kind === 'skipped') return `<h3>${esc(d.dataset)}</h3><p class="note">Not compared: ${esc(d.reason)}</p>`;
    const { comparison: cmp, labels } = d;
    const rows = cmp.pairs.flatMap((pair) =>
      pair.metrics.map((m, mi) => {
        const sig = isSignificant(m, cmp.alpha);
        const show = m.test === 'paired-bootstrap' ? signedRaw : signedPct;
        const range = rangeOf(show);
        const head =
          mi === 0
            ? `<td rowspan="${pair.metrics.length}">${esc(labels[pair.a])}</td><td rowspan="${pair.metrics.length}">${esc(labels[pair.b])}</td><td class="num" rowspan="${pair.metrics.length}">${int(pair.tasks)}</td>`
            : '';
        const tail =
          mi === 0
            ? `<td rowspan="${pair.metrics.length}">${pairFlips(pair, labels, opts.maxListedTasks)}${pair.confounded.length ? `<div class="muted">differ in ${esc(pair.confounded.join(' and '))}</div>` : ''}${pair.provenance.map((p) => `<div class="provenance-warning">⚠ ${esc(p.field)} differs: ${esc(p.a)} vs ${esc(p.b)}</div>`).join('')}</td>`
            : '';
        return `<tr class="${mi === 0 ? 'pair-start' : ''}${sig ? ' significant' : ''}" data-a="${esc(pair.a)}" data-b="${esc(pair.b)}" data-metric="${esc(m.metric)}" data-diff="${m.diff}" data-p="${m.p}" data-p-holm="${m.pHolm}">${head}<td>${esc(m.metric)}</td><td class="num">${show(m.diff)}</td><td class="num nowrap">${range(m.bootstrap)}</td><td class="num nowrap">${range(m.normal)}</td><td>${TEST_TEXT[m.test]}</td><td class="num">${formatP(m.p)}</td><td class="num">${formatP(m.pHolm)}${sig ? ' <span class="sig" title="significant after Holm">★</span>' : ''}</td>${tail}</tr>`;
      }),
    );
    const dropped =
      cmp.selection.kind === 'shared'
        ? `<p class="note">Compared on the ${int(cmp.selection.taskIds.length)} tasks every cell scored; left out: ${cmp.selection.dropped.map((x) => `${esc(labels[x.ref] ?? x.ref)} ${int(x.tasks.length)}`).join(', ')}.</p>`
        : '';
    return `<h3>${esc(d.dataset)}</h3>${dropped}
<table class="grid metrics comparisons" id="compare-table-${di}" data-dataset="${esc(d.dataset)}"><thead><tr><th>A</th><th>B</th><th>tasks</th><th>score</th><th>A − B (points)</th><th>95% bootstrap</th><th>95% normal</th><th>test</th><th>p</th><th>p, Holm</th><th>solved by A only / B only</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table>`;
  });
  return `<section id="compare"><h2>Pairwise comparisons</h2>
<p>Every two cells of a dataset, compared on the same tasks. <b>A − B</b>: the mean over tasks of the per-task difference, in percentage points. Its 95% intervals are <b>paired</b> (each task keeps its two values): the bootstrap percentile interval (${int(REPORT_BOOTSTRAP_RESAMPLES)} resamples of the tasks, fixed seed) and the normal approximation (mean ± 1.96 standard errors of the differences). The test: McNemar's exact test when each task has one sample (pass or fail), else the paired permutation test on the per-task values. Cells scored from their text (BLEU, exact match, accuracy) are compared on their metric, in its own units: the tasks are resampled and the metric recomputed for both cells from the resampled tasks (paired bootstrap), its p the share of resampled differences at least as far from the observed one as it is from 0. <b>p, Holm</b>: the p-value adjusted for the number of pairs compared in the dataset (Holm); <span class="sig">★</span> and a green row: below 5%. The last column: tasks only one of the two solved (a passing sample), either way; open it for their ids. See docs/sweeps/results.md, “Comparing”.</p>
${parts.join('\n')}
</section>`;
}

/**
 * Where each cell's numbers come from (its results.json's provenance): explora's version and commit,
 * the config hash, the dataset copy's sha256, the model's endpoint and name, the prompt template's
 * hash, and the runtime's versions. Empty when no cell recorded any.
 */
function renderProvenance(cells: readonly ReportCell[]): string {
  const recorded = cells.filter((c) => c.provenance);
  if (!recorded.length) return '';
  const fields = [...new Set(recorded.flatMap((c) => Object.keys(provenanceFields(c.provenance!))))];
  const short = (field: string, v: string) => (/sha256|commit/.test(field) && /^[0-9a-f]{40,64}$/.test(v) ? v.slice(0, 12) : v);
  const rows = recorded.map((c) => {
    const f = provenanceFields(c.provenance!);
    return `<tr data-cell="${esc(c.id)}"><td>${esc(cellLabel(c))} <span class="muted">${esc(c.dataset)}</span></td>${fields.map((k) => `<td title="${esc(f[k] ?? '')}" data-field="${esc(k)}">${esc(short(k, f[k] ?? '–'))}</td>`).join('')}</tr>`;
  });
  const missing = cells.length - recorded.length;
  return `<section id="provenance"><h2>Provenance</h2>
<p>What each cell's numbers depend on besides its factors, as recorded when the cell was finalized: explora's version and git commit, the config's hash, the sha256 of the sweep's copy of the dataset, the model's endpoint and the name sent, the prompt template's hash, and the versions of Node, the sandbox's Python and the compilers on the worker. Hashes are cut to 12 characters (hover for the whole).</p>
<div class="scroll"><table class="grid" id="provenance-table"><thead><tr><th>cell</th>${fields.map((k) => `<th>${esc(k)}</th>`).join('')}</tr></thead><tbody>
${rows.join('\n')}
</tbody></table></div>
${missing ? `<p class="note">${int(missing)} cell(s) have no recorded provenance (results stored before it was recorded).</p>` : ''}
</section>`;
}

function renderCurves(cells: readonly ReportCell[], colors: Map<string, string>, charts: ChartSpec[]): string {
  const ks = scoredKs(cells);
  const parts = datasetsOf(cells).map((dataset, di) => {
    const mine = cells.filter((c) => c.dataset === dataset);
    const curves = mine.map((c) => ({ c, pass: atKCurve(c.perTask, 'c', ks), success: atKCurve(c.perTask, 's', ks) }));
    const maxK = Math.max(1, ...curves.flatMap((x) => x.pass.map((p) => p.k)));
    const xType = maxK > 40 ? 'logarithmic' : 'linear';
    const make = (which: 'pass' | 'success'): ChartSpec => ({
      id: `chart-${which}k-${di}`,
      type: 'line',
      title: `${dataset}: ${which}@k`,
      xLabel: 'k (samples drawn per task)',
      yLabel: `${which}@k`,
      x: { type: xType, min: 1, max: maxK, integer: true },
      y: { min: 0, max: 1, percent: true },
      datasets: curves.map((x, i) => ({
        label: cellLabel(x.c),
        color: colors.get(cellLabel(x.c))!,
        data: x[which].map((p) => ({ x: p.k, y: p.value })),
        ...(x[which].some((p) => p.low !== null) ? { band: x[which].map((p) => ({ x: p.k, low: p.low, high: p.high })) } : {}),
        dashed: which === 'success',
        ...distinct(i, x[which].length > 20 ? 0 : 3),
      })),
    });
    const pass = make('pass');
    const success = make('success');
    charts.push(pass, success);
    return `<h3>${esc(dataset)}</h3><div class="chart-row">${chartBox(pass)}${chartBox(success)}</div>`;
  });
  return `<section id="curves"><h2>pass@k and success@k against k</h2>
<p>Each line is one cell (model · method · temperature), estimated for every k from 1 to its n; the shaded band around it is its 95% interval over tasks (mean ± 1.96 standard errors), also in the tooltip. Cells with equal results draw over each other: each later cell in the legend is drawn wider, underneath, with another marker.</p>
${parts.join('\n')}
</section>`;
}

const COST_METRICS: Array<{ key: string; label: string; axis: string; value: (c: ReportCell) => number }> = [
  {
    key: 'tokens',
    label: 'tokens per task',
    axis: 'tokens per task (prompt + completion)',
    value: (c) => (c.cost.promptTokens + c.cost.completionTokens) / Math.max(1, c.tasks),
  },
  { key: 'calls', label: 'LLM calls per task', axis: 'LLM calls per task', value: (c) => c.cost.calls / Math.max(1, c.tasks) },
  { key: 'runs', label: 'sandbox runs per task', axis: 'sandbox runs per task', value: (c) => c.cost.sandboxRuns / Math.max(1, c.tasks) },
  { key: 'time', label: 'wall time of the cell (s)', axis: 'wall time of the cell (seconds)', value: (c) => c.cost.wallSeconds },
];

function renderCost(cells: readonly ReportCell[], colors: Map<string, string>, charts: ChartSpec[], config: unknown): string {
  const ks = scoredKs(cells);
  const k0 = ks[0] ?? 1;
  const rows = cells
    .map(
      (c) =>
        `<tr><td>${esc(c.dataset)}</td><td>${esc(cellLabel(c))}</td><td class="num">${int(c.cost.calls)}</td><td class="num">${int(c.cost.promptTokens)}</td><td class="num">${int(c.cost.completionTokens)}</td><td class="num">${int(c.cost.sandboxRuns)}</td><td class="num">${seconds(c.cost.wallSeconds)}</td><td class="num">${dec(c.cost.calls / Math.max(1, c.tasks), 2)}</td><td class="num">${int((c.cost.promptTokens + c.cost.completionTokens) / Math.max(1, c.tasks))}</td><td class="num">${dec(c.cost.sandboxRuns / Math.max(1, c.tasks), 2)}</td><td class="num">${pct(c.passAtK[`pass@${k0}`])}</td></tr>`,
    )
    .join('\n');
  const scatters = datasetsOf(cells).map((dataset, di) => {
    const mine = cells.filter((c) => c.dataset === dataset);
    const variant = (m: (typeof COST_METRICS)[number], k: number) => ({
      title: `${dataset}: pass@${k} against ${m.label}`,
      xLabel: m.axis,
      yLabel: `pass@${k}`,
      datasets: mine.map((c, i) => ({
        label: cellLabel(c),
        color: colors.get(cellLabel(c))!,
        data: c.passAtK[`pass@${k}`] === undefined ? [] : [{ x: m.value(c), y: c.passAtK[`pass@${k}`]! }],
        ...distinct(i, 7),
      })),
    });
    const variants: ChartSpec['variants'] = {};
    for (const m of COST_METRICS) for (const k of ks.length ? ks : [1]) variants[`${m.key}|${k}`] = variant(m, k);
    const first = variants[`${COST_METRICS[0]!.key}|${k0}`]!;
    const spec: ChartSpec = {
      id: `chart-cost-${di}`,
      type: 'scatter',
      title: first.title,
      xLabel: first.xLabel,
      yLabel: first.yLabel,
      x: { min: 0 },
      y: { min: 0, max: 1, percent: true },
      datasets: first.datasets,
      variants,
    };
    charts.push(spec);
    const controls = `<div class="scatter-controls" data-chart="${esc(spec.id)}">
  <label>cost <select name="metric">${COST_METRICS.map((m) => `<option value="${esc(m.key)}">${esc(m.label)}</option>`).join('')}</select></label>
  <label>pass@ <select name="k">${(ks.length ? ks : [1]).map((k) => `<option value="${k}">${k}</option>`).join('')}</select></label>
</div>`;
    return `<div class="scatter">${controls}${chartBox(spec, 360)}</div>`;
  });
  return `<section id="cost"><h2>Cost against pass@k</h2>
<p>What each cell spent: LLM calls and tokens as reported by the endpoint, programs run in the sandbox, and the cell's wall time (cells may run at the same time). Up and to the left is better.</p>
<table class="grid" id="cost-table"><thead><tr><th>dataset</th><th>cell</th><th>LLM calls</th><th>prompt tokens</th><th>completion tokens</th><th>sandbox runs</th><th>wall time</th><th>calls / task</th><th>tokens / task</th><th>runs / task</th><th>pass@${k0}</th></tr></thead>
<tbody>
${rows}
</tbody></table>
${renderBatchSavings(batchSavings(config, cells))}
<div class="chart-row">${scatters.join('\n')}</div>
</section>`;
}

/** Batch mode's saving per cell (batchSavings.ts); nothing when no answer came from a batch. */
function renderBatchSavings(savings: readonly BatchSaving[]): string {
  if (savings.length === 0) return '';
  const money = (m: Money | null) => (m ? esc(formatMoney(m)) : '-');
  const rows = savings.map(
    (s) =>
      `<tr><td>${esc(s.cell.dataset)}</td><td>${esc(cellLabel(s.cell))}</td><td class="num">${int(s.promptTokens)}</td><td class="num">${int(s.completionTokens)}</td><td class="num">${money(s.atLive)}</td><td class="num">${money(s.atBatch)}</td><td class="num">${s.atLive && s.atBatch ? money({ amount: s.atLive.amount - s.atBatch.amount, currency: s.atLive.currency }) : '-'}</td></tr>`,
  );
  return `<p>Answers from provider batches (batch mode), priced at the model's live price and at its batch price:</p>
<table class="grid" id="batch-savings"><thead><tr><th>dataset</th><th>cell</th><th>batch prompt tokens</th><th>batch completion tokens</th><th>at the live price</th><th>at the batch price</th><th>saved</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table>`;
}

/**
 * The ExploraCoder paper's analyses of the ExploraCoder- and CAPIR-family cells: the numbers of
 * domain/report/paperAnalyses.ts as loaded (scripts/paper-analyses.ts prints the same), only laid out.
 */
function renderPaperAnalyses(cells: readonly ReportCell[]): string {
  const mine = cells.filter((c): c is ReportCell & { paperAnalyses: PaperAnalyses } => c.paperAnalyses !== undefined);
  if (mine.length === 0) return '';
  const num = (v: number | null, digits = 2) => (v === null ? '–' : dec(v, digits));
  const share = (v: number | null) => (v === null ? '–' : pct(v));
  const cost = mine
    .map((c) => {
      const a = c.paperAnalyses.cost;
      return a.rows
        .map((r, i) => {
          const head =
            i === 0
              ? `<td rowspan="${a.rows.length}">${esc(c.dataset)}</td><td rowspan="${a.rows.length}">${esc(cellLabel(c))}</td><td class="num" rowspan="${a.rows.length}">${int(a.tasks)}</td><td class="num" rowspan="${a.rows.length}">${dec(a.mean_subtasks, 1)}</td>`
              : '';
          const total = r.stage === 'total' ? ' class="total"' : '';
          return `<tr${total} data-cell="${esc(c.id)}" data-stage="${esc(r.stage)}">${head}<td>${esc(r.stage)}</td><td class="num" data-field="requests">${dec(r.requests, 2)}</td><td class="num" data-field="answers">${dec(r.answers, 2)}</td><td class="num" data-field="prompt_tokens">${dec(r.prompt_tokens, 1)}</td><td class="num" data-field="completion_tokens">${dec(r.completion_tokens, 1)}</td></tr>`;
        })
        .join('\n');
    })
    .join('\n');
  const debug = mine
    .map((c) => {
      const d = c.paperAnalyses.debug;
      if (d.explored_subtasks === 0)
        return `<tr data-cell="${esc(c.id)}"><td>${esc(c.dataset)}</td><td>${esc(cellLabel(c))}</td><td colspan="7" class="muted">no explored subtask (the method does not explore)</td></tr>`;
      return `<tr data-cell="${esc(c.id)}"><td>${esc(c.dataset)}</td><td>${esc(cellLabel(c))}</td><td class="num" data-field="explored_subtasks">${int(d.explored_subtasks)}</td><td class="num" data-field="needed_debug">${int(d.needed_debug)}</td><td class="num" data-field="p1">${share(d.p1)}</td><td class="num" data-field="still_failing">${int(d.still_failing)}</td><td class="num" data-field="p2">${share(d.p2)}</td><td class="num" data-field="mean_debug_requests">${num(d.mean_debug_requests)}</td><td class="num" data-field="mean_debug_rounds">${num(d.mean_debug_rounds)}</td></tr>`;
    })
    .join('\n');
  const group = (g: PassGroup, name: string) =>
    `<td class="num" data-field="${name}-tasks">${int(g.tasks)}</td><td class="num" data-field="${name}-share">${share(g.share)}</td><td class="num" data-field="${name}-pass">${share(g.pass_rate)}</td>`;
  const coae = mine
    .filter((c) => c.paperAnalyses.debug.explored_subtasks > 0)
    .map((c) => {
      const a = c.paperAnalyses.coae;
      return `<tr data-cell="${esc(c.id)}"><td>${esc(c.dataset)}</td><td>${esc(cellLabel(c))}</td>${group(a.all_subtasks_ok, 'ok')}${group(a.some_subtask_failed, 'failed')}<td class="num" data-field="unexplored">${int(a.unexplored_tasks)}</td></tr>`;
    })
    .join('\n');
  return `<section id="paper"><h2>ExploraCoder paper analyses</h2>
<p>The analyses the ExploraCoder paper reports beside pass@k, for its method and the CAPIR family, from each task's stored trace and its final pass counts (<code>scripts/paper-analyses.ts</code> prints the same numbers; definitions in docs/methods.md, "The paper's analyses").</p>
<h3>Cost per task (Table 6)</h3>
<p>Per stage, the mean over traced tasks of requests (a request of n choices counts once, as the paper counts; every request sent is counted, also the further ones an endpoint that answers fewer choices than <code>n</code> needs), the answers they brought, and prompt and completion tokens as the endpoint reported them; final answers included. A stage no trace recorded is left out.</p>
<table class="grid" id="paper-cost-table"><thead><tr><th>dataset</th><th>cell</th><th>traced tasks</th><th>subtasks / task</th><th>stage</th><th>requests</th><th>answers</th><th>prompt tokens</th><th>completion tokens</th></tr></thead>
<tbody>
${cost}
</tbody></table>
<h3>Debugging (p1, p2)</h3>
<p><b>p1</b>: explored subtasks whose first-generation candidates all failed (the paper's debug rate); <b>p2</b>: of those, the share still failing after debugging (1 by construction for a method that does not debug).</p>
<table class="grid" id="paper-debug-table"><thead><tr><th>dataset</th><th>cell</th><th>explored subtasks</th><th>needed debug</th><th>p1</th><th>still failing</th><th>p2</th><th>debug requests / such subtask</th><th>debug rounds / such subtask</th></tr></thead>
<tbody>
${debug}
</tbody></table>
${
  coae
    ? `<h3>CoAE subtask success against final pass</h3>
<p>Tasks whose explored subtasks all succeeded (after debugging where the method debugs) against tasks where some failed: how many, and the mean pass rate c/n of their final samples.</p>
<table class="grid" id="paper-coae-table"><thead><tr><th rowspan="2">dataset</th><th rowspan="2">cell</th><th colspan="3">all subtasks ok</th><th colspan="3">some subtask failed</th><th rowspan="2">tasks with no explored subtask</th></tr>
<tr><th>tasks</th><th>share</th><th>pass rate</th><th>tasks</th><th>share</th><th>pass rate</th></tr></thead>
<tbody>
${coae}
</tbody></table>`
    : ''
}
</section>`;
}

function renderStatus(cells: readonly ReportCell[], charts: ChartSpec[]): string {
  const statuses = [...new Set([...STATUS_ORDER, ...cells.flatMap((c) => Object.keys(c.statusCounts))])].filter((s) =>
    cells.some((c) => (c.statusCounts[s] ?? 0) > 0),
  );
  const labels = cells.map((c) => `${c.dataset}: ${cellLabel(c)}`);
  const spec: ChartSpec = {
    id: 'chart-status',
    type: 'bar',
    indexAxis: 'y',
    title: 'Samples by how their run ended',
    xLabel: 'samples',
    yLabel: 'cell',
    x: { stacked: true, min: 0, integer: true },
    y: { type: 'category', stacked: true },
    labels,
    datasets: statuses.map((s) => ({ label: s, color: STATUS_COLORS[s] ?? '#999999', data: cells.map((c) => c.statusCounts[s] ?? 0) })),
  };
  charts.push(spec);
  const legend = statuses.map((s) => `<li><span class="st st-${slug(s)}">${esc(s)}</span> ${esc(STATUS_HELP[s] ?? '')}</li>`).join('');
  // Answers cut at max_tokens mostly fail as broken programs: said, or pass@k reads as the model's ability.
  const cut = cells.filter((c) => c.cutAtMaxTokens);
  const cutNote = cut.length
    ? `<p class="note" id="cut-at-max-tokens">Answers cut at max_tokens (finish_reason length), counted as failures when they break the program: ${cut
        .map((c) => `${esc(cellLabel(c))} (${esc(c.dataset)}) ${c.cutAtMaxTokens} of ${c.samples}`)
        .join('; ')}. Raise the model's max_tokens to score the model rather than the limit.</p>`
    : '';
  return `<section id="status"><h2>How the samples ended</h2>
${chartBox(spec, Math.max(200, 60 + 34 * cells.length))}
<ul class="status-help">${legend}</ul>
${cutNote}
</section>`;
}

function renderPipeline(cells: readonly ReportCell[], colors: Map<string, string>, charts: ChartSpec[]): string {
  const all = datasetsOf(cells);
  const datasets = all.filter((d) =>
    cells.some((c) => c.dataset === d && c.passRateByPipelineLength && Object.keys(c.passRateByPipelineLength).length),
  );
  if (!datasets.length) return '';
  const parts = datasets.map((dataset) => {
    const di = all.indexOf(dataset);
    const mine = cells.filter((c) => c.dataset === dataset && c.passRateByPipelineLength);
    const lengths = [...new Set(mine.flatMap((c) => Object.keys(c.passRateByPipelineLength!)))].sort((a, b) => Number(a) - Number(b));
    const tasksAt = (len: string) => Math.max(...mine.map((c) => c.passRateByPipelineLength![len]?.tasks ?? 0));
    const spec: ChartSpec = {
      id: `chart-pipeline-${di}`,
      type: 'line',
      title: `${dataset}: pass rate by hidden pipeline length`,
      xLabel: 'pipeline length (steps of the hidden program)',
      yLabel: 'pass rate (mean c/n per task)',
      x: { type: 'category' },
      y: { min: 0, max: 1, percent: true },
      labels: lengths.map((l) => `${l} (${tasksAt(l)} tasks)`),
      datasets: mine.map((c, i) => ({
        label: cellLabel(c),
        color: colors.get(cellLabel(c))!,
        data: lengths.map((l) => c.passRateByPipelineLength![l]?.pass_rate ?? null),
        ...distinct(i, 4),
      })),
    };
    charts.push(spec);
    const table = `<table class="grid"><thead><tr><th>length</th><th>tasks</th>${mine.map((c) => `<th>${esc(cellLabel(c))}</th>`).join('')}</tr></thead><tbody>${lengths
      .map(
        (l) =>
          `<tr><td class="num">${esc(l)}</td><td class="num">${int(tasksAt(l))}</td>${mine.map((c) => `<td class="num">${pct(c.passRateByPipelineLength![l]?.pass_rate)}</td>`).join('')}</tr>`,
      )
      .join('')}</tbody></table>`;
    return `<h3>${esc(dataset)}</h3>${chartBox(spec, 320)}${table}`;
  });
  return `<section id="pipeline"><h2>PBE World: pass rate by pipeline length</h2>
<p>The pass rate of the tasks whose hidden pipeline has a given number of steps (the mean over those tasks of passing samples / samples).</p>
${parts.join('\n')}
</section>`;
}

const CATEGORY_TEXT: Record<OutcomeCategory, string> = {
  all: 'solved by every cell',
  none: 'solved by no cell',
  one: 'solved by exactly one cell',
  some: 'solved by some cells, not all',
};

function renderOutcomes(cells: readonly ReportCell[], drill: ReadonlyMap<string, Set<number>>, opts: Required<RenderOptions>): string {
  const parts = datasetsOf(cells).map((dataset) => {
    const o: DatasetOutcomes = datasetOutcomes(dataset, cells);
    const mine = cells.filter((c) => c.dataset === dataset);
    const shown = drill.get(dataset) ?? new Set<number>();
    const link = (i: number, text: string) => (shown.has(i) ? `<a href="#task-${esc(slug(dataset))}-${i}">${esc(text)}</a>` : esc(text));
    const listOf = (cat: OutcomeCategory, filter: (t: DatasetOutcomes['tasks'][number]) => boolean = () => true) => {
      const tasks = o.tasks.filter((t) => t.category === cat && filter(t));
      if (!tasks.length) return '<span class="muted">none</span>';
      const listed = tasks.slice(0, opts.maxListedTasks).map((t) => link(t.taskIndex, t.taskId));
      return (
        listed.join(', ') +
        (tasks.length > listed.length ? ` <span class="muted">… and ${int(tasks.length - listed.length)} more</span>` : '')
      );
    };
    const single = mine.length === 1;
    const categories: OutcomeCategory[] = single ? ['all', 'none'] : ['all', 'none', 'one', 'some'];
    const summary = categories
      .map(
        (cat) =>
          `<tr class="outcome-${cat}"><th>${single ? (cat === 'all' ? 'solved' : 'not solved') : CATEGORY_TEXT[cat]}</th><td class="num">${int(o.counts[cat])}</td><td>${cat === 'one' || cat === 'some' ? '' : listOf(cat)}</td></tr>`,
      )
      .join('');
    const onlyRows = single
      ? ''
      : mine
          .map(
            (c) =>
              `<tr><th>only ${esc(cellLabel(c))}</th><td class="num">${int(o.uniqueSolves[c.id] ?? 0)}</td><td>${listOf('one', (t) => t.solvedBy[0] === c.id)}</td></tr>`,
          )
          .join('');
    const rows = o.tasks.slice(0, opts.maxOutcomeRows);
    const matrix = rows
      .map((t) => {
        const counts = mine.map((c) => {
          const p = c.perTask[t.taskIndex];
          if (!p || p.n === 0) return '<td class="num muted">–</td>';
          const rate = p.c / p.n;
          return `<td class="num rate" style="background:${rateColor(rate)}" title="${esc(`${cellLabel(c)}: ${p.c} of ${p.n} passed, ${p.s} succeeded`)}">${p.c}/${p.n}</td>`;
        });
        return `<tr class="outcome-${t.category}"><td>${link(t.taskIndex, t.taskId)}</td>${counts.join('')}<td>${esc(single ? (t.category === 'all' ? 'solved' : 'not solved') : CATEGORY_TEXT[t.category])}</td></tr>`;
      })
      .join('\n');
    const cut =
      o.tasks.length > rows.length
        ? `<p class="note">The table shows the first ${int(rows.length)} of ${int(o.tasks.length)} tasks; the counts above cover all of them.</p>`
        : '';
    return `<h3>${esc(dataset)} <span class="muted">(${int(o.tasks.length)} tasks)</span></h3>
<table class="grid outcomes-summary"><tbody>${summary}${onlyRows}</tbody></table>
<details class="matrix"${o.tasks.length <= 60 ? ' open' : ''}><summary>passing samples per task and cell (c/n)</summary>
<div class="scroll"><table class="grid outcome-matrix"><thead><tr><th>task</th>${mine.map((c) => `<th>${esc(cellLabel(c))}</th>`).join('')}<th>outcome</th></tr></thead><tbody>
${matrix}
</tbody></table></div>${cut}</details>`;
  });
  return `<section id="outcomes"><h2>Per-task outcomes</h2>
<p>A task is <b>solved</b> by a cell when at least one of its samples passed. Linked task ids open in the samples section below.</p>
${parts.join('\n')}
</section>`;
}

/** White (0) to green (1), for c/n in the outcomes table. */
function rateColor(rate: number): string {
  const r = Math.max(0, Math.min(1, rate));
  const mix = (a: number, b: number) => Math.round(a + (b - a) * r);
  return `rgb(${mix(253, 118)},${mix(237, 193)},${mix(236, 110)})`;
}

// ---------------------------------------------------------------------------------------------
// Drill-down

function clipped(text: string, max: number, cls: string): string {
  if (text === '') return `<p class="muted empty ${cls}">(empty)</p>`;
  if (text.length <= max) return `<pre class="${cls}">${esc(text)}</pre>`;
  return `<pre class="${cls}">${esc(text.slice(0, max))}</pre><p class="clip">… ${int(text.length - max)} more characters not shown (${int(text.length)} in all).</p>`;
}

function statusBadge(status: string): string {
  return `<span class="st st-${slug(status)}" title="${esc(STATUS_HELP[status] ?? status)}">${esc(status)}</span>`;
}

function renderTrace(trace: ExplorationTrace, max: number): string {
  const subtasks = trace.subtasks
    .map((st) => {
      const attempts = st.attempts
        .map(
          (a, i) => `<li class="attempt${a.selected ? ' selected' : ''}">
  <div class="attempt-head">attempt ${i + 1} ${statusBadge(a.status)}${a.selected ? ' <span class="chosen">selected</span>' : ''}${a.duration_ms !== undefined ? ` <span class="muted">${int(a.duration_ms)} ms</span>` : ''}</div>
  ${clipped(a.code, max, 'code')}
  ${a.stdout ? `<div class="label">stdout</div>${clipped(a.stdout, max, 'out')}` : ''}
  ${a.stderr ? `<div class="label">stderr</div>${clipped(a.stderr, max, 'out')}` : ''}
  ${a.exception ? `<div class="exception"><b>${esc(a.exception.type)}</b>: ${esc(a.exception.message)}</div>` : ''}
</li>`,
        )
        .join('');
      const cost = [
        st.calls !== undefined ? `${int(st.calls)} calls` : '',
        st.prompt_tokens !== undefined || st.completion_tokens !== undefined
          ? `${int((st.prompt_tokens ?? 0) + (st.completion_tokens ?? 0))} tokens`
          : '',
      ]
        .filter(Boolean)
        .join(', ');
      return `<li class="subtask outcome-${slug(st.outcome)}">
<details class="subtask-details"${st.outcome === 'solved' ? '' : ' open'}><summary><b>Subtask ${st.index + 1}</b>: ${esc(st.description)} <span class="subtask-outcome">${esc(st.outcome)}</span> <span class="muted">${st.attempts.length} attempt(s)${cost ? `, ${cost}` : ''}</span></summary>
${st.apis?.length ? `<div class="apis">APIs: ${st.apis.map((a) => `<code>${esc(a)}</code>`).join(' ')}</div>` : ''}
<ol class="attempts">${attempts}</ol>
${st.experience ? `<div class="label">experience kept</div>${clipped(st.experience, max, 'experience')}` : ''}
</details></li>`;
    })
    .join('\n');
  const solved = trace.subtasks.filter((s) => s.outcome === 'solved').length;
  return `<div class="trace"><h5>Exploration trace${trace.method ? ` (${esc(trace.method)})` : ''}: ${solved} of ${trace.subtasks.length} subtasks solved</h5>
${trace.plan ? `<div class="label">plan</div>${clipped(trace.plan, max, 'plan')}` : ''}
<ol class="subtasks">${subtasks}</ol>
${trace.final_prompt ? `<details><summary>final generation prompt</summary>${clipped(trace.final_prompt, max, 'prompt')}</details>` : ''}
</div>`;
}

function renderSample(s: ReportSample, anchor: string, max: number): string {
  const tokens = s.prompt_tokens + s.completion_tokens;
  const result = [
    `<tr><th>status</th><td>${statusBadge(s.status)} ${esc(STATUS_HELP[s.status] ?? '')}</td></tr>`,
    `<tr><th>passed</th><td>${s.passed ? 'yes' : 'no'}</td></tr>`,
    `<tr><th>success</th><td>${s.success ? 'yes' : 'no'}</td></tr>`,
    s.exception
      ? `<tr><th>exception</th><td class="exception"><b>${esc(s.exception.type)}</b>: ${esc(s.exception.message)}${s.exception.traceback ? clipped(s.exception.traceback, max, 'out') : ''}</td></tr>`
      : '',
    s.llm_error ? `<tr><th>LLM error</th><td class="exception">${esc(s.llm_error)}</td></tr>` : '',
    `<tr><th>run time</th><td>${int(s.duration_ms)} ms</td></tr>`,
    `<tr><th>LLM</th><td>${int(s.calls)} call(s), ${int(s.prompt_tokens)} prompt + ${int(s.completion_tokens)} completion tokens</td></tr>`,
  ].join('');
  return `<details class="sample" id="${esc(anchor)}" data-sample="${s.sample_index}" data-status="${esc(s.status)}">
<summary>sample ${s.sample_index} ${statusBadge(s.status)}${s.exception ? ` <span class="muted">${esc(s.exception.type)}</span>` : ''} <span class="muted">${int(s.duration_ms)} ms, ${int(tokens)} tokens</span>${s.trace ? ' <span class="has-trace">trace</span>' : ''}</summary>
<div class="sample-body">
<h5>Raw response</h5>${clipped(s.raw, max, 'raw')}
<h5>Extracted code</h5>${clipped(s.code, max, 'code')}
<h5>Execution result</h5><table class="kv result">${result}</table>
${s.trace ? renderTrace(s.trace, max) : ''}
</div></details>`;
}

function renderDrillTask(dataset: string, t: DrillTask, cellsById: ReadonlyMap<string, ReportCell>, max: number): string {
  const id = `task-${slug(dataset)}-${t.problem.task_index}`;
  const badges = t.cells
    .map((cs) => {
      const cell = cellsById.get(cs.cellId);
      const p = cell?.perTask[t.problem.task_index];
      if (!cell || !p) return '';
      return `<span class="badge" style="background:${rateColor(p.n ? p.c / p.n : 0)}" title="${esc(cellLabel(cell))}">${esc(cellLabel(cell))}: ${p.c}/${p.n}</span>`;
    })
    .join(' ');
  const perCell = t.cells
    .map((cs) => {
      const cell = cellsById.get(cs.cellId);
      const label = cell ? cellLabel(cell) : cs.cellId;
      const p = cell?.perTask[t.problem.task_index];
      const more = cs.total > cs.samples.length ? ` <span class="muted">(showing ${cs.samples.length} of ${cs.total} samples)</span>` : '';
      const samples = cs.samples.map((s) => renderSample(s, `${id}-${slug(cs.cellId)}-s${s.sample_index}`, max)).join('\n');
      return `<div class="cell-samples" data-cell="${esc(cs.cellId)}"><h4>${esc(label)}${p ? ` — ${p.c} of ${p.n} passed` : ''}${more}</h4>${samples || '<p class="muted">no samples recorded</p>'}</div>`;
    })
    .join('\n');
  return `<details class="task" id="${esc(id)}" data-task="${esc(t.problem.task_id)}">
<summary><span class="task-id">${esc(t.problem.task_id)}</span>${t.problem.pipeline_length !== undefined ? ` <span class="muted">pipeline length ${t.problem.pipeline_length}</span>` : ''} ${badges}</summary>
<div class="task-body">
<button type="button" data-expand="${esc(id)}">expand all samples</button>
<h4>Prompt</h4>${clipped(t.problem.prompt, max, 'prompt')}
${perCell}
</div></details>`;
}

function renderDrilldown(data: SweepReportData, opts: Required<RenderOptions>): string {
  const cellsById = new Map(data.cells.map((c) => [c.id, c]));
  const parts = data.drilldown.map((d: DatasetDrilldown) => {
    const listId = `tasks-${slug(d.dataset)}`;
    return `<h3>${esc(d.dataset)} <span class="muted">(${int(d.tasks.length)} of ${int(d.totalTasks)} tasks shown)</span></h3>
${d.note ? `<p class="note drill-note">${esc(d.note)}</p>` : ''}
<input class="task-filter" type="search" placeholder="filter tasks by id" data-list="${esc(listId)}" aria-label="filter ${esc(d.dataset)} tasks by id">
<div class="tasks" id="${esc(listId)}">
${d.tasks.map((t) => renderDrillTask(d.dataset, t, cellsById, opts.maxTextChars)).join('\n')}
</div>`;
  });
  return `<section id="samples"><h2>Samples</h2>
<p>Open a task for its prompt and, per cell, each sample's raw response, the code extracted from it and how its run ended${data.drilldown.some((d) => d.tasks.some((t) => t.cells.some((c) => c.samples.some((s) => s.trace)))) ? ', with the exploration trace subtask by subtask where the method kept one' : ''}.</p>
${parts.join('\n') || '<p class="muted">No samples to show.</p>'}
</section>`;
}

// ---------------------------------------------------------------------------------------------
// Page

const STYLE = `
:root { --fg:#1d2329; --muted:#68727d; --line:#d9dee3; --bg:#ffffff; --soft:#f5f7f9; --accent:#2f6f9f; }
* { box-sizing: border-box; }
/* Every jump (a nav link, a task's or a template's link) lands below the sticky nav: one line high (below), so 56 px clears it. */
html { scroll-padding-top:56px; }
body { margin:0; font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif; color:var(--fg); background:var(--bg); }
header { background:#22313f; color:#fff; padding:18px 28px 12px; }
header h1 { margin:0 0 4px; font-size:22px; }
header .meta { color:#c9d3dc; font-size:13px; }
nav { position:sticky; top:0; z-index:5; background:#fff; border-bottom:1px solid var(--line); padding:8px 28px; white-space:nowrap; overflow-x:auto; }
nav a { margin-right:16px; color:var(--accent); text-decoration:none; font-weight:600; }
main { max-width:1280px; margin:0 auto; padding:8px 28px 60px; }
h2 { margin:32px 0 8px; font-size:20px; border-bottom:2px solid var(--line); padding-bottom:4px; }
h3 { margin:22px 0 8px; font-size:16px; }
h4 { margin:14px 0 6px; font-size:14px; }
h5 { margin:10px 0 4px; font-size:13px; color:var(--muted); text-transform:uppercase; letter-spacing:.04em; }
.muted { color:var(--muted); font-weight:normal; }
.note { background:#fff7e0; border-left:4px solid #e0b100; padding:6px 10px; }
.cards { display:flex; flex-wrap:wrap; gap:12px; margin:16px 0; }
.card { background:var(--soft); border:1px solid var(--line); border-radius:6px; padding:10px 16px; min-width:140px; }
.card-value { font-size:22px; font-weight:700; }
.card-label { color:var(--muted); font-size:12px; }
table.grid { border-collapse:collapse; margin:8px 0; font-size:13px; }
table.grid th, table.grid td { border:1px solid var(--line); padding:4px 8px; text-align:left; vertical-align:top; }
table.grid thead th { background:var(--soft); }
table.kv { border-collapse:collapse; font-size:13px; }
table.kv > tbody > tr > th { text-align:left; padding:2px 10px 2px 0; color:var(--muted); font-weight:600; vertical-align:top; white-space:nowrap; }
table.kv > tbody > tr > td { padding:2px 0; }
td.num, table.grid td.num { text-align:right; font-variant-numeric:tabular-nums; }
table.grid tr.dataset-start > td { border-top:2px solid #aab4be; }
table.grid td.best { font-weight:700; background:#eaf4e6; }
table.grid tr.total > td { font-weight:600; background:var(--soft); }
.ci { display:block; font-size:11px; font-weight:400; color:var(--muted); white-space:nowrap; }
.chart-row { display:flex; flex-wrap:wrap; gap:16px; }
.chart-row > * { flex:1 1 520px; min-width:0; }
figure.chart { margin:8px 0; border:1px solid var(--line); border-radius:6px; padding:10px; background:#fff; }
.chart-box { position:relative; width:100%; }
figcaption { font-size:12px; color:var(--muted); margin-top:6px; }
.chart-error { color:#b00020; font-weight:600; }
.scatter-controls { display:flex; gap:16px; margin:8px 0 0; }
.scatter-controls select { font:inherit; padding:2px 4px; }
.st { display:inline-block; border-radius:3px; padding:0 6px; font-size:12px; font-weight:600; color:#fff; background:#999; }
${Object.entries(STATUS_COLORS)
  .map(([s, c]) => `.st-${slug(s)} { background:${c}; }`)
  .join('\n')}
.status-help { columns:2; font-size:13px; }
.scroll { max-height:520px; overflow:auto; }
details > summary { cursor:pointer; }
details.task { border:1px solid var(--line); border-radius:6px; margin:6px 0; background:#fff; }
details.task > summary { padding:6px 10px; background:var(--soft); }
details.task[open] > summary { border-bottom:1px solid var(--line); }
.task-id { font-weight:700; font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; }
.task-body { padding:6px 14px 12px; }
.badge { display:inline-block; border:1px solid var(--line); border-radius:10px; padding:0 8px; font-size:12px; margin:0 2px; }
details.sample { border-left:3px solid var(--line); margin:4px 0 4px 4px; padding-left:8px; }
details.sample[open] { border-left-color:var(--accent); }
pre { background:#f6f8fa; border:1px solid var(--line); border-radius:4px; padding:8px 10px; overflow:auto; max-height:420px; font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; white-space:pre; margin:4px 0; }
.clip { color:var(--muted); font-size:12px; margin:0 0 6px; }
.exception { color:#9b1c1c; }
.has-trace, .chosen { background:#2f6f9f; color:#fff; border-radius:3px; padding:0 5px; font-size:11px; }
.trace { margin-top:10px; border-top:1px dashed var(--line); }
ol.subtasks { padding-left:20px; }
li.subtask { margin:6px 0; }
.subtask-outcome { font-size:12px; font-weight:600; padding:0 6px; border-radius:3px; background:#ddd; }
.outcome-solved .subtask-outcome { background:#d8ecd3; }
.outcome-unsolved .subtask-outcome { background:#f6d5d5; }
li.attempt { margin:6px 0; }
li.attempt.selected > pre.code { border-color:#59a14f; border-width:2px; }
.label { font-size:12px; color:var(--muted); font-weight:600; margin-top:4px; }
input.task-filter { font:inherit; padding:4px 8px; width:280px; margin:4px 0 8px; }
button { font:inherit; font-size:12px; margin:4px 0; }
table.comparisons tr.pair-start > td { border-top:2px solid #aab4be; }
table.comparisons tr.significant > td:not([rowspan]) { background:#eaf4e6; }
.sig { color:#2d7a2d; font-weight:700; }
.flip-list { font-size:12px; margin:2px 0; max-width:420px; }
td.nowrap { white-space:nowrap; }
.provenance-warning { font-size:12px; color:#8a5a00; }
/* Provenance: a cell's fields wrap as "name: value" chips instead of a grid of a column per field
   (a dozen runtime versions made it scroll sideways at 1280 px). */
#provenance .scroll { overflow-x:hidden; }
#provenance-table, #provenance-table tbody { display:block; width:100%; }
#provenance-table thead { display:none; }
#provenance-table tr { display:flex; flex-wrap:wrap; gap:3px 6px; padding:6px 0; border-top:1px solid var(--line); }
#provenance-table td { display:block; border:none; padding:1px 6px; border-radius:3px; background:var(--soft); max-width:100%; overflow-wrap:anywhere; }
#provenance-table td:first-child { flex-basis:100%; background:none; padding-left:0; font-weight:600; }
#provenance-table td[data-field]::before { content:attr(data-field) ": "; color:var(--muted); }
`;

/** The whole report page. */
export function renderSweepReport(data: SweepReportData, options: RenderOptions): string {
  const opts: Required<RenderOptions> = { maxTextChars: 8_000, maxOutcomeRows: 300, maxListedTasks: 100, ...options };
  const charts: ChartSpec[] = [];
  const colors = colorsFor(data.cells);
  const drill = new Map(data.drilldown.map((d) => [d.dataset, new Set(d.tasks.map((t) => t.problem.task_index))]));
  const comparisons = data.cells.length ? renderComparisons(data, opts) : '';
  const hasPipeline = data.cells.some((c) => c.passRateByPipelineLength && Object.keys(c.passRateByPipelineLength).length);
  const body = data.cells.length
    ? [
        renderSummary(data),
        renderConfig(data),
        renderPassTable(data.cells),
        renderExtraScores(data.cells),
        comparisons,
        renderProvenance(data.cells),
        renderCurves(data.cells, colors, charts),
        renderCost(data.cells, colors, charts, data.config?.config),
        renderPaperAnalyses(data.cells),
        renderStatus(data.cells, charts),
        renderPipeline(data.cells, colors, charts),
        renderOutcomes(data.cells, drill, opts),
        renderDrilldown(data, opts),
      ].join('\n')
    : [renderSummary(data), renderConfig(data), '<p class="note">This sweep has no cells with results.</p>'].join('\n');
  const nav = [
    ['config', 'Config'],
    ['passk', 'pass@k'],
    ...(comparisons ? [['compare', 'Compare']] : []),
    ...(data.cells.some((c) => c.provenance) ? [['provenance', 'Provenance']] : []),
    ['curves', 'Curves'],
    ['cost', 'Cost'],
    ...(data.cells.some((c) => c.paperAnalyses) ? [['paper', 'Paper analyses']] : []),
    ['status', 'Statuses'],
    ...(hasPipeline ? [['pipeline', 'Pipeline length']] : []),
    ['outcomes', 'Per task'],
    ['samples', 'Samples'],
  ]
    .map(([id, text]) => `<a href="#${id}">${text}</a>`)
    .join('');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="explora sweep report">
<title>Sweep ${esc(data.sweepId)} — explora report</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>Sweep ${esc(data.sweepId)}</h1><div class="meta">report generated ${esc(data.generatedAt)}${data.configSha256 ? ` · config sha256 ${esc(data.configSha256.slice(0, 12))}` : ''} · ${int(data.cells.length)} cells</div></header>
<nav>${nav}</nav>
<main>
${body}
</main>
<script type="application/json" id="report-data">${jsonForScript({ sweepId: data.sweepId, charts })}</script>
<script>${scriptSource(opts.chartLibrary)}</script>
<script>${scriptSource(REPORT_CLIENT_SCRIPT)}</script>
</body>
</html>
`;
}
