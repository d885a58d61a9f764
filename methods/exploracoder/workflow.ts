/**
 * ExploraCoder on one task, as a durable chain: plan -> recommend APIs -> for each subtask in
 * order, m candidate snippets (each its own LLM activity), each run in the sandbox (its own
 * activity), self-debug rounds when all fail (ExploraCoder*), selection -> n final solutions ->
 * trace. A worker killed during subtask 4 resumes at subtask 4: the finished steps are in history
 * and replay without calling anything. History holds keys and statuses, never snippets or output.
 */
import { defineQuery, patched, setCurrentDetails, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import { SA_CELL, SA_DONE, SA_KIND, SA_NAME, SA_TOTAL } from '../../domain/config/searchAttributes.js';
import {
  addCost,
  costOfCalls,
  ZERO_COST,
  type CandidateRef,
  type ExperienceRef,
  type MethodCost,
  type MethodTaskOutcome,
  type SubtaskOutcome,
} from '../../domain/methods/artifacts.js';
import { llmTaskQueue } from '../../domain/sweep/keys.js';
import { llmActivities, sandboxActivities, storageActivitiesOf } from '../../workflows/activityOptions.js';
import { defineMethodWorkflow, runTaskChain, type MethodTaskInput } from '../../workflows/methodKit.js';
import { chainRounds } from '../../workflows/roundParking.js';
import { traceTarget } from '../../workflows/traceTarget.js';
import type { ExploracoderActivities } from './activities.js';
import { exploracoderMethod, type ExploraVariant } from './definition.js';
import { allFailed, selectCandidate } from './selection.js';
import type { createExploracoderTraceActivities } from './trace.js';

export interface ExploracoderTaskInput extends MethodTaskInput {
  variant: ExploraVariant;
}

export interface TaskProgress {
  phase: 'planning' | 'recommending' | 'exploring' | 'final' | 'trace' | 'done';
  subtask: number | null;
  subtasks: string[];
  cost: MethodCost;
}
export const taskProgressQuery = defineQuery<TaskProgress>('taskProgress');

/** The shard's step: each task's chain is a child workflow of its own. */
export const exploracoderWorkflow = defineMethodWorkflow(exploracoderMethod, ({ shard, spec, taskIndex }) =>
  runTaskChain(exploracoderTaskWorkflow, shard, taskIndex, { variant: spec.variant }),
);

export async function exploracoderTaskWorkflow(input: ExploracoderTaskInput): Promise<MethodTaskOutcome> {
  const started = Date.now();
  const { ref, variant } = input;
  // Batch mode (input.batchRounds): the LLM steps park their requests for the cell's round collector.
  const batchRounds = chainRounds(input.batchRounds);
  const llm = batchRounds.llm(
    llmActivities<ExploracoderActivities>(llmTaskQueue(input.queues.llmBase, input.modelId), input.queues.llmHeartbeatTimeoutS),
  );
  const sandbox = batchRounds.tracked(sandboxActivities(input.queues.sandbox, input.timeoutS));
  const storage = batchRounds.tracked(storageActivitiesOf<ReturnType<typeof createExploracoderTraceActivities>>(input.queues.storage));
  const m = ref.options.candidates;

  const progress: TaskProgress = { phase: 'planning', subtask: null, subtasks: [], cost: ZERO_COST };
  setHandler(taskProgressQuery, () => progress);
  const show = () => {
    const where =
      progress.subtask === null
        ? progress.phase
        : `subtask ${progress.subtask + 1}/${progress.subtasks.length}: ${progress.subtasks[progress.subtask]}`;
    setCurrentDetails(`**${input.method}** task \`${input.taskId}\` (cell \`${ref.cellId}\`): ${where}`);
    upsertSearchAttributes([
      { key: SA_KIND, value: 'task' },
      { key: SA_NAME, value: ref.sweepId },
      { key: SA_CELL, value: ref.cellId },
      { key: SA_DONE, value: progress.phase === 'done' ? progress.subtasks.length : (progress.subtask ?? 0) },
      { key: SA_TOTAL, value: progress.subtasks.length },
    ]);
  };
  show();

  const plan = await llm.planTask({ ref, withSummary: variant.summaryAndExamples });
  progress.subtasks = plan.subtasks;
  progress.cost = addCost(progress.cost, plan.cost);
  progress.phase = 'recommending';
  show();
  const rec = await llm.recommendApis({ ref, planKey: plan.planKey });
  progress.cost = addCost(progress.cost, rec.cost);

  const outcomes: SubtaskOutcome[] = [];
  const experiences: ExperienceRef[] = [];
  if (variant.explore) {
    progress.phase = 'exploring';
    for (let i = 0; i < plan.subtasks.length; i++) {
      progress.subtask = i;
      show();
      const label = `${ref.cellId}/${ref.taskIndex}/s${i}`;
      // The m candidates in one step, so that an endpoint honouring `n` gets them as one request.
      const generated = patched('coae-one-step')
        ? await llm.exploreCandidates({
            ref,
            planKey: plan.planKey,
            recommendKey: rec.recommendKey,
            subtask: i,
            experiences: [...experiences],
            candidates: m,
          })
        : await Promise.all(
            Array.from({ length: m }, (_, j) =>
              llm.exploreCandidate({
                ref,
                planKey: plan.planKey,
                recommendKey: rec.recommendKey,
                subtask: i,
                experiences: [...experiences],
                candidate: j,
              }),
            ),
          );
      let candidates = await runAll(generated, 0, label);
      const all: CandidateRef[] = [...candidates];
      let rounds = 0;
      // ExploraCoder*: debug only when every candidate failed. The authors' protocol (sequential)
      // fixes the failed candidates one after another and stops at the first fix that runs; the
      // older one (all-at-once, and every run started before debug_mode existed) fixes all at once.
      const sequential = ref.options.debug_mode === 'sequential';
      while (variant.debug && allFailed(candidates) && rounds < ref.options.debug_rounds) {
        const fixable = candidates.filter((c) => c.runKey !== undefined);
        if (fixable.length === 0) break;
        rounds++;
        const debug = (c: CandidateRef) =>
          llm.debugCandidate({
            ref,
            planKey: plan.planKey,
            recommendKey: rec.recommendKey,
            subtask: i,
            runKey: c.runKey!,
            candidate: c.candidate,
          });
        if (sequential) {
          candidates = [];
          for (const c of fixable) {
            const [fixed] = await runAll([await debug(c)], rounds, label, [c.candidate]);
            candidates.push(fixed!);
            if (fixed!.ok) break;
          }
        } else {
          candidates = await runAll(
            await Promise.all(fixable.map(debug)),
            rounds,
            label,
            fixable.map((c) => c.candidate),
          );
        }
        all.push(...candidates);
      }
      // Selection prefers the latest round: its candidates are the debugged versions of the earlier ones.
      const latest = all.slice(all.length - candidates.length);
      const pick = selectCandidate(
        latest.map((c) => ({ ok: c.ok, hasOutput: c.hasOutput, missing: c.runKey === undefined })),
        variant.selection,
        (ref.sampling.seed ?? 0) * 1_000_003 + ref.taskIndex * 101 + i,
      );
      const selected = pick < 0 ? -1 : all.length - candidates.length + pick;
      outcomes.push({ index: i, candidates: all, selected, debugRounds: rounds });
      const kept = selected >= 0 ? all[selected]! : undefined;
      if (kept?.runKey) experiences.push({ subtask: i, llmKey: kept.llmKey, runKey: kept.runKey });
    }
    progress.subtask = null;
  }

  progress.phase = 'final';
  show();
  const sampleIndices = Array.from({ length: input.nSamples }, (_, s) => s);
  const finals = await llm.generateFinal({
    ref,
    planKey: plan.planKey,
    recommendKey: rec.recommendKey,
    experiences: variant.explore ? experiences : null,
    sampleIndices,
  });

  progress.phase = 'trace';
  show();
  const traceKey = await storage.writeExplorationTrace({
    ...traceTarget(ref),
    method: input.method,
    planKey: plan.planKey,
    recommendKey: rec.recommendKey,
    subtasks: outcomes,
    finalKeys: finals.map((f) => f.key),
    cost: progress.cost,
  });
  progress.phase = 'done';
  show();
  batchRounds.end();
  return {
    finalKeys: finals.map((f) => f.key),
    cost: progress.cost,
    finalCost: costOfCalls(finals),
    traceKey,
    wallMs: Date.now() - started,
  };

  async function runAll(
    generated: Array<{ llmKey: string; ok: boolean; cost: MethodCost }>,
    round: number,
    label: string,
    indices?: number[],
  ): Promise<CandidateRef[]> {
    for (const g of generated) progress.cost = addCost(progress.cost, g.cost);
    const runs = await Promise.all(
      generated.map((g, j) =>
        g.ok
          ? sandbox.runSnippet({
              libraryKey: ref.libraryKey,
              llmKey: g.llmKey,
              timeoutS: input.timeoutS,
              label: `${label}/r${round}/c${indices?.[j] ?? j}`,
            })
          : Promise.resolve(null),
      ),
    );
    progress.cost = addCost(progress.cost, { sandbox_runs: runs.filter((r) => r?.runKey).length });
    return generated.map((g, j) => ({
      llmKey: g.llmKey,
      ...(runs[j]?.runKey ? { runKey: runs[j]!.runKey } : {}),
      ok: runs[j]?.ok ?? false,
      hasOutput: runs[j]?.hasOutput ?? false,
      round,
      candidate: indices?.[j] ?? j,
    }));
  }
}
