/**
 * ExploraCoder* (exploracoder-debug) end to end on the real stack, against a scripted model that
 * plays every role: the protocol (plan, reranks, m exploration requests per subtask carrying the
 * experience selected so far, debug only when all m fail, a final request with the trace and the
 * recommended docs), the selection, the cost, the trace, and that no request is sent twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getText } from '../../infra/s3.js';
import { cellTaskPrefix, cellTaskWorkflowId, sweepResultsKey } from '../../domain/sweep/keys.js';
import { RecommendArtifactSchema } from '../../domain/methods/artifacts.js';
import { resolvePbeParams } from '../../domain/pbe/params.js';
import { ExplorationTraceSchema } from '../../domain/report/trace.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { runTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { connectClient } from '../support/temporal.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { pbeProblems } from '../sweep/support.js';
import { exploraScript, writeScriptedSweep, type Classified } from './support.js';
import { SA_CELL, SA_DONE, SA_KIND, SA_TOTAL } from '../../domain/config/searchAttributes.js';

const { config, env } = testConfig();
const bucket = testBucket(config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-methods-'));
const PARAMS = resolvePbeParams({ count: 2, seed: 41 });
const problems = pbeProblems(PARAMS);
const N = 2;
const M = 5;
const seen: Classified[] = [];
let server: ScriptedLlmServer;
/** The global-rerank case's own server: what each case's model received is counted apart. */
const globalSeen: Classified[] = [];
let globalServer: ScriptedLlmServer;

beforeAll(async () => {
  [server, globalServer] = await Promise.all([
    startScriptedLlmServer(exploraScript(problems, seen)),
    startScriptedLlmServer(exploraScript(problems, globalSeen)),
  ]);
});
afterAll(async () => {
  await Promise.all([server.close(), globalServer.close()]);
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

// The two sweeps only wait (on Temporal, the sandbox, the scripted servers): they run at once, each
// with task queues and a scripted server of its own.
describe.concurrent('exploracoder-debug against a scripted model', () => {
  const id = `explora-${uniqueSuffix()}`;
  const cell = `pbe.chat.exploracoder-debug.t0.8`;

  it('follows the protocol, selects passing candidates, accounts every call, and stores the trace', async () => {
    const file = path.join(dir, 'sweep.yaml');
    writeScriptedSweep(file, {
      id,
      datasets: [{ name: 'pbe', pbe: { count: PARAMS.count, seed: PARAMS.seed } }],
      baseUrl: server.url,
      methods: ['exploracoder-debug'],
      methodOptions: { candidates: M },
      nSamples: N,
      k: [1, 2],
    });
    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], testConfig().env);
    expect(run.code, run.output).toBe(0);

    // No request was sent twice.
    expect(server.requests().filter((r) => r.attempt > 1)).toEqual([]);

    for (const p of problems) {
      const mine = seen.filter((c) => c.problem.task_id === p.task_id);
      const roles = mine.map((c) => c.role);
      // 1 plan, 2 reranks (2 subtasks), the global rerank, m explorations per subtask, the authors'
      // debug for subtask 1 (all failed): candidate 0's fix fails, candidate 1's works, so candidate
      // 2.. are never debugged; n finals.
      expect(roles.filter((r) => r === 'plan')).toHaveLength(1);
      expect(roles.filter((r) => r === 'rerank')).toHaveLength(2);
      expect(roles.filter((r) => r === 'global')).toHaveLength(1);
      expect(mine.filter((c) => c.role === 'explore' && c.subtask === 0)).toHaveLength(M);
      expect(mine.filter((c) => c.role === 'explore' && c.subtask === 1)).toHaveLength(M);
      expect(mine.filter((c) => c.role === 'debug').map((c) => c.candidate)).toEqual([0, 1]);
      expect(roles.filter((r) => r === 'final')).toHaveLength(N);

      // Order: plan, then reranks, then subtask 1's explorations, its debug round, subtask 2, finals.
      const first = (pred: (c: Classified) => boolean) => mine.findIndex(pred);
      const last = (pred: (c: Classified) => boolean) => mine.length - 1 - [...mine].reverse().findIndex(pred);
      expect(first((c) => c.role === 'plan')).toBe(0);
      expect(last((c) => c.role === 'rerank')).toBeLessThan(first((c) => c.role === 'explore'));
      expect(last((c) => c.role === 'explore' && c.subtask === 0)).toBeLessThan(first((c) => c.role === 'debug'));
      expect(last((c) => c.role === 'debug')).toBeLessThan(first((c) => c.role === 'explore' && c.subtask === 1));
      expect(last((c) => c.role === 'explore')).toBeLessThan(first((c) => c.role === 'final'));

      // Subtask 2's prompts carry the experience kept for subtask 1: the debugged candidate 1.
      for (const c of mine.filter((x) => x.role === 'explore' && x.subtask === 1)) {
        expect(c.text).toContain('MARK-s0-d1 fixed');
        expect(c.text).not.toMatch(/MARK-s0-c\d/);
      }
      // Subtask 1's first prompts carry no experience yet.
      for (const c of mine.filter((x) => x.role === 'explore' && x.subtask === 0)) expect(c.text).not.toContain('MARK-');

      // The final request holds the trace (both selected snippets with their output) and the docs.
      // The global rerank's answer names the first two APIs it was offered: the final step documents them.
      const offered = mine
        .filter((c) => c.role === 'global')
        .flatMap((c) => [...c.text.matchAll(/^\[\d+\] (\S+?):/gm)].map((m) => m[1]!).slice(0, 2));
      expect(offered).toHaveLength(2);
      for (const f of mine.filter((c) => c.role === 'final')) {
        expect(f.text).toContain("print('MARK-s0-d1 fixed')");
        // Candidate 2 is the first that ran and printed something; 0 raised, 1 printed nothing.
        expect(f.text).toContain("print('MARK-s1-c2', 'abc'.upper())");
        expect(f.text).toContain('MARK-s1-c2 ABC');
        expect(f.text).not.toContain('MARK-s1-c1');
        expect(f.text).not.toContain('MARK-s1-c3');
        expect(f.text).toContain('API documentation');
        for (const api of new Set(offered)) expect(f.text).toContain(api);
      }
    }

    // Results: finals are canonical, so pass@1 = 1; cost counts every request and sandbox run.
    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!);
    const summary = results.cells.find((c: { cell: { cell: string } }) => c.cell.cell === cell);
    expect(summary.passAtK['pass@1']).toBe(1);
    expect(summary.cost.calls).toBe(server.requests().length);
    // Per task: m + 2 (debug) + m snippet runs, and n final programs.
    expect(summary.cost.sandboxRuns).toBe(problems.length * (2 * M + 2 + N));
    expect(summary.cost.promptTokens).toBeGreaterThan(0);
    expect(run.output).toMatch(/calls\/task/);

    // The trace, through the script: the full one and a summary, both started at once.
    const [traced, summaryOut] = await Promise.all([
      runTs('scripts/trace.ts', [id, '--cell', cell, '--task', problems[0]!.task_id], env),
      runTs('scripts/trace.ts', [id, '--cell', cell, '--task', '1', '--summary'], env),
    ]);
    expect(traced.code, traced.output).toBe(0);
    const trace = ExplorationTraceSchema.parse(JSON.parse(traced.output.slice(traced.output.indexOf('{'))));
    expect(trace.subtasks).toHaveLength(2);
    const [s1, s2] = trace.subtasks;
    expect(s1!.debug_rounds).toBe(1);
    expect(s1!.attempts).toHaveLength(M + 2);
    expect(s1!.explored_ok).toBe(false);
    expect(s1!.ok_after_debug).toBe(true);
    expect(s1!.debug_requests).toBe(2);
    expect(s2!.explored_ok).toBe(true);
    // Stage costs, counted as the paper counts them.
    expect(trace.stages).toMatchObject({
      plan: { requests: 1 },
      rerank: { requests: 2 },
      global_rerank: { requests: 1 },
      explore: { requests: 2 * M, answers: 2 * M },
      debug: { requests: 2 },
      final: { requests: N },
    });
    const kept1 = s1!.attempts.filter((a) => a.selected);
    expect(kept1).toHaveLength(1);
    expect(kept1[0]).toMatchObject({ round: 1, candidate: 1, status: 'passed' });
    expect(kept1[0]!.stdout).toContain('MARK-s0-d1 fixed');
    expect(s1!.attempts.find((a) => a.round === 0 && a.candidate === 0)!.error).toMatch(/ValueError: MARK-s0-c0 does not work/);
    expect(s2!.attempts.filter((a) => a.selected).map((a) => a.candidate)).toEqual([2]);
    expect(s2!.outcome).toBe('solved');
    expect(trace.finals).toHaveLength(N);
    expect(trace.finals![0]!.code).toContain('def apply_pipeline');
    expect(trace.cost!.calls + N).toBe(server.requests().length / problems.length);

    expect(summaryOut.code, summaryOut.output).toBe(0);
    expect(summaryOut.output).toMatch(/subtask 1: .*\[solved, 1 debug round\(s\)\]/);

    // The sweep's HTML report shows the exploration (its drill-down tasks carry their traces).
    const report = await getText(bucket, `sweeps/${id}/report.html`);
    expect(report).toContain('MARK-s1-c2');

    // Each task's chain is its own workflow, visible in the Web UI with its progress attributes.
    const { client, close } = await connectClient(config);
    try {
      const described = await client.workflow.getHandle(cellTaskWorkflowId(id, cell, 0)).describe();
      expect(described.status.name).toBe('COMPLETED');
      expect(described.typedSearchAttributes.get(SA_KIND)).toBe('task');
      expect(described.typedSearchAttributes.get(SA_CELL)).toBe(cell);
      expect(described.typedSearchAttributes.get(SA_TOTAL)).toBe(2);
      expect(described.typedSearchAttributes.get(SA_DONE)).toBe(2);
      // Its history carries keys and statuses: no snippet, output or prompt text.
      const history = await client.workflow.getHandle(cellTaskWorkflowId(id, cell, 0)).fetchHistory();
      const payloadText: string[] = [];
      const walk = (v: unknown): void => {
        if (v instanceof Uint8Array) payloadText.push(Buffer.from(v).toString('utf8'));
        else if (Array.isArray(v)) v.forEach(walk);
        else if (v && typeof v === 'object') Object.values(v).forEach(walk);
      };
      walk(history.events);
      const text = payloadText.join('\n');
      expect(text).toContain('snippet-runs/');
      expect(text).not.toContain('MARK-');
      expect(text).not.toContain('apply_pipeline');
      expect(history.events!.length).toBeLessThan(400);
    } finally {
      await close();
    }
  });

  it('reranks every per-subtask candidate globally down to global_k, and the final step gets the globally kept docs', async () => {
    const globalId = `explora-global-${uniqueSuffix()}`;
    const globalCell = 'pbe.chat.exploracoder.t0.8';
    const file = path.join(dir, 'global.yaml');
    writeScriptedSweep(file, {
      id: globalId,
      datasets: [{ name: 'pbe', pbe: { count: PARAMS.count, seed: PARAMS.seed } }],
      baseUrl: globalServer.url,
      model: 'scripted-global',
      methods: ['exploracoder'],
      methodOptions: { candidates: 2, global_k: 1 },
      nSamples: 1,
      k: [1],
    });
    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], testConfig().env);
    expect(run.code, run.output).toBe(0);
    const offeredIn = (text: string) => [...text.matchAll(/^\[\d+\] (\S+?):/gm)].map((m) => m[1]!);
    for (const [taskIndex, p] of problems.entries()) {
      const mine = globalSeen.filter((c) => c.problem.task_id === p.task_id);
      // Every API any per-subtask rerank was offered (not only the ones it kept).
      const union = [...new Set(mine.filter((c) => c.role === 'rerank').flatMap((c) => offeredIn(c.text)))];
      const kept = new Set(mine.filter((c) => c.role === 'rerank').flatMap((c) => offeredIn(c.text).slice(0, 2)));
      expect(union.length).toBeGreaterThan(kept.size);
      const globals = mine.filter((c) => c.role === 'global');
      expect(globals).toHaveLength(1);
      // The global rerank is offered exactly every per-subtask candidate, after the reranks and before any exploration.
      expect(new Set(offeredIn(globals[0]!.text))).toEqual(new Set(union));
      expect(mine.findIndex((c) => c.role === 'global')).toBeLessThan(mine.findIndex((c) => c.role === 'explore'));
      const rec = RecommendArtifactSchema.parse(
        JSON.parse((await getText(bucket, `${cellTaskPrefix(globalId, globalCell, taskIndex)}recommend.json`))!),
      );
      // The script names the first two offered; global_k = 1 keeps the first.
      expect(rec.global).toEqual([offeredIn(globals[0]!.text)[0]]);
      expect(rec.global_llm_key).toBeDefined();
      expect(rec.cost.calls).toBe(2 + 1); // two reranks and the global one
      // The final request documents the globally kept API.
      const finals = mine.filter((c) => c.role === 'final');
      expect(finals).toHaveLength(1);
      expect(finals[0]!.text).toContain(rec.global[0]!);
    }
    const results = JSON.parse((await getText(bucket, sweepResultsKey(globalId)))!);
    // Per task: plan, 2 reranks, the global rerank, 2 subtasks x 2 candidates, 1 final.
    expect(results.cells[0].cost.calls).toBe(problems.length * (1 + 2 + 1 + 4 + 1));
    expect(results.cells[0].passAtK['pass@1']).toBe(1);
  });
});
