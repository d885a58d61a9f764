/** How a sweep looks in a terminal: live progress per cell, and the results table. */
import cliProgress from 'cli-progress';
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { LlmHeartbeatSchema, type LlmHeartbeat } from '../../domain/llm/request.js';
import { corpusScoreLine } from '../../domain/sweep/corpusScore.js';
import { kindOfCell } from '../../domain/scoring/scoreKinds.js';
import type { AtKInterval, CellSummary } from '../../domain/sweep/results.js';
import { sweepWorkflowId } from '../../domain/sweep/keys.js';
import { cellProgressQuery, type CellProgress } from '../../workflows/sweepCell.js';
import { shardProgressQuery, type ShardProgress } from '../../workflows/sweepShard.js';
import { sweepProgressQuery, type SweepProgress } from '../../workflows/sweep.js';
import { batchAnswersProgressQuery, type BatchAnswersProgress } from '../../workflows/batchAnswers.js';
import { batchRoundsProgressQuery } from '../../workflows/roundSignals.js';
import { describeBudgets } from '../../domain/sweep/budget.js';
import { formatSpendForecast, spendForecast, type CellSpendView } from '../../domain/sweep/spendForecast.js';
import { cellHoldLine } from './cell-holds.js';

/**
 * A metric's value (4 decimals) and, when there is one, its 95% interval over tasks: `0.5120 [0.469, 0.555]`.
 * Summaries stored before intervals existed, and cells of one task, show the value alone.
 */
export function formatMetric(value: number | undefined, ci: AtKInterval | undefined): string {
  if (value === undefined) return '-';
  const interval = ci && ci.low !== null && ci.high !== null ? ` [${ci.low.toFixed(3)}, ${ci.high.toFixed(3)}]` : '';
  return value.toFixed(4) + interval;
}

/** Requests sent without an answer are not in `calls`: a line says how many there were, where any. */
function unansweredLines(cells: CellSummary[]): string[] {
  const some = cells.filter((c) => (c.cost.requestsUnanswered ?? 0) > 0);
  if (!some.length) return [];
  const each = some.map((c) => `${String(c.cell.cell ?? '')} ${c.cost.requestsUnanswered}`).join(', ');
  return [`requests sent but not answered (time-outs, dropped connections, 429/5xx; not in calls): ${each}`];
}

export function formatResultsTable(cells: CellSummary[]): string {
  const ks = [...new Set(cells.flatMap((c) => Object.keys(c.passAtK)))].sort((a, b) => Number(a.split('@')[1]) - Number(b.split('@')[1]));
  const sks = ks.map((k) => k.replace('pass', 'success'));
  const header = [
    'cell',
    'tasks',
    'samples',
    ...ks,
    ...sks,
    'calls',
    'calls/task',
    'prompt tok',
    'compl tok',
    'tok/task',
    'sandbox runs',
    'wall s',
    'cut',
  ];
  const perTask = (v: number, c: CellSummary) => (c.tasks ? (v / c.tasks).toFixed(1) : '-');
  const rows = cells.map((c) => [
    String(c.cell.cell ?? ''),
    String(c.tasks),
    String(c.samples),
    ...ks.map((k) => formatMetric(c.passAtK[k], c.passAtKCI?.[k])),
    ...sks.map((k) => formatMetric(c.successAtK[k], c.successAtKCI?.[k])),
    String(c.cost.calls),
    perTask(c.cost.calls, c),
    String(c.cost.promptTokens),
    String(c.cost.completionTokens),
    perTask(c.cost.promptTokens + c.cost.completionTokens, c),
    String(c.cost.sandboxRuns),
    c.cost.wallSeconds.toFixed(1),
    String(c.cutAtMaxTokens ?? 0),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join('  ');
  const dropped = [...new Set(cells.flatMap((c) => c.droppedK))];
  const anyInterval = rows.some((r) => r.slice(3, 3 + ks.length + sks.length).some((v) => v.includes(' [')));
  return [
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    ...(anyInterval ? ['[low, high]: 95% interval over tasks (mean ± 1.96 standard errors of the per-task estimates)'] : []),
    ...(dropped.length ? [`not scored: ${dropped.join('; ')}`] : []),
    'cut: answers the endpoint cut at max_tokens (finish_reason length)',
    ...cutLines(cells),
    ...unansweredLines(cells),
    ...extraScoreLines(cells),
  ].join('\n');
}

/** A warning per cell with answers cut at max_tokens: its pass@k counts them as failures. */
export function cutLines(cells: readonly CellSummary[]): string[] {
  return cells.flatMap((c) =>
    c.cutAtMaxTokens
      ? [
          `warning: ${String(c.cell.cell ?? '')}: ${c.cutAtMaxTokens} of ${c.samples} answers were cut at max_tokens; ` +
            `they mostly fail as broken programs, so its pass@k measures max_tokens as much as the model: raise the model's max_tokens`,
        ]
      : [],
  );
}

/** The scores beyond pass@k of the cells that have them (evalplus's base and plus, APPS's accuracies, a text-scored family's metric), a line per cell. */
function extraScoreLines(cells: CellSummary[]): string[] {
  return cells.flatMap((c) => [...kindLines(c), ...alsoTextLines(c)]);
}

/** A run cell's samples also scored from their text (Spider: BLEU beside execution accuracy, its pass@1). */
function alsoTextLines(c: CellSummary): string[] {
  return c.alsoText ? [`${String(c.cell.cell ?? '')}: also from the text: ${corpusScoreLine(c.alsoText)}`] : [];
}

/** The scores beyond pass@k of a cell's score kind (ScoreKind.progressLine). */
function kindLines(c: CellSummary): string[] {
  return c.scores ? [`${String(c.cell.cell ?? '')}: ${kindOfCell(c.scores).progressLine(c.scores)}`] : [];
}

/**
 * A cell's progress, with what its running shards already hold: their answers and what those cost
 * (CellProgress counts a shard's samples and cost once it has run them), so calls and tokens grow
 * as answers arrive, not when a shard ends.
 */
export interface CellView extends CellProgress {
  /** Samples with their answer: of finished shards, of running shards' finished tasks, and those the running LLM activities have. */
  answered: number;
  /** Tasks whose samples all have their answer. */
  tasksAnswered: number;
  /** Answers cut at max_tokens so far (where known while answering: direct, rag; every method once executed). */
  cut: number;
  /** Batch mode: each request set's batches as their workflows' last polls saw them, while the cell waits for them. */
  batchProgress?: BatchAnswersProgress[];
}

/** `batches: batch_abc in_progress 3/6 done 1 failed` for a cell waiting for its batches; '' otherwise. */
export function batchesText(p: Pick<CellView, 'batchProgress'>): string {
  const batches = (p.batchProgress ?? []).flatMap((set) => set.batches);
  if (batches.length === 0) return p.batchProgress?.length ? 'batches: submitting' : '';
  return `batches: ${batches.map((b) => `${b.batchId} ${b.status} ${b.completed}/${b.total} done${b.failed ? ` ${b.failed} failed` : ''}`).join(', ')}`;
}

const NO_SHARD: Required<
  Pick<
    ShardProgress,
    'answered' | 'calls' | 'promptTokens' | 'completionTokens' | 'batchPromptTokens' | 'batchCompletionTokens' | 'tasksAnswered' | 'cut'
  >
> = {
  answered: 0,
  calls: 0,
  promptTokens: 0,
  completionTokens: 0,
  batchPromptTokens: 0,
  batchCompletionTokens: 0,
  tasksAnswered: 0,
  cut: 0,
};

/**
 * What a running shard's LLM activities have answered so far (their heartbeats' LlmHeartbeat), so a
 * task of many samples counts each answer as it comes, not all of them when the task ends.
 */
async function answeringNow(client: Client, shardWorkflowId: string): Promise<LlmHeartbeat> {
  const { raw } = await client.workflow.getHandle(shardWorkflowId).describe();
  const sum: LlmHeartbeat = { answered: 0, cut: 0, calls: 0, promptTokens: 0, completionTokens: 0 };
  for (const a of raw.pendingActivities ?? []) {
    const payload = a.heartbeatDetails?.payloads?.[0];
    if (!payload) continue;
    const beat = LlmHeartbeatSchema.safeParse(defaultPayloadConverter.fromPayload(payload));
    if (!beat.success) continue; // another activity's heartbeat (a sandbox run's count)
    for (const field of Object.keys(sum) as (keyof LlmHeartbeat)[]) sum[field] += beat.data[field];
  }
  return sum;
}

/** Batch mode gathered by model: the batches the sweep itself waits for, as their workflows' last polls saw them. */
export async function sweepBatchProgress(client: Client, sweep: Pick<SweepProgress, 'batches'>): Promise<BatchAnswersProgress[]> {
  const all = await Promise.all(
    (sweep.batches ?? []).map((id) =>
      client.workflow
        .getHandle(id)
        .query(batchAnswersProgressQuery)
        .catch(() => null),
    ),
  );
  return all.filter((b): b is BatchAnswersProgress => b !== null);
}

/** A sweep's progress and its running cells'; `gathered`: the batches it waits for itself (batch mode gathered by model), when it has any. */
export interface SweepSnapshot {
  sweep: SweepProgress;
  cells: Map<string, CellView>;
  gathered?: BatchAnswersProgress[];
}

/** `gathered batches: ...` for a sweep that waits for batches it gathered by model; null otherwise. */
export function gatheredLine(gathered: BatchAnswersProgress[] | undefined): string | null {
  return gathered ? `gathered ${batchesText({ batchProgress: gathered })}` : null;
}

/** A multi-round cell's batches of the round being answered (its round collector's, workflows/batchRounds.ts). */
async function roundBatchIds(client: Client, collector: string | undefined): Promise<string[]> {
  if (!collector) return [];
  const rounds = await client.workflow
    .getHandle(collector)
    .query(batchRoundsProgressQuery)
    .catch(() => null);
  return rounds?.batches ?? [];
}

export async function sweepSnapshot(client: Client, sweepId: string): Promise<SweepSnapshot> {
  const sweep = await client.workflow.getHandle(sweepWorkflowId(sweepId)).query(sweepProgressQuery);
  const cells = new Map<string, CellView>();
  await Promise.all(
    sweep.cells
      .filter((c) => c.state !== 'pending')
      .map(async (c) => {
        let cell: CellProgress;
        try {
          cell = await client.workflow.getHandle(c.workflowId).query(cellProgressQuery);
        } catch {
          return; // between two runs of its continue-as-new chain; the next poll answers
        }
        // Cells that started before shards reported their answers have no list of running shards.
        const shards = await Promise.all(
          (cell.runningShards ?? []).map(async (id) => {
            const [progress, now] = await Promise.all([
              client.workflow
                .getHandle(id)
                .query(shardProgressQuery)
                .catch(() => null),
              answeringNow(client, id).catch(() => null),
            ]);
            if (!progress) return NO_SHARD;
            // Answers of tasks still being answered (gone from `now` once their activity ended and the shard counted them).
            const s = { ...NO_SHARD, ...progress };
            if (progress.phase !== 'generating' || !now) return s;
            return {
              ...s,
              answered: s.answered + now.answered,
              cut: s.cut + now.cut,
              calls: s.calls + now.calls,
              promptTokens: s.promptTokens + now.promptTokens,
              completionTokens: s.completionTokens + now.completionTokens,
            };
          }),
        );
        const sum = (field: keyof typeof NO_SHARD) => shards.reduce((a, s) => a + s[field], 0);
        // A batch that ended between the cell's answer and this query is left out.
        const batchIds = [...(cell.batches ?? []), ...(await roundBatchIds(client, cell.roundCollector))];
        const batchProgress = (
          await Promise.all(
            batchIds.map((id) =>
              client.workflow
                .getHandle(id)
                .query(batchAnswersProgressQuery)
                .catch(() => null),
            ),
          )
        ).filter((b): b is BatchAnswersProgress => b !== null);
        cells.set(c.id, {
          ...cell,
          ...(cell.batches || batchIds.length ? { batchProgress } : {}),
          answered: Math.min(cell.samplesTotal, cell.samplesDone + sum('answered')),
          tasksAnswered: Math.min(cell.tasksTotal, (cell.tasksAnswered ?? cell.tasksDone) + sum('tasksAnswered')),
          cut: (cell.cutAtMaxTokens ?? 0) + sum('cut'),
          calls: cell.calls + sum('calls'),
          promptTokens: cell.promptTokens + sum('promptTokens'),
          completionTokens: cell.completionTokens + sum('completionTokens'),
          batchPromptTokens: (cell.batchPromptTokens ?? 0) + sum('batchPromptTokens'),
          batchCompletionTokens: (cell.batchCompletionTokens ?? 0) + sum('batchCompletionTokens'),
        });
      }),
  );
  return { sweep, cells, ...(sweep.batches?.length ? { gathered: await sweepBatchProgress(client, sweep) } : {}) };
}

/**
 * Seconds left: while answers are still coming, at the rate they come (the executions follow them
 * closely); once every sample has its answer, at the rate samples are executed. '-' until a rate is known.
 */
export function etaSeconds(p: Pick<CellView, 'answered' | 'samplesDone' | 'samplesTotal' | 'startedAtMs'>, nowMs: number): number | null {
  const elapsed = Math.max((nowMs - p.startedAtMs) / 1000, 1e-3);
  const [done, total] = p.answered < p.samplesTotal ? [p.answered, p.samplesTotal] : [p.samplesDone, p.samplesTotal];
  if (done <= 0 || done >= total) return done >= total && p.samplesDone >= total ? 0 : null;
  return Math.round((total - done) / (done / elapsed));
}

export function cellLine(p: CellView, nowMs = Date.now()): string {
  const eta = etaSeconds(p, nowMs);
  return (
    `${p.phase} samples answered ${p.answered}/${p.samplesTotal} executed ${p.samplesDone}/${p.samplesTotal} ` +
    `tasks ${p.tasksAnswered}/${p.tasksTotal} cut ${p.cut} ` +
    `pass@1 ${p.passAt1SoFar === null ? '-' : p.passAt1SoFar.toFixed(3)} ETA ${eta === null ? '-' : `${eta}s`} ` +
    `calls ${p.calls} tokens ${p.promptTokens + p.completionTokens}` +
    (batchesText(p) ? ` ${batchesText(p)}` : '')
  );
}

/** The live warning for a cell with answers cut at max_tokens, else null. */
export function liveCutWarning(id: string, p: Pick<CellView, 'cut' | 'answered'>): string | null {
  if (p.cut <= 0) return null;
  return (
    `warning: ${id}: ${p.cut} of ${p.answered} answers so far were cut at max_tokens; ` +
    `they mostly fail as broken programs, so its pass@k will measure max_tokens as much as the model: raise the model's max_tokens`
  );
}

/**
 * The sweep's spend so far and forecast remaining (money at the models' prices, else tokens), from
 * finished cells' summaries and running cells' live answers; its budgets, and why it is paused.
 */
export function spendLines(sweep: SweepProgress, cells: ReadonlyMap<string, CellView>): string[] {
  const views: CellSpendView[] = sweep.cells.map((entry): CellSpendView => {
    const model = entry.model ?? '';
    if (entry.summary) {
      const { promptTokens, completionTokens, batchPromptTokens, batchCompletionTokens } = entry.summary.cost;
      return {
        model,
        samplesTotal: entry.summary.samples,
        answered: entry.summary.samples,
        promptTokens,
        completionTokens,
        ...(batchPromptTokens !== undefined ? { batchPromptTokens, batchCompletionTokens: batchCompletionTokens ?? 0 } : {}),
      };
    }
    const live = cells.get(entry.id);
    if (live) {
      const { samplesTotal, answered, promptTokens, completionTokens, batchPromptTokens, batchCompletionTokens } = live;
      return { model, samplesTotal, answered, promptTokens, completionTokens, batchPromptTokens, batchCompletionTokens };
    }
    return { model, samplesTotal: entry.samplesTotal ?? 0, answered: 0, promptTokens: 0, completionTokens: 0 };
  });
  const budget = sweep.budget && sweep.countsSpend ? `; budgets ${describeBudgets(sweep.budget)}` : '';
  return [
    `${formatSpendForecast(spendForecast(views, sweep.prices ?? {}))}${budget}`,
    ...(sweep.pausedFor ? [`paused for ${sweep.pausedFor}${sweep.pausedFor.startsWith('budget') ? BUDGET_HINT : ''}`] : []),
  ];
}

const BUDGET_HINT =
  ': raise it in the config and run start-sweep again (or send the set-budget signal); nothing is lost (docs/sweeps/cost.md#budgets)';

/** How far a bar is: a sample counts half once answered and whole once executed, so the bar moves on answers. */
const barValue = (p: CellView) => p.answered + p.samplesDone;

/**
 * The results of cells that finished while others still run, each once (`shown` keeps which): the
 * first results come when the first cell ends, not with the last. The table at the end has them all.
 */
export function finishedCellLines(sweep: Pick<SweepProgress, 'cells'>, shown: Set<string>): string[] {
  if (sweep.cells.every((c) => c.state === 'done')) return [];
  const fresh = sweep.cells.filter((c) => c.summary && !shown.has(c.id));
  if (!fresh.length) return [];
  for (const c of fresh) shown.add(c.id);
  return [`finished while the sweep goes on:\n${formatResultsTable(fresh.map((c) => c.summary!))}`];
}

/** Live bars per cell until the sweep's workflow completes (the caller awaits the result). */
export function showSweepProgress(client: Client, sweepId: string, enabled: boolean): { stop: () => Promise<void> } {
  if (!enabled) return { stop: async () => {} };
  const tty = process.stderr.isTTY;
  const multi = tty
    ? new cliProgress.MultiBar(
        { format: '{cell} [{bar}] {percentage}% {extra}', stream: process.stderr, hideCursor: true, clearOnComplete: false },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  const bars = new Map<string, cliProgress.SingleBar>();
  const lastLogged = new Map<string, string>();
  const warned = new Set<string>();
  const resultsShown = new Set<string>();
  let spendBar: cliProgress.SingleBar | undefined;
  let gatheredBar: cliProgress.SingleBar | undefined;
  let lastGathered: string | null = null;
  let lastPausedFor: string | null = null;
  // Each cell's hold on errors is said once when it comes, and its end too.
  const cellHolds = new Map<string, string>();
  // One snapshot at a time, awaited by stop(): a query still retrying after the caller closed the
  // connection would throw outside any handler.
  // A tick while a snapshot is still under way (a slow or unreachable server) starts none: they
  // would pile up behind it.
  let polling: Promise<void> = Promise.resolve();
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    polling = poll().finally(() => void (busy = false));
  }, 1000);
  // A query that fails (Temporal down, or unreachable) is said once, and its recovery too: the
  // display must not freeze in silence while the sweep carries on wherever workers serve it.
  let failing: string | null = null;
  const say = (line: string) => (multi ? multi.log(`${line}\n`) : console.error(line));
  const poll = () =>
    // A deadline, not a race: the call itself ends, with no retries left running behind it.
    client
      .withDeadline(Date.now() + 5000, () => sweepSnapshot(client, sweepId))
      .then(({ sweep, cells, gathered }) => {
        if (failing !== null) {
          say(`sweep ${sweepId}: Temporal answers again`);
          failing = null;
        }
        const [spend, paused] = spendLines(sweep, cells);
        if (multi) {
          spendBar ??= multi.create(1, 0, { line: spend }, { format: '{line}' });
          spendBar.update(0, { line: spend });
        }
        // Batches the sweep gathered by model (its cells of that model wait for them): a line of their own.
        const batchesLine = gatheredLine(gathered);
        if (multi && (batchesLine || gatheredBar)) {
          gatheredBar ??= multi.create(1, 0, { line: '' }, { format: '{line}' });
          gatheredBar.update(0, { line: batchesLine ?? 'gathered batches: done' });
        } else if (!multi && batchesLine && batchesLine !== lastGathered) say(`sweep ${sweepId}: ${batchesLine}`);
        lastGathered = batchesLine;
        // A pause (the user's, a budget's) is said once when it comes, and its end too.
        if ((sweep.pausedFor ?? null) !== lastPausedFor) {
          lastPausedFor = sweep.pausedFor ?? null;
          say(`sweep ${sweepId}: ${paused ?? 'running again'}`);
        }
        for (const line of finishedCellLines(sweep, resultsShown)) say(line);
        let logged = false;
        for (const [id, p] of cells) {
          const hold = p.errorHold ? cellHoldLine(p.errorHold) : '';
          if (hold !== (cellHolds.get(id) ?? '')) {
            cellHolds.set(id, hold);
            say(hold || `${id}: going on again`);
          }
          // Said once a cell has any; its line counts on.
          const warning = liveCutWarning(id, p);
          if (warning && !warned.has(id)) {
            warned.add(id);
            say(warning);
          }
          if (multi) {
            let bar = bars.get(id);
            if (!bar) bars.set(id, (bar = multi.create(2 * p.samplesTotal, barValue(p), { cell: id, extra: cellLine(p) })));
            bar.setTotal(2 * p.samplesTotal);
            bar.update(barValue(p), { cell: id, extra: cellLine(p) });
          } else {
            const tenth = (n: number) => Math.floor((n / Math.max(1, p.samplesTotal)) * 10);
            const decile = `${p.phase}:${tenth(p.samplesDone)}:${tenth(p.answered)}`;
            if (lastLogged.get(id) !== decile) {
              lastLogged.set(id, decile);
              console.error(`${id}: ${cellLine(p)}`);
              logged = true;
            }
          }
        }
        if (logged && spend) console.error(`sweep ${sweepId}: ${spend}`);
      })
      .catch((err: Error) => {
        const reason = err.message.split('\n')[0] ?? String(err);
        if (failing === null)
          say(
            `sweep ${sweepId}: cannot query its progress (${reason}); retrying every second. The sweep carries on wherever workers serve it.`,
          );
        failing = reason;
      });
  return {
    async stop() {
      clearInterval(timer);
      await polling;
      multi?.stop();
    },
  };
}
