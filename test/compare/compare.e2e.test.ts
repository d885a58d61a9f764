/**
 * Comparing cells of real sweeps (real Temporal, SeaweedFS and sandbox; a scripted server whose three
 * models pass at known, different rates): scripts/compare.ts run as a process (its numbers checked
 * against the ones the scripted rates imply, its refusals and exit codes), then the report's
 * comparison section opened in headless Chromium.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Comparison } from '../../domain/compare/compare.js';
import { holmAdjust, mcnemarExact } from '../../domain/compare/stats.js';
import type { CellProvenance } from '../../domain/sweep/provenance.js';
import { cellFileKey, cellSummaryKey, sweepDatasetKey, sweepResultsKey } from '../../domain/sweep/keys.js';
import { getBytes, getText, putObject, sha256Hex } from '../../infra/s3.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { runTs, spawnTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { openBrowser, type OpenBrowser } from '../support/browser.js';
import { startScriptedLlmServer, type Reply, type ScriptedLlmServer, type ScriptedRequest } from '../support/scripted-llm-server.js';
import { HUMANEVAL_DATASETS_YAML, humanEvalProblems, identify, scriptedModelYaml, SWEEP_SEED } from '../sweep/support.js';

const { config, env } = testConfig();
const bucket = testBucket(config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-compare-'));
const SHOTS = path.join(os.tmpdir(), 'explora-report-screenshots');
const TASKS = 10;
const problems = humanEvalProblems(TASKS);
const sweepId = `compare-${uniqueSuffix()}`;
const smallSweepId = `compare-small-${uniqueSuffix()}`;
const cell = (sweep: string, model: string) => `${sweep}/humaneval.${model}.direct.t0.2`;

/**
 * strong and twin answer every task correctly. weak answers tasks 0-7 wrongly (both samples), task 8
 * right on its first sample only, task 9 right.
 */
function weakPasses(task: number, sample: number): boolean {
  return task === 9 || (task === 8 && sample === 0);
}

function answers(req: ScriptedRequest): Reply {
  const { problem, sample: first } = identify(req, problems);
  const n = typeof req.body.n === 'number' ? req.body.n : 1;
  const answer = (sample: number) => {
    const right = req.body.model !== 'scripted-weak' || weakPasses(problem.index, sample);
    const body = right ? problem.canonical_solution : '    return None\n';
    return `\`\`\`python\n${problem.prompt}${body}\`\`\`\n`;
  };
  const texts = Array.from({ length: n }, (_, j) => answer(first + j));
  return { content: n === 1 ? texts[0]! : texts };
}

function sweepYaml(id: string, models: string[], limit: number): string {
  return `id: ${id}
${HUMANEVAL_DATASETS_YAML}models:
${models.map((m) => scriptedModelYaml(m, server.url, `scripted-${m}`, 'chat')).join('')}methods: [direct]
temperatures: [0.2]
n_samples: 2
k: [1, 2]
limit: ${limit}
timeout_s: 5
seed: ${SWEEP_SEED}
`;
}

let server: ScriptedLlmServer;
let browser: OpenBrowser;

/** Runs a sweep to its end; each on task queues of its own (`sweepEnv`), as the two run at once. */
async function startSweep(id: string, models: string[], limit: number, sweepEnv: Record<string, string>) {
  const file = path.join(dir, `${id}.yaml`);
  writeFileSync(file, sweepYaml(id, models, limit));
  const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], sweepEnv);
  if (run.code !== 0) throw new Error(`sweep ${id} failed:\n${run.output}`);
}

/** compare.ts as a process: exit code, stdout alone, and everything it printed. */
async function compare(args: string[]) {
  const p = spawnTs('scripts/compare.ts', args, env);
  let stdout = '';
  p.child.stdout?.on('data', (d) => (stdout += d));
  // Its output read to the end: several run at once, and the exit can come before the last of it is read.
  const { code } = await p.closed!;
  return { code, stdout, output: p.output() };
}

beforeAll(async () => {
  server = await startScriptedLlmServer(answers);
  // The two sweeps and Chromium's start only wait: at once.
  [, , browser] = await Promise.all([
    startSweep(sweepId, ['strong', 'weak', 'twin'], TASKS, env),
    startSweep(smallSweepId, ['strong'], 6, testConfig().env),
    openBrowser(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

// What the scripted rates imply. pass@1 per task: strong 1; weak 0 on tasks 0-7, 1/2 on 8, 1 on 9.
// Paired differences strong - weak: 1 (x8), 1/2, 0. The exact sign-flip test: the observed sum is
// the largest of the 2^9 sign patterns of the 9 non-zero ones, so p = 2 / 2^9.
const P_PASS1 = 2 / 2 ** 9;
// pass@2: weak solves task 8 too (1 - C(1,2)/C(2,2) = 1), so 8 discordant tasks, all for strong: McNemar.
const P_PASS2 = mcnemarExact(8, 0);

// The cases only wait on compare.ts and report.ts processes: they run at once.
describe.concurrent('scripts/compare.ts on real sweeps', () => {
  /** compare.ts --json on the three cells, run once: its exit, its output, and the comparison (which other cases check against). */
  let pairwise: Promise<{ res: Awaited<ReturnType<typeof compare>>; cmp: Comparison }> | undefined;
  const threeCells = () =>
    (pairwise ??= compare([cell(sweepId, 'strong'), cell(sweepId, 'weak'), cell(sweepId, 'twin'), '--json']).then((res) => ({
      res,
      cmp: (res.code === 0 ? JSON.parse(res.stdout) : undefined) as Comparison,
    })));

  it('compares three cells pairwise: differences, paired tests, Holm over the three pairs, flips', async () => {
    const { res, cmp } = await threeCells();
    expect(res.code, res.output).toBe(0);
    expect(cmp.pairs.map((p) => [p.a, p.b])).toEqual([
      [cell(sweepId, 'strong'), cell(sweepId, 'weak')],
      [cell(sweepId, 'strong'), cell(sweepId, 'twin')],
      [cell(sweepId, 'weak'), cell(sweepId, 'twin')],
    ]);
    const [sw, st, wt] = cmp.pairs;
    expect(sw!.tasks).toBe(TASKS);
    expect(sw!.metrics.map((m) => m.metric)).toEqual(['pass@1', 'pass@2', 'success@1', 'success@2']);
    // success@1: the share of samples that ran without a runtime error, as each cell's results.json counts them.
    const success1 = async (model: string) => {
      const { per_task } = JSON.parse((await getText(bucket, cellFileKey(sweepId, `humaneval.${model}.direct.t0.2`, 'results.json')))!);
      return (per_task as Array<{ n: number; s: number }>).reduce((sum, t) => sum + t.s / t.n, 0) / per_task.length;
    };
    expect(sw!.metrics[2]!.a).toBeCloseTo(await success1('strong'), 12);
    expect(sw!.metrics[2]!.b).toBeCloseTo(await success1('weak'), 12);
    expect(sw!.metrics[2]!.diff).toBeCloseTo(sw!.metrics[2]!.a - sw!.metrics[2]!.b, 12);
    const pass1 = sw!.metrics[0]!;
    expect(pass1.a).toBe(1);
    expect(pass1.b).toBeCloseTo(1.5 / 10, 12);
    expect(pass1.diff).toBeCloseTo(8.5 / 10, 12);
    expect(pass1.test).toBe('permutation-exact');
    expect(pass1.p).toBeCloseTo(P_PASS1, 12);
    expect(pass1.bootstrap!.low).toBeGreaterThan(0.5);
    expect(pass1.bootstrap!.high).toBeLessThanOrEqual(1);
    expect(pass1.normal!.low).toBeLessThan(pass1.diff);
    expect(sw!.metrics[1]!).toMatchObject({ metric: 'pass@2', test: 'mcnemar-exact' });
    expect(sw!.metrics[1]!.p).toBeCloseTo(P_PASS2, 12);
    // Identical cells: no difference, p = 1.
    expect(st!.metrics[0]).toMatchObject({ diff: 0, p: 1 });
    expect(wt!.metrics[0]!.diff).toBeCloseTo(-0.85, 12);
    // Holm over the three pairs, per score.
    const holm1 = holmAdjust([P_PASS1, 1, P_PASS1]);
    cmp.pairs.forEach((p, i) => expect(p.metrics[0]!.pHolm).toBeCloseTo(holm1[i]!, 12));
    expect(holm1[0]).toBeCloseTo(3 * P_PASS1, 12);
    // Flips: tasks strong solved and weak did not at all (0-7); none the other way; task 8 is no flip.
    expect(sw!.flips.aOnly.map((f) => f.task_id)).toEqual(problems.slice(0, 8).map((p) => p.task_id));
    expect(sw!.flips.aOnly[0]).toEqual({ task_id: problems[0]!.task_id, a: '2/2', b: '0/2' });
    expect(sw!.flips.bOnly).toEqual([]);
    expect(wt!.flips.bOnly).toHaveLength(8);
  });

  it('prints tables marking the significant differences, the flips, and what the intervals are', async () => {
    const res = await compare([cell(sweepId, 'strong'), cell(sweepId, 'weak'), cell(sweepId, 'twin')]);
    expect(res.code, res.output).toBe(0);
    const lines = res.stdout.split('\n');
    const pass1Rows = lines.filter((l) => /^\s+pass@1\s/.test(l));
    expect(pass1Rows).toHaveLength(3);
    expect(pass1Rows[0]).toMatch(/\+0\.8500 .*permutation \(exact\)\s+0\.0039\s+0\.0117 \*$/);
    expect(pass1Rows[1]).toMatch(/\+0\.0000 .* 1\.0000\s+1\.0000$/);
    // Each flipped task with its passing samples in A and in B.
    expect(res.stdout).toContain(
      `A only (8): ${problems
        .slice(0, 8)
        .map((p) => `${p.task_id} (2/2 vs 0/2)`)
        .join(', ')}\n`,
    );
    expect(res.stdout).toMatch(/significant at 5% after Holm's adjustment over the 3 pairs/);
  });

  it('refuses cells of different task sets, naming the tasks; --shared-tasks compares on the shared ones', async () => {
    const [refused, shared] = await Promise.all([
      compare([cell(sweepId, 'weak'), cell(smallSweepId, 'strong')]),
      compare([cell(sweepId, 'weak'), cell(smallSweepId, 'strong'), '--shared-tasks', '--json']),
    ]);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(
      `${cell(sweepId, 'weak')} has 4 task(s) the others lack: ${problems
        .slice(6)
        .map((p) => p.task_id)
        .join(', ')}`,
    );
    expect(refused.output).toMatch(/--shared-tasks/);

    expect(shared.code, shared.output).toBe(0);
    const c: Comparison = JSON.parse(shared.stdout);
    expect(c.selection).toEqual({
      kind: 'shared',
      taskIds: problems.slice(0, 6).map((p) => p.task_id),
      dropped: [{ ref: cell(sweepId, 'weak'), tasks: problems.slice(6).map((p) => p.task_id) }],
    });
    expect(c.pairs[0]!.metrics[0]!.diff).toBe(-1);
    expect(c.pairs[0]!.metrics[0]!.p).toBeCloseTo(2 / 2 ** 6, 12);
  });

  it('says what is wrong with a bad command line (exit 2) or a missing cell (exit 1), before reading anything', async () => {
    const [one, bad, flag, missing, help] = await Promise.all([
      compare([cell(sweepId, 'weak')]),
      compare([cell(sweepId, 'weak'), 'no-slash']),
      compare([cell(sweepId, 'weak'), cell(sweepId, 'strong'), '--alpha', '5']),
      compare([cell(sweepId, 'weak'), `${sweepId}/humaneval.nobody.direct.t0.2`]),
      compare(['--help']),
    ]);
    expect(one.code).toBe(2);
    expect(one.output).toContain('at least two cells are needed, got 1');
    expect(bad.code).toBe(2);
    expect(bad.output).toContain('cell "no-slash": expected <sweep>/<cell>');
    expect(flag.code).toBe(2);
    expect(flag.output).toMatch(/--alpha must be a number between 0 and 1/);
    expect(missing.code).toBe(1);
    expect(missing.output).toContain(
      `sweep ${sweepId} has no cell humaneval.nobody.direct.t0.2; its cells: humaneval.strong.direct.t0.2, humaneval.weak.direct.t0.2, humaneval.twin.direct.t0.2`,
    );
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('EXPLORA_S3_BUCKET');
  });

  it('compares the finished cells of a sweep still running, and names a cell that has not finished', async () => {
    // A running sweep with two cells ended has their summaries in S3 (each cell stores its own as it
    // ends) and no results.json yet: the finished sweep's summaries, copied under another sweep id.
    const running = `compare-running-${uniqueSuffix()}`;
    for (const model of ['strong', 'weak']) {
      const id = `humaneval.${model}.direct.t0.2`;
      await putObject(bucket, cellSummaryKey(running, id), (await getText(bucket, cellSummaryKey(sweepId, id)))!);
    }
    expect(await getText(bucket, sweepResultsKey(running))).toBeNull();
    const [res, unfinished, { cmp }] = await Promise.all([
      compare([cell(running, 'strong'), cell(running, 'weak'), '--json']),
      compare([cell(running, 'strong'), cell(running, 'twin')]),
      threeCells(),
    ]);
    expect(res.code, res.output).toBe(0);
    const [pair] = (JSON.parse(res.stdout) as Comparison).pairs;
    // The same numbers as from the finished sweep's results.json; Holm's adjustment is over this one pair.
    const withoutHolm = (ms: Comparison['pairs'][number]['metrics']) => ms.map(({ pHolm, ...m }) => (void pHolm, m));
    expect(withoutHolm(pair!.metrics)).toEqual(withoutHolm(cmp.pairs[0]!.metrics));
    for (const m of pair!.metrics) expect(m.pHolm).toBe(m.p);
    expect(pair!.flips).toEqual(cmp.pairs[0]!.flips);
    expect(unfinished.code).toBe(1);
    expect(unfinished.output).toContain(`cell ${running}/humaneval.twin.direct.t0.2 has not finished`);
  });

  it("records each cell's provenance in its results.json: commit, dataset bytes, endpoint, template, versions", async () => {
    const results = JSON.parse((await getText(bucket, cellFileKey(sweepId, 'humaneval.strong.direct.t0.2', 'results.json')))!);
    const p: CellProvenance = results.provenance;
    const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8'));
    expect(p.explora).toEqual({
      version: pkg.version,
      commit: execFileSync('git', ['rev-parse', 'HEAD'], { cwd: PROJECT_ROOT }).toString().trim(),
    });
    expect(p.config_sha256).toBe(JSON.parse((await getText(bucket, sweepResultsKey(sweepId)))!).config_sha256);
    expect(p.dataset_sha256).toBe(sha256Hex((await getBytes(bucket, sweepDatasetKey(sweepId, 'humaneval')))!));
    expect(p.model).toEqual({ endpoint: server.url, name: 'scripted-strong' });
    expect(p.prompt_template_sha256).toBe(sha256Hex(JSON.stringify('default')));
    expect(p.runtime.node).toMatch(/^v\d+\./);
    expect(p.runtime.python).toMatch(/^Python 3\./);
  });

  it('warns when compared cells differ in provenance their factors do not explain', async () => {
    // The two sweeps' dataset copies hold different task selections (10 and 6 tasks): other bytes.
    const big = sha256Hex((await getBytes(bucket, sweepDatasetKey(sweepId, 'humaneval')))!);
    const small = sha256Hex((await getBytes(bucket, sweepDatasetKey(smallSweepId, 'humaneval')))!);
    expect(big).not.toBe(small);
    const [res, same] = await Promise.all([
      compare([cell(sweepId, 'weak'), cell(smallSweepId, 'strong'), '--shared-tasks']),
      compare([cell(sweepId, 'weak'), cell(sweepId, 'strong')]),
    ]);
    expect(res.code, res.output).toBe(0);
    const warnings = res.stdout.split('\n').filter((l) => l.includes('warning:'));
    // The model's name and endpoint differ too, but the model is the factor compared.
    expect(warnings).toEqual([`  warning: the cells differ in dataset_sha256: A ${big}, B ${small}`]);
    // Within one sweep, nothing to warn about.
    expect(same.stdout).not.toContain('warning:');
  });

  // expect.poll needs the case's own expect in a concurrent suite.
  it("the report's comparison section, in Chromium: every pair, significant ones marked, flips listed", async ({ expect }) => {
    const out = path.join(dir, 'report');
    const [res, { cmp }] = await Promise.all([runTs('scripts/report.ts', [sweepId, '--out', out], env), threeCells()]);
    expect(res.code, res.output).toBe(0);
    const { page, errors, external } = browser;
    await page.goto(`file://${path.join(out, `report-${sweepId}.html`)}`);
    await page.click('nav a[href="#compare"]');
    const table = page.locator('#compare table.comparisons');
    await expect.poll(() => table.count()).toBe(1);
    expect(await table.isVisible()).toBe(true);
    expect(await table.getAttribute('data-dataset')).toBe('humaneval');
    const rows = await page.$$eval('#compare tr[data-metric]', (trs) =>
      trs.map((tr) => {
        const el = tr as unknown as { dataset: Record<string, string>; className: string; textContent: string };
        return {
          a: el.dataset.a,
          b: el.dataset.b,
          metric: el.dataset.metric,
          pHolm: Number(el.dataset.pHolm),
          significant: el.className.includes('significant'),
          text: el.textContent,
        };
      }),
    );
    // Three pairs, four scores each (pass@1, pass@2, success@1, success@2); the same tests and adjusted p-values as compare.ts's.
    const metrics = cmp.pairs.flatMap((p) => p.metrics.map((m) => ({ ...m, pair: `${p.a} ${p.b}` })));
    expect(rows.map((r) => `${r.a} ${r.b} ${r.metric}`)).toEqual(metrics.map((m) => `${m.pair} ${m.metric}`));
    rows.forEach((r, i) => expect(r.pHolm).toBeCloseTo(metrics[i]!.pHolm, 12));
    expect(rows.map((r) => r.significant)).toEqual(metrics.map((m) => m.pHolm < cmp.alpha));
    const passRows = rows.filter((r) => r.metric?.startsWith('pass@'));
    expect(passRows.map((r) => r.significant)).toEqual([true, true, false, false, true, true]);
    expect(passRows[0]!.text).toContain('+85.0');
    expect(passRows[0]!.text).toContain('★');
    expect(passRows[2]!.text).not.toContain('★');
    // The flips: 8 / 0, opened to show the tasks strong alone solved.
    const flips = page.locator('#compare tr[data-metric="pass@1"] details.flips').first();
    expect(await flips.locator('summary').textContent()).toBe('8 / 0');
    expect(await flips.locator('.flip-list').isVisible()).toBe(false);
    await flips.locator('summary').click();
    expect(await flips.locator('.flip-list').isVisible()).toBe(true);
    expect(await flips.locator('.task-id').allTextContents()).toEqual(problems.slice(0, 8).map((p) => p.task_id));
    // The provenance section: a row per cell, the commit cut to 12 characters.
    await page.click('nav a[href="#provenance"]');
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: PROJECT_ROOT }).toString().trim();
    expect(await page.locator('#provenance-table tbody tr').count()).toBe(3);
    expect(await page.locator('#provenance-table td[data-field="explora.commit"]').allTextContents()).toEqual([
      commit.slice(0, 12),
      commit.slice(0, 12),
      commit.slice(0, 12),
    ]);
    expect(await page.locator('#provenance-table td[data-field="model.name"]').allTextContents()).toEqual([
      'scripted-strong',
      'scripted-weak',
      'scripted-twin',
    ]);
    expect(await page.locator('#provenance-table').isVisible()).toBe(true);
    mkdirSync(SHOTS, { recursive: true });
    await page.locator('#compare').screenshot({ path: path.join(SHOTS, 'compare-section.png') });
    expect(errors).toEqual([]);
    expect(external).toEqual([]);
  });
});
