/**
 * The ExploraCoder paper's analyses of a real sweep (real Temporal, SeaweedFS and sandbox, scripted
 * OpenAI-compatible servers), as a user gets them: `scripts/paper-analyses.ts` run as a process on
 * the finished sweep, and the HTML report's section opened in Chromium. Every number is checked
 * against what the scripted servers were asked: requests, answers and tokens per stage (Table 6),
 * the subtasks that needed debugging (p1, p2), and CoAE success against final pass.
 *
 * Two models run ExploraCoder*: one whose endpoint honours `n` (CoAE is one request of n = m per
 * subtask, counted once) and one whose endpoint ignores it (each request answers one choice; the
 * rest are asked for again, and every request is counted). `direct` runs beside them: the report
 * shows no analyses for it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import type { PaperAnalyses } from '../../domain/report/paperAnalyses.js';
import type { Stage } from '../../domain/report/trace.js';
import { sweepResultsKey } from '../../domain/sweep/keys.js';
import { getText } from '../../infra/s3.js';
import { resolvePbeParams } from '../../domain/pbe/params.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { openBrowser, type OpenBrowser } from '../support/browser.js';
import { testBucket } from '../support/s3.js';
import {
  countTokens,
  startScriptedLlmServer,
  type Reply,
  type ScriptedLlmServer,
  type ScriptedRequest,
} from '../support/scripted-llm-server.js';
import { pbeProblems } from '../sweep/support.js';
import { classify, exploraScript, SEED, type Role } from '../methods/support.js';
import { RUN_ENTRY } from '../support/processes.js';

const { config, env } = testConfig();
const bucket = testBucket(config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-paper-analyses-'));
const PARAMS = resolvePbeParams({ count: 2, seed: 61, library: 'private' });
const problems = pbeProblems(PARAMS);
const M = 3;
const N = 2;
const sweepId = `paper-analyses-${uniqueSuffix()}`;
const cellOf = (model: string, method = 'exploracoder-debug') => `pbe.${model}.${method}.t0.8`;

/** What one request cost, as the scripted server answered it. */
interface Asked {
  role: Role;
  task: number;
  subtask?: number;
  answers: number;
  promptTokens: number;
  completionTokens: number;
}

/**
 * exploraScript (test/methods/support.ts), answering a request of n choices as n requests of one
 * would be answered (choice k: the next sample's seed); with `maxChoices` only the first ones are
 * returned, as that endpoint does, and the request's cost is recorded as the server reports it.
 */
function answering(asked: Asked[], maxChoices: number) {
  const one = exploraScript(problems);
  const text = (reply: Reply) => ('content' in reply && typeof reply.content === 'string' ? reply.content : '');
  return (req: ScriptedRequest): Reply => {
    const n = Number(req.body.n ?? 1);
    const contents = Array.from({ length: n }, (_, k) =>
      text(one({ ...req, body: { ...req.body, n: 1, seed: Number(req.body.seed) + k } })),
    );
    const returned = contents.slice(0, maxChoices);
    const c = classify(req, problems);
    const messages = req.body.messages as Array<{ content: string }>;
    asked.push({
      role: c.role,
      task: c.problem.index,
      ...(c.subtask !== undefined ? { subtask: c.subtask } : {}),
      answers: returned.length,
      promptTokens: countTokens(messages.map((m) => m.content).join(' ')),
      completionTokens: returned.reduce((a, t) => a + countTokens(t), 0),
    });
    return { content: contents };
  };
}

const STAGE_OF: Partial<Record<Role, Stage>> = {
  plan: 'plan',
  rerank: 'rerank',
  global: 'global_rerank',
  explore: 'explore',
  debug: 'debug',
  final: 'final',
};

/** Table 6's row for a stage as the server saw it: means over the tasks of requests, answers, tokens. */
function expectedRow(asked: readonly Asked[], stage: Stage) {
  const mine = asked.filter((a) => STAGE_OF[a.role] === stage);
  const sum = (f: (a: Asked) => number) => mine.reduce((x, a) => x + f(a), 0) / PARAMS.count;
  return {
    requests: sum(() => 1),
    answers: sum((a) => a.answers),
    prompt_tokens: sum((a) => a.promptTokens),
    completion_tokens: sum((a) => a.completionTokens),
  };
}

const honoursAsked: Asked[] = [];
const ignoresAsked: Asked[] = [];
let honours: ScriptedLlmServer;
let ignores: ScriptedLlmServer;
let browser: OpenBrowser;
let results: { cells: Array<{ cell: { cell: string }; resultsKey: string }> };

beforeAll(async () => {
  honours = await startScriptedLlmServer(answering(honoursAsked, Infinity), { applyStop: false });
  ignores = await startScriptedLlmServer(answering(ignoresAsked, 1), { applyStop: false, maxChoices: 1 });
  const model = (id: string, server: ScriptedLlmServer) => ({
    id,
    base_url: server.url,
    model: `scripted-${id}`,
    request_timeout_s: 20,
    concurrency: 4,
    samples_per_request: M,
  });
  const file = path.join(dir, 'sweep.yaml');
  writeFileSync(
    file,
    YAML.stringify({
      id: sweepId,
      datasets: [{ name: 'pbe', family: 'pbe-world', pbe_world: { count: PARAMS.count, seed: PARAMS.seed, library: 'private' } }],
      models: [model('honours', honours), model('ignores', ignores)],
      methods: ['direct', 'exploracoder-debug'],
      method_options: { candidates: M, retrieve_k: 2, rerank_keep: 2 },
      temperatures: [0.8],
      n_samples: N,
      k: [1],
      timeout_s: 5,
      seed: SEED,
    }),
  );
  const run = await run_('scripts/start-sweep.ts', ['--config', file, '--no-progress']);
  if (run.code !== 0) throw new Error(`the sweep failed:\n${run.stdout}\n${run.stderr}`);
  results = JSON.parse((await getText(bucket, sweepResultsKey(sweepId)))!);
  browser = await openBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await honours?.close();
  await ignores?.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** A project script as a user runs it, stdout and stderr apart. */
async function run_(entry: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [RUN_ENTRY, path.join(PROJECT_ROOT, entry), ...args], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

let printed: Promise<Map<string, PaperAnalyses>> | undefined;
/** `paper-analyses.ts SWEEP --json`, run once. */
function analyses(): Promise<Map<string, PaperAnalyses>> {
  printed ??= run_('scripts/paper-analyses.ts', [sweepId, '--json']).then((res) => {
    expect(res.code, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout) as { sweep: string; cells: Array<PaperAnalyses & { cell: string }> };
    expect(out.sweep).toBe(sweepId);
    return new Map(out.cells.map(({ cell, ...a }) => [cell, a]));
  });
  return printed;
}

/** Each task's pass rate c/n, from the cell's results. */
async function passRates(cell: string): Promise<number[]> {
  const key = results.cells.find((c) => c.cell.cell === cell)!.resultsKey;
  const detail = JSON.parse((await getText(bucket, key))!) as { per_task: Array<{ n: number; c: number }> };
  return detail.per_task.map((t) => t.c / t.n);
}

describe('scripts/paper-analyses.ts on a finished sweep', () => {
  it("prints Table 6's cost, p1/p2 and CoAE success vs pass as the servers were asked", async () => {
    const all = await analyses();
    expect([...all.keys()].sort()).toEqual(
      [cellOf('honours'), cellOf('honours', 'direct'), cellOf('ignores'), cellOf('ignores', 'direct')].sort(),
    );
    // direct writes no trace: nothing to analyse.
    expect(all.get(cellOf('honours', 'direct'))!.cost.tasks).toBe(0);
    expect(ignores.requests().filter((r) => r.attempt > 1)).toEqual([]);
    expect(honours.requests().filter((r) => r.attempt > 1)).toEqual([]);

    for (const [model, asked] of [
      ['honours', honoursAsked],
      ['ignores', ignoresAsked],
    ] as const) {
      const a = all.get(cellOf(model))!;
      const explora = asked.filter((x) => x.role !== 'generate'); // direct's answers are the other cell's
      expect(a.cost.tasks, model).toBe(PARAMS.count);
      const subtasks = new Set(explora.filter((x) => x.role === 'explore').map((x) => `${x.task}/${x.subtask}`));
      expect(a.cost.mean_subtasks, model).toBe(subtasks.size / PARAMS.count);
      // Every stage the servers were asked for, in pipeline order, then the total.
      expect(
        a.cost.rows.map((r) => r.stage),
        model,
      ).toEqual(['plan', 'rerank', 'global_rerank', 'explore', 'debug', 'final', 'total']);
      for (const row of a.cost.rows) {
        const want =
          row.stage === 'total'
            ? expectedRow(
                explora.map((x) => ({ ...x, role: 'plan' })),
                'plan',
              )
            : expectedRow(explora, row.stage);
        for (const f of ['requests', 'answers', 'prompt_tokens', 'completion_tokens'] as const)
          expect(row[f], `${model} ${row.stage} ${f}`).toBeCloseTo(want[f], 9);
      }
      // The paper's count: CoAE is one request of n = m per subtask where the endpoint honours n;
      // m requests where it answers one choice each. m answers either way.
      const explore = a.cost.rows.find((r) => r.stage === 'explore')!;
      expect(explore.requests, model).toBe((model === 'honours' ? 1 : M) * a.cost.mean_subtasks);
      expect(explore.answers, model).toBe(M * a.cost.mean_subtasks);
      const final = a.cost.rows.find((r) => r.stage === 'final')!;
      expect([final.requests, final.answers], model).toEqual([model === 'honours' ? 1 : N, N]);

      // p1: the subtasks the servers were asked to debug, of those explored; p2: those whose every
      // debug attempt still raised (the script's fix for candidate 1 runs).
      const debugged = new Set(explora.filter((x) => x.role === 'debug').map((x) => `${x.task}/${x.subtask}`));
      expect(debugged.size, model).toBeGreaterThan(0);
      expect(a.debug, model).toMatchObject({ explored_subtasks: subtasks.size, needed_debug: debugged.size, still_failing: 0, p2: 0 });
      expect(a.debug.p1, model).toBeCloseTo(debugged.size / subtasks.size, 12);
      expect(a.debug.mean_debug_requests, model).toBe(explora.filter((x) => x.role === 'debug').length / debugged.size);
      expect(a.debug.mean_debug_rounds, model).toBe(1);

      // Every subtask succeeded in the end (after debug), so every task is in the "all ok" group,
      // with the mean pass rate of the cell's results.
      const rates = await passRates(cellOf(model));
      expect(a.coae.all_subtasks_ok, model).toEqual({
        tasks: PARAMS.count,
        share: 1,
        pass_rate: rates.reduce((x, r) => x + r, 0) / rates.length,
      });
      expect(a.coae.some_subtask_failed, model).toEqual({ tasks: 0, share: 0, pass_rate: null });
    }
    // The answers are the same whichever way they were asked for.
    expect(all.get(cellOf('ignores'))!.coae).toEqual(all.get(cellOf('honours'))!.coae);

    // The text tables say the same; --cell narrows to one cell; an unknown cell is named.
    const text = await run_('scripts/paper-analyses.ts', [sweepId, '--cell', cellOf('honours')]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`cell ${cellOf('honours')}`);
    expect(text.stdout).not.toContain(cellOf('ignores'));
    expect(text.stdout).toMatch(/p1 \d+\.\d%/);
    const unknown = await run_('scripts/paper-analyses.ts', [sweepId, '--cell', 'pbe.nope.direct.t0.8']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`sweep ${sweepId} has no cell pbe.nope.direct.t0.8`);
  });

  it('the HTML report shows the same numbers for the ExploraCoder cells only', async () => {
    const all = await analyses();
    const out = path.join(dir, 'report');
    const res = await run_('scripts/report.ts', [sweepId, '--out', out]);
    expect(res.code, res.stderr).toBe(0);
    const file = res.stdout.trim().split('\n').at(-1)!;
    const { page, errors } = browser;
    await page.goto(`file://${file}`);
    await expect(page.locator('nav a[href="#paper"]').count()).resolves.toBe(1);
    const section = page.locator('section#paper');
    await expect(section.isVisible()).resolves.toBe(true);
    // One row group per ExploraCoder cell; none for direct.
    const cellsShown = await section
      .locator('#paper-cost-table tr[data-stage="total"]')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-cell')));
    expect(cellsShown.sort()).toEqual([cellOf('honours'), cellOf('ignores')].sort());
    const cellText = async (selector: string) => (await section.locator(selector).textContent())!.trim();
    for (const model of ['honours', 'ignores']) {
      const cell = cellOf(model);
      const a = all.get(cell)!;
      for (const row of a.cost.rows) {
        const base = `#paper-cost-table tr[data-cell="${cell}"][data-stage="${row.stage}"]`;
        expect(await cellText(`${base} td[data-field="requests"]`), `${cell} ${row.stage}`).toBe(row.requests.toFixed(2));
        expect(await cellText(`${base} td[data-field="answers"]`), `${cell} ${row.stage}`).toBe(row.answers.toFixed(2));
        expect(Number((await cellText(`${base} td[data-field="prompt_tokens"]`)).replace(/,/g, '')), `${cell} ${row.stage}`).toBeCloseTo(
          row.prompt_tokens,
          1,
        );
        expect(
          Number((await cellText(`${base} td[data-field="completion_tokens"]`)).replace(/,/g, '')),
          `${cell} ${row.stage}`,
        ).toBeCloseTo(row.completion_tokens, 1);
      }
      const debug = `#paper-debug-table tr[data-cell="${cell}"]`;
      expect(await cellText(`${debug} td[data-field="needed_debug"]`)).toBe(String(a.debug.needed_debug));
      expect(await cellText(`${debug} td[data-field="p1"]`)).toBe(`${(a.debug.p1! * 100).toFixed(1)}%`);
      expect(await cellText(`${debug} td[data-field="p2"]`)).toBe(`${(a.debug.p2! * 100).toFixed(1)}%`);
      const coae = `#paper-coae-table tr[data-cell="${cell}"]`;
      expect(await cellText(`${coae} td[data-field="ok-tasks"]`)).toBe(String(a.coae.all_subtasks_ok.tasks));
      expect(await cellText(`${coae} td[data-field="ok-pass"]`)).toBe(`${(a.coae.all_subtasks_ok.pass_rate! * 100).toFixed(1)}%`);
    }
    expect(errors).toEqual([]);
  });
});
