/**
 * Budgets on the real stack: a sweep whose token budget runs out mid-sweep pauses itself (the
 * sweep's progress, sweep-status and the ExploraPausedFor search attribute say why), asks nothing
 * more once its task window drains, stays paused on a user's resume, and resumes when start-sweep is
 * run again with a raised budget; every request is then sent once, and the results are those of the
 * same sweep without a budget (which reads its dataset from an s3:// URI: such a dataset loads and
 * runs, and gives the results of the same tasks read from a file). Cells record the server's system_fingerprint. The workflows' side of
 * it (the ledger's count of whole tasks and of a large task's slices, the hold within the tasks in
 * flight, a resume that does not lift it) is test/workflows/*.test.ts's.
 *
 * The three cases mostly wait (on the scripted server, on processes starting): they run at once,
 * each with task queues of its own, so that no case's worker serves another's sweep (the Ctrl-C
 * case needs its sweep to have no worker left).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, it } from 'vitest';
import { getText, putObject } from '../../infra/s3.js';
import { spendLedgerWorkflowId, sweepResultsKey, sweepWorkflowId } from '../../domain/sweep/keys.js';
import { SA_PAUSED_FOR } from '../../domain/config/searchAttributes.js';
import { TASK_WINDOW } from '../../workflows/sweepShard.js';
import { sweepProgressQuery } from '../../workflows/sweep.js';
import type { spendLedgerWorkflow } from '../../workflows/spendLedger.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { sleep, waitUntil } from '../support/poll.js';
import { killHard, runTs, spawnTs } from '../support/processes.js';
import { connectClient } from '../support/temporal.js';
import { workflowBundle } from '../support/workflow-env.js';
import { countTokens, startScriptedLlmServer } from '../support/scripted-llm-server.js';
import {
  HUMANEVAL,
  HUMANEVAL_DATASETS_YAML,
  oneSampleDirectYaml,
  scriptedAnswers,
  scriptedModelYaml,
  scriptedSweepFixture,
  sweepDrained,
} from './support.js';

const { config } = testConfig();
const TASKS = 30;
const ANSWER_MS = 300;
const FINGERPRINT = 'fp_scripted_42';
// A model name of this run's own: the tests' bucket is shared by every run, and a scripted server
// may get the port of an earlier run's, so that the same requests to the same URL would be answered
// from that run's cache (a run then saw none of the 6 requests it expected).
const MODEL = `scripted-${uniqueSuffix()}`;
// The fixture's server answers the unbudgeted sweep; the budgeted one asks a server of its own (another
// base URL: nothing of the first is in its cache).
const { bucket, dir, problems, server } = scriptedSweepFixture(config, 'budget', TASKS, ANSWER_MS);
// The workers' workflow bundle, built once here when this version of the code has none kept, not
// by the cases' three start-sweep processes at once (each then waited minutes on a loaded machine).
beforeAll(async () => {
  await workflowBundle();
}, 600_000);

function writeConfig(id: string, url: string, budget: string, datasets = HUMANEVAL_DATASETS_YAML): string {
  const file = path.join(dir, `${id}.yaml`);
  writeFileSync(
    file,
    `id: ${id}
${datasets}models:
${scriptedModelYaml('plain', url, MODEL, 'completions')}${oneSampleDirectYaml(TASKS)}${budget}`,
  );
  return file;
}

async function cellResults(id: string) {
  const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!);
  const detail = JSON.parse((await getText(bucket, results.cells[0].resultsKey))!);
  return { summary: results.cells[0], detail };
}

describe.concurrent('budgets', () => {
  it('a budget reached mid-sweep pauses it, says why, and raising it resumes it with every request sent once', async ({ expect }) => {
    const { config, env } = testConfig();
    // The same sweep without a budget runs meanwhile, on task queues of its own (neither sweep's
    // worker serves the other's), against the fixture's server; its figures are compared at the end.
    // It reads HumanEval from the store: an s3:// dataset loads and runs, its results those of the
    // same tasks read from the file (below).
    const key = `test-inputs/${uniqueSuffix()}/HumanEval.jsonl.gz`;
    await putObject(bucket, key, readFileSync(HUMANEVAL));
    const fromStore = `datasets:\n  - name: humaneval\n    family: humaneval\n    path: s3://${bucket.name}/${key}\n`;
    const plainId = `budget-plain-${uniqueSuffix()}`;
    const plain = spawnTs(
      'scripts/start-sweep.ts',
      ['--config', writeConfig(plainId, server().url, '', fromStore), '--no-progress'],
      testConfig().env,
    );
    const own = await startScriptedLlmServer(scriptedAnswers(problems, new Map(), ANSWER_MS), {
      systemFingerprint: FINGERPRINT,
    });
    const { client, close } = await connectClient(config);
    const id = `budget-${uniqueSuffix()}`;
    // A third of what the prompts cost (the server counts a prompt's tokens by countTokens): the
    // sweep stops well before its end (its answers' tokens come on top).
    const cap = Math.round(problems.reduce((sum, p) => sum + countTokens(p.prompt), 0) / 3);
    const raised = cap * 1000;
    const file = writeConfig(id, own.url, `budget:\n  tokens: ${cap}\n`);
    // With progress (not a TTY: lines), which says when the sweep is paused and why.
    const sweep = spawnTs('scripts/start-sweep.ts', ['--config', file], env);
    let unbudgeted!: Awaited<ReturnType<typeof cellResults>>;
    let allTokens!: number;
    try {
      const handle = client.workflow.getHandle(sweepWorkflowId(id));
      const heldFor = await waitUntil(
        async () => {
          const p = await handle.query(sweepProgressQuery).catch(() => null);
          return p?.pausedFor?.startsWith('budget') ? p.pausedFor : undefined;
        },
        { what: () => `the sweep to hold on its budget:\n${sweep.output()}`, timeoutMs: 120_000, intervalMs: 100 },
      );
      const atHold = own.requests().length;
      expect(heldFor).toMatch(new RegExp(`^budget: budget\\.tokens \\d+ of ${cap} spent \\(a task costs ~\\d+\\)$`));
      // What was in the task window finishes; nothing else starts.
      const afterDrain = await sweepDrained(client, id, own, 60_000);
      expect(afterDrain).toBeLessThanOrEqual(atHold + TASK_WINDOW);
      expect(afterDrain).toBeLessThan(TASKS);
      await sleep(1500);
      expect(own.requests().length).toBe(afterDrain);

      // The reason is a search attribute (a Web UI column), and sweep-status says it.
      const attributes = (await handle.describe()).typedSearchAttributes;
      expect(attributes.get(SA_PAUSED_FOR)).toBe(heldFor);
      const status = await runTs('scripts/sweep-status.ts', [id], env);
      expect(status.output).toMatch(/\(paused\)/);
      expect(status.output).toContain(`paused for ${heldFor}`);
      expect(status.output).toMatch(/spent [\d,]+ tokens; forecast remaining ~[\d,]+ tokens; budgets budget\.tokens \d+/);
      // A user's resume does not lift a budget's hold.
      const resume = await runTs('scripts/sweep-status.ts', [id, '--resume'], env);
      expect(resume.code, resume.output).toBe(0);
      await sleep(1500);
      expect(own.requests().length).toBe(afterDrain);
      expect((await handle.query(sweepProgressQuery)).pausedFor).toBe(heldFor);

      // Raised in the config, start-sweep run again (the same sweep: a budget is not in its hash).
      writeConfig(id, own.url, `budget:\n  tokens: ${raised}\n`);
      const again = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-wait', '--worker', 'external'], env);
      expect(again.code, again.output).toBe(0);
      expect(again.output).toContain(`budgets set to the config's (budget.tokens ${raised})`);
      const { code } = await sweep.exited;
      expect(code, sweep.output()).toBe(0);
      expect(sweep.output()).toContain(`sweep ${id}: paused for ${heldFor}`);
      expect((await handle.describe()).typedSearchAttributes.get(SA_PAUSED_FOR)).toBe('');

      // The tasks' costs went to the sweep's ledger, not into the sweep's own history: the sweep
      // heard only the ledger's two verdicts (the hold and its release).
      const signals = (await handle.fetchHistory()).events!.flatMap((e) => e.workflowExecutionSignaledEventAttributes?.signalName ?? []);
      expect(signals).not.toContain('spend');
      expect(signals.filter((name) => name === 'budget-hold')).toHaveLength(2);
      const ledger = await client.workflow.getHandle<typeof spendLedgerWorkflow>(spendLedgerWorkflowId(id)).result();
      expect(ledger.spentByModel.plain).toMatchObject({ tasks: TASKS });
      const plainExit = await plain.exited;
      expect(plainExit.code, plain.output()).toBe(0);
      unbudgeted = await cellResults(plainId);
      expect(unbudgeted.summary.tasks).toBe(TASKS);
      allTokens = unbudgeted.summary.cost.promptTokens + unbudgeted.summary.cost.completionTokens;
      expect(allTokens).toBeGreaterThan(3 * cap);
      expect(ledger.spentByModel.plain!.promptTokens + ledger.spentByModel.plain!.completionTokens).toBe(allTokens);
    } finally {
      await killHard(plain);
      await killHard(sweep);
      await close();
      await own.close();
    }
    // Every task asked exactly once, and the results are the unbudgeted sweep's.
    const keys = own.requests().map((r) => r.key);
    expect(keys).toHaveLength(TASKS);
    expect(new Set(keys).size).toBe(TASKS);
    const budgeted = await cellResults(id);
    expect(budgeted.detail.per_task).toEqual(unbudgeted.detail.per_task);
    expect(budgeted.summary.passAtK).toEqual(unbudgeted.summary.passAtK);
    expect(budgeted.summary.cost.promptTokens + budgeted.summary.cost.completionTokens).toBe(allTokens);
    // The server's fingerprint is the cell's provenance; the first server sent none.
    expect(budgeted.detail.provenance.model.system_fingerprints).toEqual([FINGERPRINT]);
    expect(unbudgeted.detail.provenance.model).not.toHaveProperty('system_fingerprints');
  });

  it('a tiny cap holds within the task window, a paused sweep left by Ctrl-C resumes when its budget is raised, and the end says what was spent', async ({
    expect,
  }) => {
    const { config, env } = testConfig();
    const own = await startScriptedLlmServer(scriptedAnswers(problems, new Map(), ANSWER_MS));
    const { client, close } = await connectClient(config);
    const id = `budget-tiny-${uniqueSuffix()}`;
    const file = writeConfig(id, own.url, 'budget:\n  tokens: 10\n');
    const sweep = spawnTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
    let again: ReturnType<typeof spawnTs> | undefined;
    try {
      const handle = client.workflow.getHandle(sweepWorkflowId(id));
      await waitUntil(
        async () => {
          const p = await handle.query(sweepProgressQuery).catch(() => null);
          return p?.pausedFor?.startsWith('budget') ? true : undefined;
        },
        { what: () => `the sweep to hold on its budget:\n${sweep.output()}`, timeoutMs: 120_000, intervalMs: 100 },
      );
      // The first answer passes the cap: only the tasks of the window, started before it, are
      // answered (before the shard asked the ledger, those its lanes started while the pause came
      // down were too: 12-14 of them).
      const answered = await sweepDrained(client, id, own, 60_000);
      expect(answered).toBeLessThanOrEqual(TASK_WINDOW);
      await sleep(1500);
      expect(own.requests().length).toBe(answered);

      // Ctrl-C: no worker serves the paused sweep any more.
      sweep.child.kill('SIGINT');
      const detached = await sweep.exited;
      expect(detached.code, sweep.output()).toBe(0);
      // sweep-status without a worker: the progress Temporal and S3 hold, why it is paused, how to resume.
      const status = await runTs('scripts/sweep-status.ts', [id], env);
      expect(status.code, status.output).toBe(0);
      expect(status.output).toMatch(/no worker answers for it/);
      expect(status.output).toMatch(/^cells: 0\/1 done \(paused\)$/m);
      expect(status.output).toMatch(/^paused for budget: budget\.tokens \d+ of 10 spent/m);
      expect(status.output).toMatch(/^ {2}humaneval\.plain\.direct\.t0\.2: running/m);
      expect(status.output).toContain(`npm run sweep -- --config <its config file> --id ${id}`);
      expect(status.output).toMatch(/raise budget: in the config first/);

      // Raised, and the same command again: it resumes the sweep and follows it to the end.
      writeConfig(id, own.url, `budget:\n  tokens: 100000000\n`);
      again = spawnTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
      let exit: { code: number | null } | undefined;
      void again.exited.then((e) => (exit = e));
      const ended = await waitUntil(() => exit, {
        what: () => `the resumed sweep to end:\n${again!.output()}`,
        timeoutMs: 180_000,
      });
      expect(ended.code, again.output()).toBe(0);
      expect(again.output()).toContain("budgets set to the config's (budget.tokens 100000000)");
      expect(again.output()).not.toContain('started before budgets existed');
      expect(again.output()).toMatch(/^budget budget\.tokens: spent [\d,]+ of 100,000,000 \(0%\)$/m);
    } finally {
      await killHard(sweep);
      if (again) await killHard(again);
      await close();
      await own.close();
    }
    const keys = own.requests().map((r) => r.key);
    expect(keys).toHaveLength(TASKS);
    expect(new Set(keys).size).toBe(TASKS);
  });

  it('a sweep that passed its cap with the tasks already started says so at its end', async ({ expect }) => {
    const { env } = testConfig();
    const own = await startScriptedLlmServer(scriptedAnswers(problems, new Map(), ANSWER_MS));
    const id = `budget-over-${uniqueSuffix()}`;
    const tasks = 6;
    // Six tasks all start at once (the window is 8), before any has cost anything: the cap is passed.
    const file = path.join(dir, `${id}.yaml`);
    writeFileSync(
      file,
      `id: ${id}\n${HUMANEVAL_DATASETS_YAML}models:\n${scriptedModelYaml('plain', own.url, MODEL, 'completions')}${oneSampleDirectYaml(tasks)}budget:\n  tokens: 1\n`,
    );
    try {
      const dry = await runTs('scripts/start-sweep.ts', ['--config', file, '--dry-run', '--no-cache-forecast'], env);
      expect(dry.code, dry.output).toBe(0);
      expect(dry.output).toMatch(/^warning: budget\.tokens 1: below the forecast's maximum \(at most [\d,]+; no expected figure/m);
      const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
      expect(run.code, run.output).toBe(0);
      expect(run.output).toMatch(/^budget budget\.tokens: spent [\d,]+ of 1: OVER the cap by [\d,]+ \(the tasks already started/m);
    } finally {
      await own.close();
    }
    expect(own.requests()).toHaveLength(tasks);
  });
});
