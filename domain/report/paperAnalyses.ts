/**
 * The ExploraCoder paper's analyses (arXiv 2412.05366, `../shared/reference/exploracoder.md`),
 * computed from one cell's stored exploration traces and its per-task pass counts:
 *
 *  - **cost table** (the paper's Table 6): per stage, the mean over traced tasks of requests,
 *    answers, prompt and completion tokens, in the units `StageCostSchema` counts (a request of
 *    n = m choices is one request, m answers), plus the totals over stages and the mean number of
 *    planned subtasks (the paper's "n" in "3 + 2n calls"). A task whose trace has no `stages`
 *    counts as zero in every stage (it cost nothing the trace recorded), so means are per traced task.
 *  - **debug shares** (the paper's "debug rate", 0.32 per subtask for ExploraCoder*):
 *    p1 = explored subtasks whose first-generation candidates (round 0) all failed, i.e.
 *    `explored_ok === false`, over explored subtasks (those with `explored_ok` recorded; skipped
 *    subtasks are left out); p2 = of those p1 subtasks, the share still failing after debug
 *    (`ok_after_debug !== true`). p2 is null when no subtask needed debugging; for methods without
 *    debug p2 is 1 by construction (nothing fixed them). Also the mean debug requests and rounds
 *    per subtask that needed debugging.
 *  - **CoAE success vs final pass**: tasks split into "every explored subtask succeeded" (after
 *    debug where the method debugs: `ok_after_debug ?? explored_ok`) and "some subtask failed";
 *    per group the number and share of tasks and the mean pass rate c/n of their final samples.
 *    Tasks with no explored subtask fall in neither group and are counted apart.
 *
 * Pure: the caller reads traces and results (scripts/paper-analyses.ts).
 */
import { findMethod } from '../methods/registry.js';
import { STAGES, type ExplorationSubtask, type ExplorationTrace, type Stage, type StageCost } from './trace.js';

/**
 * Whether a cell's method is one the paper's analyses are about: the ExploraCoder and CAPIR
 * families (plan, per-subtask retrieval, and for ExploraCoder exploration), whose traces record the
 * stages Table 6 counts. The report shows the analyses for those cells only.
 */
export function hasPaperAnalyses(method: string): boolean {
  const kind = findMethod(method)?.kind;
  return kind === 'exploracoder' || kind === 'capir';
}

/** One task of a cell: its trace (null when the method wrote none) and its final pass counts. */
export interface TaskEvidence {
  task_index: number;
  trace: ExplorationTrace | null;
  /** Final samples of the task and how many passed (the cell's results.json `per_task[i]`). */
  n: number;
  c: number;
}

export interface CostRow extends StageCost {
  stage: Stage | 'total';
}

export interface CostTable {
  /** Tasks with a trace: the denominator of every mean. */
  tasks: number;
  mean_subtasks: number;
  /** Stages some trace recorded, in pipeline order, then `total`. */
  rows: CostRow[];
}

export interface DebugShares {
  explored_subtasks: number;
  needed_debug: number;
  still_failing: number;
  p1: number | null;
  p2: number | null;
  /** Means over the subtasks that needed debugging. */
  mean_debug_requests: number | null;
  mean_debug_rounds: number | null;
}

export interface PassGroup {
  tasks: number;
  /** Of the tasks with an explored subtask. */
  share: number | null;
  /** Mean over the group's tasks of c/n. */
  pass_rate: number | null;
}

export interface CoaeVsPass {
  all_subtasks_ok: PassGroup;
  some_subtask_failed: PassGroup;
  /** Tasks with no trace or no explored subtask (not in either group). */
  unexplored_tasks: number;
}

export interface PaperAnalyses {
  cost: CostTable;
  debug: DebugShares;
  coae: CoaeVsPass;
}

const ratio = (a: number, b: number): number | null => (b === 0 ? null : a / b);
const zeroCost = (): StageCost => ({ requests: 0, answers: 0, prompt_tokens: 0, completion_tokens: 0 });

export function costTable(traces: readonly ExplorationTrace[]): CostTable {
  const sums = new Map<Stage, StageCost>();
  let subtasks = 0;
  for (const trace of traces) {
    subtasks += trace.subtasks.length;
    for (const stage of STAGES) {
      const cost = trace.stages?.[stage];
      if (!cost) continue;
      const sum = sums.get(stage) ?? zeroCost();
      sum.requests += cost.requests;
      sum.answers += cost.answers;
      sum.prompt_tokens += cost.prompt_tokens;
      sum.completion_tokens += cost.completion_tokens;
      sums.set(stage, sum);
    }
  }
  const n = traces.length;
  const mean = (c: StageCost): StageCost =>
    n === 0
      ? zeroCost()
      : {
          requests: c.requests / n,
          answers: c.answers / n,
          prompt_tokens: c.prompt_tokens / n,
          completion_tokens: c.completion_tokens / n,
        };
  const total = zeroCost();
  const rows: CostRow[] = [];
  for (const stage of STAGES) {
    const sum = sums.get(stage);
    if (!sum) continue;
    rows.push({ stage, ...mean(sum) });
    total.requests += sum.requests;
    total.answers += sum.answers;
    total.prompt_tokens += sum.prompt_tokens;
    total.completion_tokens += sum.completion_tokens;
  }
  rows.push({ stage: 'total', ...mean(total) });
  return { tasks: n, mean_subtasks: n === 0 ? 0 : subtasks / n, rows };
}

const explored = (s: ExplorationSubtask): boolean => s.outcome !== 'skipped' && s.explored_ok !== undefined;
/** The subtask's CoAE success, debugging included where the method debugs. */
const succeeded = (s: ExplorationSubtask): boolean => s.ok_after_debug ?? s.explored_ok === true;

export function debugShares(traces: readonly ExplorationTrace[]): DebugShares {
  let exploredCount = 0;
  let needed = 0;
  let still = 0;
  let requests = 0;
  let rounds = 0;
  for (const s of traces.flatMap((t) => t.subtasks).filter(explored)) {
    exploredCount += 1;
    if (s.explored_ok) continue;
    needed += 1;
    if (s.ok_after_debug !== true) still += 1;
    requests += s.debug_requests ?? 0;
    rounds += s.debug_rounds ?? 0;
  }
  return {
    explored_subtasks: exploredCount,
    needed_debug: needed,
    still_failing: still,
    p1: ratio(needed, exploredCount),
    p2: ratio(still, needed),
    mean_debug_requests: ratio(requests, needed),
    mean_debug_rounds: ratio(rounds, needed),
  };
}

export function coaeVsPass(tasks: readonly TaskEvidence[]): CoaeVsPass {
  const ok: TaskEvidence[] = [];
  const failed: TaskEvidence[] = [];
  let unexplored = 0;
  for (const t of tasks) {
    const subtasks = t.trace?.subtasks.filter(explored) ?? [];
    if (subtasks.length === 0) unexplored += 1;
    else (subtasks.every(succeeded) ? ok : failed).push(t);
  }
  const grouped = ok.length + failed.length;
  const group = (g: TaskEvidence[]): PassGroup => {
    const scored = g.filter((t) => t.n > 0);
    return {
      tasks: g.length,
      share: ratio(g.length, grouped),
      pass_rate: scored.length === 0 ? null : scored.reduce((a, t) => a + t.c / t.n, 0) / scored.length,
    };
  };
  return { all_subtasks_ok: group(ok), some_subtask_failed: group(failed), unexplored_tasks: unexplored };
}

export function paperAnalyses(tasks: readonly TaskEvidence[]): PaperAnalyses {
  const traces = tasks.flatMap((t) => (t.trace ? [t.trace] : []));
  return { cost: costTable(traces), debug: debugShares(traces), coae: coaeVsPass(tasks) };
}

const fmt = (x: number | null, digits = 2): string => (x === null ? '-' : x.toFixed(digits));
const pct = (x: number | null): string => (x === null ? '-' : `${(100 * x).toFixed(1)}%`);

/** The three tables as text, for one cell. */
export function formatPaperAnalyses(cell: string, a: PaperAnalyses): string {
  const lines = [
    `cell ${cell}`,
    `  cost per task (Table 6 units; ${a.cost.tasks} traced tasks, ${fmt(a.cost.mean_subtasks, 1)} subtasks on average)`,
  ];
  lines.push(
    `    ${'stage'.padEnd(14)}${'requests'.padStart(10)}${'answers'.padStart(10)}${'prompt tok'.padStart(12)}${'compl tok'.padStart(12)}`,
  );
  for (const r of a.cost.rows) {
    lines.push(
      `    ${r.stage.padEnd(14)}${fmt(r.requests).padStart(10)}${fmt(r.answers).padStart(10)}${fmt(r.prompt_tokens, 0).padStart(12)}${fmt(r.completion_tokens, 0).padStart(12)}`,
    );
  }
  const d = a.debug;
  if (d.explored_subtasks === 0) {
    lines.push('  debugging, CoAE vs pass: no explored subtask (the method does not explore)');
    return lines.join('\n');
  }
  lines.push(
    `  debugging: ${d.needed_debug}/${d.explored_subtasks} explored subtasks had every first candidate fail (p1 ${pct(d.p1)}); ` +
      `${d.still_failing}/${d.needed_debug} still failed after debug (p2 ${pct(d.p2)}); ` +
      `per such subtask ${fmt(d.mean_debug_requests)} debug requests, ${fmt(d.mean_debug_rounds)} rounds`,
  );
  const g = (name: string, x: PassGroup) =>
    `    ${name.padEnd(22)}${String(x.tasks).padStart(6)} tasks (${pct(x.share)}), pass rate ${pct(x.pass_rate)}`;
  lines.push(
    '  CoAE subtask success vs final pass:',
    g('all subtasks ok', a.coae.all_subtasks_ok),
    g('some subtask failed', a.coae.some_subtask_failed),
  );
  if (a.coae.unexplored_tasks > 0) lines.push(`    (${a.coae.unexplored_tasks} tasks with no explored subtask)`);
  return lines.join('\n');
}
