/** The report's comparison and provenance sections, rendered from synthetic cells. */
import { describe, expect, it } from 'vitest';
import { compareCells } from '../../domain/compare/compare.js';
import { renderSweepReport } from '../../domain/report/html.js';
import type { SweepReportData } from '../../domain/report/model.js';
import type { CellProvenance } from '../../domain/sweep/provenance.js';
import { counts, synthCell, synthReport } from '../report/support.js';

const FAKE_LIB = '/*FAKE-CHART-LIB*/';
const section = (html: string, id: string) => new RegExp(`<section id="${id}">([\\s\\S]*?)</section>`).exec(html)?.[1] ?? null;

const provenance = (python: string): CellProvenance => ({
  explora: { version: '0.1.0', commit: '0123456789abcdef0123456789abcdef01234567' },
  config_sha256: 'c'.repeat(64),
  dataset_sha256: 'd'.repeat(64),
  model: { endpoint: 'http://x/v1', name: 'm' },
  prompt_template_sha256: null,
  runtime: { node: 'v22.1.0', python },
});

describe("the report's Pairwise comparisons section", () => {
  it('a row per pair and score of each dataset, with the p-values compare.ts computes', () => {
    const data = synthReport();
    const html = renderSweepReport(data, { chartLibrary: FAKE_LIB });
    const body = section(html, 'compare');
    expect(body).not.toBeNull();
    expect(html).toContain('<a href="#compare">Compare</a>');
    // Each dataset with two cells: one pair; its scores are pass@1, pass@2, pass@4 (4 samples).
    const rows = [
      ...body!.matchAll(
        /<tr class="[^"]*" data-a="([^"]+)" data-b="([^"]+)" data-metric="([^"]+)" data-diff="[^"]+" data-p="([^"]+)" data-p-holm="([^"]+)">/g,
      ),
    ];
    for (const dataset of ['mini', 'pbe']) {
      const cells = data.cells.filter((c) => c.dataset === dataset);
      const mine = rows.filter((r) => r[1] === `${data.sweepId}/${cells[0]!.id}`);
      const cmp = compareCells(
        cells.map((c) => ({
          ref: `${data.sweepId}/${c.id}`,
          dataset,
          model: c.model,
          method: c.method,
          temperature: c.temperature,
          nSamples: c.nSamples,
          k: [1, 2, 4],
          tasks: c.perTask,
        })),
        { sharedOnly: true },
      );
      expect(mine.map((r) => r[3])).toEqual(cmp.pairs[0]!.metrics.map((m) => m.metric));
      mine.forEach((r, i) => expect(Number(r[4])).toBe(cmp.pairs[0]!.metrics[i]!.p));
    }
  });

  it('text-scored cells: one row per pair, their metric in its own units by the paired bootstrap, never pass@k', () => {
    const data = synthReport();
    // CodeXGLUE's BLEU (x 100): per task, one first sample's smoothed sentence BLEU.
    const textCell = (model: string, bleus: number[]) => {
      const textPerTask = bleus.map((bleu, i) => ({ task_id: `t/${i}`, n: 1, c: 0, s: 0, text: { samples: 1, stats: { bleu } } }));
      const figure = (100 * bleus.reduce((x, y) => x + y, 0)) / bleus.length;
      return {
        ...synthCell({ dataset: 'code-to-text-go', model, method: 'direct', perTask: [] }),
        passAtK: {},
        textPerTask,
        scores: {
          kind: 'text' as const,
          metric: 'codexglue-bleu',
          headline: 'blue',
          samplesScored: 'first' as const,
          samples: bleus.length,
          figures: { blue: figure },
        },
      };
    };
    const a = textCell('alpha', [0.9, 0.8, 0.95, 0.7, 0.85, 0.9, 0.8, 0.75]);
    const b = textCell('beta', [0.1, 0.2, 0.15, 0.3, 0.05, 0.1, 0.2, 0.25]);
    data.cells = [...data.cells, a, b];
    const html = renderSweepReport(data, { chartLibrary: FAKE_LIB });
    const body = section(html, 'compare')!;
    const rows = [...body.matchAll(/data-metric="blue" data-diff="([^"]+)" data-p="([^"]+)"/g)];
    expect(rows).toHaveLength(1);
    expect(Number(rows[0]![1])).toBeCloseTo((100 * (6.65 - 1.35)) / 8, 9);
    expect(Number(rows[0]![2])).toBe(1 / 2001); // every resampled difference is positive and near the observed one
    expect(body).toContain('+66.2500');
    expect(body).toMatch(/<h3>code-to-text-go<\/h3>\s*<table/);
  });

  it('no section when no dataset has two cells', () => {
    const one = synthCell({
      dataset: 'mini',
      model: 'alpha',
      method: 'direct',
      perTask: counts('Mini', [
        [4, 4],
        [0, 2],
      ]),
    });
    const html = renderSweepReport({ ...synthReport(), cells: [one], drilldown: [] } as SweepReportData, { chartLibrary: FAKE_LIB });
    expect(html).not.toContain('<section id="compare">');
    expect(html).not.toContain('href="#compare"');
  });
});

describe("the report's Provenance section", () => {
  it('a row per cell with its fields, hashes cut; a compared pair differing in Python gets a warning', () => {
    const data = synthReport();
    data.cells = data.cells.map((c, i) => ({ ...c, provenance: provenance(i === 1 ? 'Python 3.12.0' : 'Python 3.11.7') }));
    const html = renderSweepReport(data, { chartLibrary: FAKE_LIB });
    const body = section(html, 'provenance')!;
    expect(body).not.toBeNull();
    expect((body.match(/<tr data-cell=/g) ?? []).length).toBe(data.cells.length);
    expect(body).toContain('<td title="0123456789abcdef0123456789abcdef01234567" data-field="explora.commit">0123456789ab</td>');
    // Cells 0 and 1 are the mini dataset's pair.
    expect(section(html, 'compare')).toContain('⚠ runtime.python differs: Python 3.11.7 vs Python 3.12.0');
    expect((section(html, 'compare')!.match(/⚠/g) ?? []).length).toBe(1);
  });

  it('none without recorded provenance', () => {
    expect(renderSweepReport(synthReport(), { chartLibrary: FAKE_LIB })).not.toContain('<section id="provenance">');
  });
});
