/**
 * One sample's repair rounds, as CAPIR + Self-Repair and self-repair run them: the sample's answer
 * runs on the task's visible inputs and, while it fails and the budget lasts, `repair` asks for the
 * next answer. Every round keeps its answer and its run; the last round's answer is the sample's.
 */
import type { LlmStepResult } from '../activities/llm/methodKit.js';
import type { MethodTaskRef } from '../domain/methods/taskRef.js';
import { costOfCalls, type RepairRound } from '../domain/methods/artifacts.js';
import type { LlmCallSummary } from '../domain/llm/request.js';
import type { VisibleCheck } from '../domain/methods/visibleTests.js';
import type { sandboxActivities } from './activityOptions.js';

export interface RepairRoundsInput {
  sandbox: ReturnType<typeof sandboxActivities>;
  ref: MethodTaskRef;
  sampleIndex: number;
  /** The sample's first answer. */
  first: LlmCallSummary;
  /** Repairs at most (the paper's: the plan's subtask count). */
  budget: number;
  timeoutS: number;
  check: VisibleCheck;
  /** The next answer after a failed run (`round` counts from 1), or null when there is none: the sample stops there. */
  repair(step: { round: number; previousKey: string; runKey: string }): Promise<LlmStepResult | null>;
  /** Each sandbox run, for the method's cost. */
  onRun(): void;
}

export async function repairRounds(input: RepairRoundsInput): Promise<RepairRound[]> {
  const { ref, sampleIndex: s } = input;
  const rounds: RepairRound[] = [];
  let current = { llmKey: input.first.key, ok: input.first.status === 'ok', cost: costOfCalls([input.first]) };
  for (let round = 0; ; round++) {
    // An answer that never came (an LLM error) is not run: the sample ends with it.
    const run = current.ok
      ? await input.sandbox.runVisible({
          datasetKey: ref.datasetKey,
          libraryKey: ref.libraryKey,
          taskIndex: ref.taskIndex,
          llmKey: current.llmKey,
          timeoutS: input.timeoutS,
          label: `${ref.cellId}/${ref.taskIndex}/${s}/r${round}`,
          check: input.check,
        })
      : null;
    if (run?.runKey) input.onRun();
    rounds.push({ llmKey: current.llmKey, ...(run?.runKey ? { runKey: run.runKey } : {}), ok: run?.ok ?? false, cost: current.cost });
    if (run?.ok || !run?.runKey || round >= input.budget) return rounds;
    const next = await input.repair({ round: round + 1, previousKey: current.llmKey, runKey: run.runKey });
    if (next === null) return rounds;
    current = { llmKey: next.llmKey, ok: next.ok, cost: next.cost };
  }
}
