/**
 * ExploraCoder's trace writer (storage queue): the plan, the recommended APIs, every candidate with
 * its observation, the selection and debug rounds, and the final code, from the step artefacts.
 */
import type { ExplorationTrace } from '../../domain/report/trace.js';
import type { MethodCost, SubtaskOutcome } from '../../domain/methods/artifacts.js';
import { createTraceParts } from '../../activities/storage/traces.js';
import type { PromptTemplate } from '../../domain/methods/promptTemplate.js';
import type { TraceTaskRef } from '../../domain/methods/taskRef.js';
import type { Bucket } from '../../infra/s3.js';

export function createExploracoderTraceActivities(bucket: Bucket) {
  const { run, answer, stages, plannedTask, recommendation, finalsOf, plannerFields, rerankKeys, store } = createTraceParts(bucket);
  return {
    async writeExplorationTrace(input: {
      ref: TraceTaskRef;
      method: string;
      planKey: string;
      recommendKey: string;
      subtasks: SubtaskOutcome[];
      finalKeys: string[];
      cost: MethodCost;
      /** The cell's prompt template (it shaped the final solution's requests); absent: none. */
      promptTemplate?: PromptTemplate;
    }): Promise<string> {
      const { problem, plan } = await plannedTask(input.ref, input.planKey);
      const rec = await recommendation(input.recommendKey);
      const subtasks: ExplorationTrace['subtasks'] = [];
      for (let i = 0; i < plan.subtasks.length; i++) {
        const outcome = input.subtasks.find((s) => s.index === i);
        const attempts = [];
        for (const [j, c] of (outcome?.candidates ?? []).entries()) {
          const r = c.runKey ? await run(c.runKey) : null;
          attempts.push({
            code: r?.code ?? (await answer(c.llmKey)),
            status: (r ? (r.status === 'rejected' ? 'error' : r.status) : 'llm_error') as 'passed',
            ...(r ? { stdout: r.stdout, stderr: r.stderr, duration_ms: r.duration_ms } : {}),
            ...(r?.error ? { error: r.error } : {}),
            selected: outcome!.selected === j,
            round: c.round,
            candidate: c.candidate,
            llm_key: c.llmKey,
            ...(c.runKey ? { run_key: c.runKey } : {}),
          });
        }
        const selected = outcome && outcome.selected >= 0 ? attempts[outcome.selected] : undefined;
        subtasks.push({
          index: i,
          description: plan.subtasks[i]!,
          apis: rec.subtasks[i]?.kept ?? [],
          retrieved: rec.subtasks[i]?.retrieved ?? [],
          rerank_fallback: rec.subtasks[i]?.fallback ?? false,
          attempts,
          outcome: !outcome ? 'skipped' : attempts.some((a) => a.selected && a.status === 'passed') ? 'solved' : 'unsolved',
          ...(selected ? { experience: selected.code } : {}),
          debug_rounds: outcome?.debugRounds ?? 0,
          debug_requests: (outcome?.candidates ?? []).filter((c) => c.round > 0).length,
          explored_ok: attempts.some((a) => (a.round ?? 0) === 0 && a.status === 'passed'),
          ok_after_debug: attempts.some((a) => a.status === 'passed'),
        });
      }
      const finals = await finalsOf(input.finalKeys, problem.entry_point);
      return store(
        input.ref,
        {
          method: input.method,
          task_id: problem.task_id,
          task_index: input.ref.taskIndex,
          ...plannerFields(plan),
          stages: await stages({
            plan: plan.llm_keys,
            rerank: rerankKeys(rec),
            global_rerank: rec.global_llm_key ? [rec.global_llm_key] : [],
            explore: input.subtasks.flatMap((s) => s.candidates.filter((c) => c.round === 0).map((c) => c.llmKey)),
            debug: input.subtasks.flatMap((s) => s.candidates.filter((c) => c.round > 0).map((c) => c.llmKey)),
            final: input.finalKeys,
          }),
          subtasks,
          global_apis: rec.global,
          finals,
          cost: input.cost,
        },
        input.promptTemplate,
      );
    },
  };
}
