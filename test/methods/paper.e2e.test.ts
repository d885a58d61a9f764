/**
 * ExploraCoder as the paper defines it, and its baselines, end to end on the real stack against a
 * scripted model: the planner sees no benchmark knowledge (no other task's solution, pipeline or
 * literal) and gets demos and target in one template, each demo its own turns; a plan copying a demo
 * is asked again and the trace says when it persists; CoAE sends one request of n = m where the
 * model takes several choices per request, counted as one; docs are masked on the unseen library in
 * every method's prompts; CAPIR, EpiGen and CAPIR + Self-Repair send exactly their protocol's
 * requests, and their cost says so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getText } from '../../infra/s3.js';
import { cellTraceKey, sweepResultsKey } from '../../domain/sweep/keys.js';
import { generateTask } from '../../domain/pbe/generate.js';
import { resolvePbeParams } from '../../domain/pbe/params.js';
import { privateLibrary } from '../../domain/pbe/privateLibrary.js';
import { pyRepr } from '../../domain/pbe/pyrepr.js';
import { ExplorationTraceSchema } from '../../domain/report/trace.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { runTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type Reply, type ScriptedLlmServer, type ScriptedRequest } from '../support/scripted-llm-server.js';
import { pbeProblems } from '../sweep/support.js';
import { classify, SEED, writeScriptedSweep, type Classified } from './support.js';

const { config, env } = testConfig();
const bucket = testBucket(config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-paper-'));
const PARAMS = resolvePbeParams({ count: 3, seed: 43, library: 'private' });
const problems = pbeProblems(PARAMS);
const tasks = Array.from({ length: PARAMS.count }, (_, i) => generateTask(PARAMS, i));
const lib = privateLibrary(PARAMS.seed);
const M = 3;
const PLAN = '1. Find out what the first step does to the example inputs.\n2. Apply the second step to what the first produced.\n';
const seen: Array<Classified & { model: string; body: Record<string, unknown>; messages: Array<{ role: string; content: string }> }> = [];
let server: ScriptedLlmServer;

function block(code: string): string {
  return `\`\`\`python\n${code}\n\`\`\`\n`;
}

/** Every quoted literal of a task: its pipeline's arguments, its examples and tests. */
function literalsOf(i: number): string[] {
  const t = tasks[i]!;
  return [
    ...t.canonical_pipeline.flatMap((s) => s.args),
    ...t.examples.flatMap((e) => [e.input, e.output]),
    ...t.tests.flatMap((e) => [e.input, e.output]),
  ]
    .filter((x) => x.length >= 2)
    .map(pyRepr);
}

function script(req: ScriptedRequest): Reply {
  const c = classify(req, problems);
  const messages = req.body.messages as Array<{ role: string; content: string }>;
  seen.push({ ...c, model: String(req.body.model), body: req.body, messages });
  const canonical = c.problem.canonical_solution;
  const n = Number(req.body.n ?? 1);
  const first = Number(req.body.seed) - SEED;
  switch (c.role) {
    case 'plan': {
      // Task 0 always copies the first demo; the others copy it at first (temperature 0) only.
      const demo = messages.find((m) => m.role === 'assistant')!.content;
      return { content: c.problem.index === 0 || req.body.temperature === 0 ? demo : PLAN };
    }
    case 'rerank':
    case 'global':
      return {
        content: [...c.text.matchAll(/^\[\d+\] (\S+?):/gm)]
          .map((m) => m[1]!)
          .slice(0, 2)
          .join('\n'),
      };
    case 'explore': {
      // Candidate j of a request of n choices starting at candidate `first`.
      const code = (j: number) =>
        c.subtask === 0 ? `raise ValueError('MARK-s0-c${j} does not work')` : `print('MARK-s${c.subtask}-c${j}')`;
      return { content: n > 1 ? Array.from({ length: n }, (_, k) => block(code(first + k))) : block(code(first)) };
    }
    case 'debug':
      return {
        content: block(c.candidate === 1 ? `print('MARK-s0-d1 fixed')` : `raise ValueError('MARK-s0-c${c.candidate} still broken')`),
      };
    case 'final':
      return { content: n > 1 ? Array.from({ length: n }, () => block(canonical)) : block(canonical) };
    case 'generate': {
      // CAPIR's (and EpiGen's) answers: sample 0 raises on the example inputs, sample 1 is right,
      // sample 2 runs but returns the wrong value (no runtime error: the paper's repair leaves it).
      const def = canonical.split('\n').find((l) => l.startsWith('def '))!;
      const answer = (s: number) =>
        s === 0 ? `${def}\n    raise ValueError('MARK-raise')\n` : s === 2 ? `${def}\n    return s + '#'\n` : canonical;
      return { content: n > 1 ? Array.from({ length: n }, (_, k) => block(answer(first + k))) : block(answer(first)) };
    }
    case 'feedback':
      return { content: 'The function raises a ValueError on purpose instead of transforming s; it must apply the steps.' };
    case 'repair':
      return { content: block(canonical) };
  }
}

beforeAll(async () => {
  server = await startScriptedLlmServer(script);
});
afterAll(async () => {
  await server.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

async function results(id: string) {
  return JSON.parse((await getText(bucket, sweepResultsKey(id)))!) as {
    cells: Array<{ cell: { cell: string; method: string }; cost: { calls: number; sandboxRuns: number }; passAtK: Record<string, number> }>;
  };
}

async function trace(id: string, cell: string, task: number) {
  return ExplorationTraceSchema.parse(JSON.parse((await getText(bucket, cellTraceKey(id, cell, task)))!));
}

// The two sweeps only wait (on Temporal, the sandbox, the scripted server): they run at once, each
// with task queues of its own and a model name of its own (their requests told apart by it).
describe.concurrent('ExploraCoder as the paper defines it', () => {
  it('plans without benchmark knowledge, in one template; re-asks copies; CoAE is one request of n = m; docs are masked', async () => {
    const id = `paper-${uniqueSuffix()}`;
    const model = `scripted-${id}`;
    const cell = 'pbe.chat.exploracoder-debug.t0.8';
    const file = path.join(dir, 'explora.yaml');
    writeScriptedSweep(file, {
      id,
      datasets: [{ name: 'pbe', pbe: { count: PARAMS.count, seed: PARAMS.seed, library: 'private' } }],
      baseUrl: server.url,
      model,
      // The endpoint takes several choices per request: CoAE's m candidates go as one request of n = m.
      modelOptions: { samples_per_request: M },
      methods: ['exploracoder-debug'],
      methodOptions: { candidates: M, retrieve_k: 2, rerank_keep: 2 },
      nSamples: 1,
      k: [1],
    });
    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], testConfig().env);
    expect(run.code, run.output).toBe(0);
    const mine = seen.filter((c) => c.model === model);

    for (const p of problems) {
      const plans = mine.filter((c) => c.role === 'plan' && c.problem.index === p.index);
      // Task 0 copies a demo at every attempt (3); the others only at the first (2).
      expect(plans).toHaveLength(p.index === 0 ? 3 : 2);
      for (const plan of plans) {
        const turns = plan.messages;
        expect(turns[0]!.role).toBe('system');
        // Demos and target in one template; each demo its own user/assistant turns.
        const users = turns.filter((m) => m.role === 'user');
        const assistants = turns.filter((m) => m.role === 'assistant');
        expect(assistants.length).toBe(4);
        expect(users.length).toBe(assistants.length + 1);
        turns.slice(1).forEach((m, i) => expect(m.role).toBe(i % 2 === 0 ? 'user' : 'assistant'));
        for (const u of users) expect(u.content).toMatch(/^\[Task\]\n[^\n]+\n\[Subtasks\]$/);
        for (const a of assistants) expect(a.content).toMatch(/^1\. .+ using \S+(\n\d+\. .+ using \S+)*$/);
        expect(users[users.length - 1]!.content).toBe(`[Task]\n${p.requirement}\n[Subtasks]`);
        // No benchmark knowledge: the system prompt and the demos hold no quoted literal at all,
        // and nothing of any other task's solution, pipeline or examples is anywhere in the request.
        const demoText = turns
          .slice(0, -1)
          .map((m) => m.content)
          .join('\n');
        expect(demoText).not.toMatch(/['"]/);
        for (const other of problems.filter((o) => o.index !== p.index)) {
          for (const line of other.canonical_solution.split('\n').filter((l) => l.includes(`${lib.module}.`)))
            expect(plan.text).not.toContain(line.trim());
          for (const literal of literalsOf(other.index))
            if (!literalsOf(p.index).includes(literal)) expect(plan.text, literal).not.toContain(literal);
        }
        expect(plan.text).not.toContain(
          p.canonical_solution
            .split('\n')
            .find((l) => l.includes(`${lib.module}.`))!
            .trim(),
        );
      }
      const t = await trace(id, cell, p.index);
      expect(t.requirement).toBe(p.requirement);
      expect(t.planner_examples).toHaveLength(4);
      if (p.index === 0) {
        expect(t.plan_copied_demo).toBe(t.planner_examples![0]);
      } else {
        expect(t.plan_copied_demo).toBeNull();
        expect(t.plan).toBe(PLAN.trim());
      }
      expect(t.stages!.plan!.requests).toBe(plans.length);

      // CoAE: one request of n = m per subtask, counted as one request and m answers.
      const explores = mine.filter((c) => c.role === 'explore' && c.problem.index === p.index);
      expect(explores).toHaveLength(t.subtasks.length);
      for (const e of explores) expect(e.body.n).toBe(M);
      expect(t.stages!.explore).toMatchObject({ requests: t.subtasks.length, answers: t.subtasks.length * M });
      for (const s of t.subtasks) expect(s.attempts.filter((a) => a.round === 0).map((a) => a.candidate)).toEqual([0, 1, 2]);

      // The global rerank is offered every per-subtask candidate.
      const offered = (c: Classified) => [...c.text.matchAll(/^\[\d+\] (\S+?):/gm)].map((m) => m[1]!);
      const perSubtask = new Set(mine.filter((c) => c.role === 'rerank' && c.problem.index === p.index).flatMap(offered));
      const global = mine.filter((c) => c.role === 'global' && c.problem.index === p.index);
      expect(global).toHaveLength(1);
      expect(new Set(offered(global[0]!))).toEqual(perSubtask);

      // Debug: the failed candidates one after another at T = 0, stopping at the first fix that runs.
      const debug = mine.filter((c) => c.role === 'debug' && c.problem.index === p.index);
      expect(debug.map((d) => d.candidate)).toEqual([0, 1]);
      for (const d of debug) expect(d.body.temperature).toBe(0);
      expect(t.subtasks[0]).toMatchObject({ explored_ok: false, ok_after_debug: true, debug_requests: 2, debug_rounds: 1 });
      expect(t.subtasks[1]).toMatchObject({ explored_ok: true, debug_requests: 0 });
      // Later subtasks' experience is labelled by its plan index.
      const later = explores.find((e) => e.subtask === 1)!;
      expect(later.text).toContain(`### Subtask 1: ${t.subtasks[0]!.description}`);
    }

    // scripts/trace.ts --summary says when a plan is a copy of a demo.
    const summary = await runTs('scripts/trace.ts', [id, '--cell', cell, '--task', '0', '--summary'], env);
    expect(summary.code, summary.output).toBe(0);
    expect(summary.output).toMatch(/plan: a copy of planner demo private-\S+ \(asked 3 times\)/);

    // Masking on the unseen library: no usage example, no parameter detail, in any request.
    for (const c of mine) {
      expect(c.text).not.toMatch(/Example:/);
      expect(c.text).not.toMatch(/LAST argument|passed by keyword: `edge_chars/);
    }
    expect(mine.some((c) => c.role === 'explore' && c.text.includes(`${lib.module}.`))).toBe(true);

    // The cost counts a request of n = m once: exactly the requests the model received.
    const cells = (await results(id)).cells;
    expect(cells[0]!.cost.calls).toBe(mine.length);
    expect(cells[0]!.passAtK['pass@1']).toBe(1);
  });

  it('CAPIR, EpiGen and CAPIR + Self-Repair send exactly their protocols, and their costs say so', async () => {
    const id = `baselines-${uniqueSuffix()}`;
    const model = `scripted-${id}`;
    const N = 3;
    const file = path.join(dir, 'baselines.yaml');
    writeScriptedSweep(file, {
      id,
      datasets: [{ name: 'pbe', pbe: { count: PARAMS.count, seed: PARAMS.seed, library: 'private' } }],
      baseUrl: server.url,
      model,
      methods: ['capir', 'epigen', 'capir-self-repair'],
      methodOptions: { retrieve_k: 2, rerank_keep: 2 },
      nSamples: N,
      k: [1],
    });
    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], testConfig().env);
    expect(run.code, run.output).toBe(0);
    const mine = seen.filter((c) => c.model === model);
    // The three share the plan and reranks (sent once, found in the cache by the others).
    let subtasks = 0;
    for (const p of problems) {
      const of = (role: string) => mine.filter((c) => c.role === role && c.problem.index === p.index);
      const s = p.index === 0 ? (await trace(id, 'pbe.chat.capir.t0.8', 0)).subtasks.length : 2;
      subtasks += s;
      expect(of('rerank')).toHaveLength(s);
      expect(of('global')).toHaveLength(0);
      expect(of('explore')).toHaveLength(0);
      const generations = of('generate');
      const withPlan = generations.filter((g) => g.text.includes('A plan for the task, one API subtask per step'));
      // CAPIR's n answers (shared by CAPIR + Self-Repair: the same request) and EpiGen's n.
      expect(generations).toHaveLength(2 * N);
      expect(withPlan).toHaveLength(N);
      // The generation gets the docs its reranks kept, masked.
      for (const g of generations) expect(g.text).not.toMatch(/Example:/);
      // Self-repair: only sample 0 raised; sample 2's wrong value raises nothing on the example inputs.
      const feedback = of('feedback');
      expect(feedback).toHaveLength(1);
      expect(feedback[0]!.text).toContain('MARK-raise');
      expect(feedback[0]!.messages[feedback[0]!.messages.length - 1]!.content).toContain('Do not write the code yet');
      const repairs = of('repair');
      expect(repairs).toHaveLength(1);
      // Stage 2 carries the stage-1 feedback as the model's own turn.
      expect(repairs[0]!.messages[repairs[0]!.messages.length - 2]).toMatchObject({
        role: 'assistant',
        content: expect.stringContaining('raises a ValueError on purpose'),
      });
      expect(mine.findIndex((c) => c === feedback[0])).toBeLessThan(mine.findIndex((c) => c === repairs[0]));
    }
    const plans = mine.filter((c) => c.role === 'plan').length;
    const cells = (await results(id)).cells;
    const cost = (method: string) => cells.find((c) => c.cell.method === method)!.cost;
    const t = problems.length;
    // Each cell's cost is what it would send alone: plan(s), a rerank per subtask, n answers
    // (+ one feedback and one repair per task for CAPIR + Self-Repair).
    expect(cost('capir').calls).toBe(plans + subtasks + t * N);
    expect(cost('epigen').calls).toBe(plans + subtasks + t * N);
    expect(cost('capir-self-repair').calls).toBe(plans + subtasks + t * N + t * 2);
    // Sandbox: the final programs, and for self-repair the runs on the example inputs (4 per task).
    expect(cost('capir').sandboxRuns).toBe(t * N);
    expect(cost('capir-self-repair').sandboxRuns).toBe(t * N + t * (N + 1));
    // Requests the model received: the shared plan and reranks once, then each cell's own.
    expect(mine.length).toBe(plans + subtasks + t * N * 2 + t * 2);
    // Samples: capir passes sample 1 only; self-repair fixes sample 0 too.
    const repairTrace = await trace(id, 'pbe.chat.capir-self-repair.t0.8', 1);
    expect(repairTrace.repairs!.map((r) => r.rounds.map((x) => x.ok))).toEqual([[false, true], [true], [true]]);
    expect(repairTrace.stages).toMatchObject({ feedback: { requests: 1 }, repair: { requests: 1 }, final: { requests: N } });
  });
});
