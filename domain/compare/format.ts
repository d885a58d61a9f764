/** A comparison as text for a terminal: per pair, a row per score, the flips, and what to beware of. */
import { isSignificant, type Comparison, type MetricComparison, type TaskFlip } from './compare.js';

const TEST_NAMES: Record<MetricComparison['test'], string> = {
  'mcnemar-exact': 'McNemar exact',
  'permutation-exact': 'permutation (exact)',
  'permutation-monte-carlo': 'permutation (Monte Carlo)',
  'paired-bootstrap': 'paired bootstrap',
};

const signed = (v: number) => `${v >= 0 ? '+' : ''}${v.toFixed(4)}`;
const interval = (i: { low: number; high: number } | null) => (i ? `[${signed(i.low)}, ${signed(i.high)}]` : '-');
/** p-values: 4 decimals, and the exponent form below 0.0001 (a table of 0.0000 says nothing). */
export const formatP = (p: number) => (p >= 1e-4 ? p.toFixed(4) : p.toExponential(1));

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

function flipLine(label: string, flips: TaskFlip[], max: number): string {
  const shown = flips.slice(0, max).map((f) => (f.a === '1/1' || f.a === '0/1' ? f.task_id : `${f.task_id} (${f.a} vs ${f.b})`));
  const more = flips.length > max ? ` and ${flips.length - max} more` : '';
  return `  ${label} (${flips.length})${flips.length ? ': ' : ''}${shown.join(', ')}${more}`;
}

export function formatComparison(cmp: Comparison, opts: { maxFlips: number }): string {
  const out: string[] = [];
  if (cmp.selection.kind === 'shared') {
    out.push(`compared on the ${cmp.selection.taskIds.length} tasks all cells share; left out:`);
    for (const d of cmp.selection.dropped) out.push(`  ${d.ref}: ${d.tasks.length} task(s)`);
    out.push('');
  }
  for (const pair of cmp.pairs) {
    out.push(`A = ${pair.a}`, `B = ${pair.b}`, `${pair.tasks} tasks`);
    const rows = pair.metrics.map((m) => [
      m.metric,
      m.a.toFixed(4),
      m.b.toFixed(4),
      signed(m.diff),
      interval(m.bootstrap),
      interval(m.normal),
      TEST_NAMES[m.test],
      formatP(m.p),
      formatP(m.pHolm) + (isSignificant(m, cmp.alpha) ? ' *' : '  '),
    ]);
    out.push(...table(['score', 'A', 'B', 'A - B', '95% bootstrap', '95% normal', 'test', 'p', 'p Holm'], rows).map((l) => `  ${l}`));
    // A text-scored pair passes nothing: its rows are its corpus metric's, and no task flips.
    if (!pair.metrics.every((m) => m.test === 'paired-bootstrap')) {
      out.push('  tasks solved (a passing sample) by one cell only:');
      out.push(flipLine('  A only', pair.flips.aOnly, opts.maxFlips), flipLine('  B only', pair.flips.bOnly, opts.maxFlips));
    }
    if (pair.confounded.length) {
      out.push(`  warning: the cells differ in ${pair.confounded.join(' and ')}; the difference is not the effect of one of them alone`);
    }
    for (const d of pair.provenance) out.push(`  warning: the cells differ in ${d.field}: A ${d.a}, B ${d.b}`);
    out.push('');
  }
  const m = cmp.pairs.length;
  out.push(
    `* significant at ${cmp.alpha * 100}% after Holm's adjustment over the ${m} pair${m === 1 ? '' : 's'} (per score).`,
    `Intervals are paired, over tasks: bootstrap percentile (${cmp.bootstrap.resamples} resamples, seed ${cmp.bootstrap.seed}) and normal approximation.`,
  );
  if (cmp.pairs.some((p) => p.metrics.some((m) => m.test === 'paired-bootstrap'))) {
    out.push("A corpus metric (BLEU...) is recomputed from the resampled tasks for both cells; its p is the paired bootstrap's.");
  }
  return out.join('\n');
}
