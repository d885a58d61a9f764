/**
 * CAPIR + Self-Repair and ExploraCoder cells in batch mode, on Temporal's test environment with
 * their steps stubbed as the parking LLM activities behave (test/workflows/parkingStubs.ts): each
 * round of the chains' requests goes in one batch, as many rounds as docs/sweeps/cost.md says for
 * the script the stubs play, every request batched once, none sent live, and the shards run each
 * sample's final answer.
 */
import { describe, expect, it } from 'vitest';
import { cellWorkflowId } from '../../domain/sweep/keys.js';
import type { CellInput } from '../../workflows/sweepTypes.js';
import { sweepCellWorkflow } from '../../workflows/sweepCell.js';
import { sharedWorkflowEnv } from '../support/workflow-env.js';
import { roundsCell, STEP_COST, stubParking, summariesOf, type Parking } from './parkingStubs.js';
import { stubStorage } from './stubs.js';

// One dev server and one set of workers for the file, each case its own stubs (sharedStubWorkers).
const shared = sharedWorkflowEnv();

type TaskRef = { ref: { taskIndex: number } };

/** Every plan has these two subtasks: self-repair's budget is 2, ExploraCoder explores 2 subtasks. */
const SUBTASKS = ['a', 'b'];

/** The plan and the per-subtask reranks (then, asked with `global`, the global rerank) as the real steps park them. */
function planSteps(answer: ReturnType<typeof stubParking>['answer']) {
  return {
    async planTask(input: TaskRef & Parking) {
      answer([`plan/${input.ref.taskIndex}`], input);
      return { planKey: `plan/${input.ref.taskIndex}`, subtasks: SUBTASKS, cost: STEP_COST };
    },
    // The real step parks its subtasks' reranks together, then (asked again) the global rerank, unless global is false.
    async recommendApis(input: TaskRef & { planKey: string; global?: boolean } & Parking) {
      const t = input.ref.taskIndex;
      answer(
        SUBTASKS.map((_, i) => `rerank/${t}/${i}`),
        input,
      );
      if (input.global !== false) answer([`global/${t}`], input);
      return { recommendKey: `rec/${t}`, cost: STEP_COST };
    },
  };
}

/** A cell of `method` in batch mode on the file's shared queues, its tasks in shards generating at once. */
const cellOf = (method: string, shape: Partial<CellInput> & { options?: object }): CellInput =>
  roundsCell(method, shared.workers.queues, shape);

/** Runs the cell to its end on the stubs; the keys of the answers its shards ran. */
async function runCell(input: CellInput, llm: object, sandbox: object): Promise<string[]> {
  const storage = stubStorage();
  await shared.workers.run(input.sweepId, { activities: { ...storage.activities, ...sandbox }, llm: { m: llm } }, () =>
    shared.env.client.workflow.execute(sweepCellWorkflow, {
      workflowId: cellWorkflowId(input.sweepId, input.cell.id),
      taskQueue: input.queues.workflows,
      args: [input],
    }),
  );
  return storage.executed.flatMap((e) => (e.generations.kind === 'llm' ? e.generations.keys.flat() : [])).sort();
}

/**
 * CAPIR + Self-Repair: plan, reranks (no global rerank), first answers, then per repair the
 * feedback and the fix from it. Task t's sample s passes its run on the examples after (t + s) % 3
 * repairs (at most 2, the budget).
 */
function stubCapir() {
  const parking = stubParking();
  const { answer } = parking;
  const repairsNeeded = (t: number, s: number) => (t + s) % 3;
  const llm = {
    ...planSteps(answer),
    async generateCapir(input: TaskRef & { sampleIndices: number[] } & Parking) {
      const ids = input.sampleIndices.map((s) => `first/${input.ref.taskIndex}/${s}`);
      answer(ids, input);
      return summariesOf(ids);
    },
    async repairFeedback(input: TaskRef & { sampleIndex: number; round: number } & Parking) {
      const id = `feedback/${input.ref.taskIndex}/${input.sampleIndex}/${input.round}`;
      answer([id], input);
      return { llmKey: id, ok: true, cost: STEP_COST };
    },
    async repairFromFeedback(input: TaskRef & { sampleIndex: number; feedbackKey: string } & Parking) {
      const id = input.feedbackKey.replace('feedback/', 'fix/');
      answer([id], input);
      return { llmKey: id, ok: true, cost: STEP_COST };
    },
    ...parking.batch,
  };
  const sandbox = {
    async runVisible(input: { taskIndex: number; label: string }) {
      const round = Number(input.label.split('/r').pop());
      const s = Number(input.label.split('/').slice(-2)[0]);
      return { runKey: `run/${input.label}`, ok: round >= repairsNeeded(input.taskIndex, s), hasOutput: false, status: 'ok' };
    },
    async writeCapirTrace(input: { ref: { cellId: string; taskIndex: number } }) {
      return `trace/${input.ref.cellId}/${input.ref.taskIndex}`;
    },
  };
  return { llm, sandbox, ...parking };
}

/**
 * ExploraCoder: plan, reranks, global rerank, per subtask m candidates run as snippets (debugged
 * when all fail, ExploraCoder*), the final answers. `fails(label)`: the snippet run of that label
 * (`<cell>/<task>/s<subtask>/r<debug round>/c<candidate>`) fails.
 */
function stubExploracoder(fails: (label: string) => boolean = () => false) {
  const parking = stubParking();
  const { answer } = parking;
  const explored: Array<{ task: number; subtask: number; experiences: number }> = [];
  const llm = {
    ...planSteps(answer),
    async exploreCandidates(input: TaskRef & { subtask: number; experiences: unknown[]; candidates: number } & Parking) {
      const ids = Array.from({ length: input.candidates }, (_, j) => `explore/${input.ref.taskIndex}/${input.subtask}/${j}`);
      answer(ids, input);
      explored.push({ task: input.ref.taskIndex, subtask: input.subtask, experiences: input.experiences.length });
      return ids.map((llmKey) => ({ llmKey, ok: true, cost: STEP_COST }));
    },
    // A fix of the candidate's failed run (its key names the round the fix is for).
    async debugCandidate(input: TaskRef & { runKey: string } & Parking) {
      const id = input.runKey.replace('run/', 'debug/');
      answer([id], input);
      return { llmKey: id, ok: true, cost: STEP_COST };
    },
    async generateFinal(input: TaskRef & { sampleIndices: number[] } & Parking) {
      const ids = input.sampleIndices.map((s) => `final/${input.ref.taskIndex}/${s}`);
      answer(ids, input);
      return summariesOf(ids);
    },
    ...parking.batch,
  };
  const sandbox = {
    async runSnippet(input: { label: string }) {
      const ok = !fails(input.label);
      return { runKey: `run/${input.label}`, ok, hasOutput: ok, status: ok ? 'ok' : 'error' };
    },
    async writeExplorationTrace(input: { ref: { cellId: string; taskIndex: number } }) {
      return `trace/${input.ref.cellId}/${input.ref.taskIndex}`;
    },
  };
  return { llm, sandbox, explored, ...parking };
}

// The cases only wait on the dev server and their stubs (each its own, by its sweep id): all at once.
describe.concurrent('CAPIR and ExploraCoder cells in batch mode', () => {
  it('capir-self-repair: 3 rounds and 2 a repair, each request batched once, none live', async () => {
    const capir = stubCapir();
    // Two shards of 2 and 1 tasks at once, 2 samples each: the rounds gather the chains of both.
    const input = cellOf('capir-self-repair', { tasks: 3, nSamples: 2, tasksPerShard: 2, maxParallelShards: 2 });
    const executed = await runCell(input, capir.llm, capir.sandbox);
    // Repairs needed: (0,0) 0, (0,1) 1, (1,0) 1, (1,1) 2, (2,0) 2, (2,1) 0: 3 + 2 x 2 = 7 rounds,
    // and no global rerank (the stub would park global/<task> if CAPIR asked for one).
    expect(capir.rounds).toEqual([
      ['plan/0', 'plan/1', 'plan/2'],
      ['rerank/0/0', 'rerank/0/1', 'rerank/1/0', 'rerank/1/1', 'rerank/2/0', 'rerank/2/1'],
      ['first/0/0', 'first/0/1', 'first/1/0', 'first/1/1', 'first/2/0', 'first/2/1'],
      ['feedback/0/1/1', 'feedback/1/0/1', 'feedback/1/1/1', 'feedback/2/0/1'],
      ['fix/0/1/1', 'fix/1/0/1', 'fix/1/1/1', 'fix/2/0/1'],
      ['feedback/1/1/2', 'feedback/2/0/2'],
      ['fix/1/1/2', 'fix/2/0/2'],
    ]);
    expect(capir.log.filter((l) => l.startsWith('submit'))).toHaveLength(7);
    expect(capir.log.filter((l) => l.startsWith('pool')).map((l) => l.match(/rounds\/r(\d+)\//)?.[1])).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
    ]);
    expect(capir.sentLive).toEqual([]);
    expect(capir.batched.sort()).toEqual(capir.rounds.flat().sort());
    expect(new Set(capir.batched).size).toBe(27);
    // Each sample's last answer: the first where it passed at once, else its last fix.
    expect(executed).toEqual(['first/0/0', 'first/2/1', 'fix/0/1/1', 'fix/1/0/1', 'fix/1/1/2', 'fix/2/0/2']);
  });

  it('exploracoder, 2 subtasks: 3 rounds, 1 a subtask, 1 final; each request batched once, none live', async () => {
    const explora = stubExploracoder();
    const input = cellOf('exploracoder', { tasks: 2, nSamples: 2, tasksPerShard: 2, options: { candidates: 2 } });
    const executed = await runCell(input, explora.llm, explora.sandbox);
    expect(explora.rounds).toEqual([
      ['plan/0', 'plan/1'],
      ['rerank/0/0', 'rerank/0/1', 'rerank/1/0', 'rerank/1/1'],
      ['global/0', 'global/1'],
      ['explore/0/0/0', 'explore/0/0/1', 'explore/1/0/0', 'explore/1/0/1'],
      ['explore/0/1/0', 'explore/0/1/1', 'explore/1/1/0', 'explore/1/1/1'],
      ['final/0/0', 'final/0/1', 'final/1/0', 'final/1/1'],
    ]);
    expect(explora.log.filter((l) => l.startsWith('submit'))).toHaveLength(6);
    expect(explora.sentLive).toEqual([]);
    expect(explora.batched.sort()).toEqual(explora.rounds.flat().sort());
    expect(new Set(explora.batched).size).toBe(20);
    // Subtask 2 explored with subtask 1's kept snippet as experience.
    expect(explora.explored.filter((e) => e.subtask === 1).map((e) => e.experiences)).toEqual([1, 1]);
    expect(executed).toEqual(['final/0/0', 'final/0/1', 'final/1/0', 'final/1/1']);
  });

  it('exploracoder-debug: a debug round is 1 round (all-at-once) or 1 a fix (sequential), beside the other task going on', async () => {
    // Task 0's first subtask: both candidates fail their first run, and the fix of candidate 0 fails too.
    const fails = (label: string) => /\/0\/s0\/r0\/c\d$/.test(label) || /\/0\/s0\/r1\/c0$/.test(label);
    const fix = (c: number) => `debug/ds.m.exploracoder-debug.t0/0/s0/r0/c${c}`;
    // The two modes' cells at once (their own stubs): the test waits for the longer only.
    const [allAtOnce, sequential] = await Promise.all(
      (['all-at-once', 'sequential'] as const).map(async (debugMode) => {
        const explora = stubExploracoder(fails);
        const input = cellOf('exploracoder-debug', {
          tasks: 2,
          nSamples: 1,
          tasksPerShard: 2,
          options: { candidates: 2, debug_rounds: 1, debug_mode: debugMode },
        });
        return { ...explora, executed: await runCell(input, explora.llm, explora.sandbox) };
      }),
    );
    const firstRounds = [
      ['plan/0', 'plan/1'],
      ['rerank/0/0', 'rerank/0/1', 'rerank/1/0', 'rerank/1/1'],
      ['global/0', 'global/1'],
      ['explore/0/0/0', 'explore/0/0/1', 'explore/1/0/0', 'explore/1/0/1'],
    ];
    // Task 1 needs no debugging: it explores its second subtask and answers while task 0 debugs
    // (3 + 2 + 1 rounds); task 0 takes its debug rounds more: both fixes in one round ...
    expect(allAtOnce!.rounds).toEqual([
      ...firstRounds,
      [fix(0), fix(1), 'explore/1/1/0', 'explore/1/1/1'],
      ['explore/0/1/0', 'explore/0/1/1', 'final/1/0'],
      ['final/0/0'],
    ]);
    // ... or candidate 0's fix, which fails, then candidate 1's, which runs: a round each.
    expect(sequential!.rounds).toEqual([
      ...firstRounds,
      [fix(0), 'explore/1/1/0', 'explore/1/1/1'],
      [fix(1), 'final/1/0'],
      ['explore/0/1/0', 'explore/0/1/1'],
      ['final/0/0'],
    ]);
    for (const cell of [allAtOnce!, sequential!]) {
      expect(cell.sentLive).toEqual([]);
      expect(cell.batched.sort()).toEqual(cell.rounds.flat().sort());
      expect(new Set(cell.batched).size).toBe(cell.batched.length);
      expect(cell.executed).toEqual(['final/0/0', 'final/1/0']);
    }
  });
});
