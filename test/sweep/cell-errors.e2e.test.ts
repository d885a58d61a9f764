/**
 * A cell that only fails stops paying, on the real stack: a sweep of two cells, one of whose models
 * sits behind an endpoint that refuses every request (a 404). That cell holds after
 * stop_cell_on_errors.max_errors, having sent no more than its task window of requests; the other
 * cell goes on to its end; the progress, sweep-status and the cell's ExploraPausedFor say which cell,
 * how many errors and the last one (sweep-status too when no worker serves the sweep, after a
 * Ctrl-C). Once the endpoint is fixed, start-sweep run again releases it and the sweep completes,
 * every answer asked for once. The workflows' side (no task starts after the
 * limit, errors recorded as answers, sandbox setup failures, wrong answers) is
 * test/workflows/cell-errors.test.ts's.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SA_PAUSED_FOR } from '../../domain/config/searchAttributes.js';
import { cellWorkflowId, sweepResultsKey, sweepWorkflowId } from '../../domain/sweep/keys.js';
import { getText } from '../../infra/s3.js';
import { cellProgressQuery } from '../../workflows/sweepCell.js';
import { sweepProgressQuery } from '../../workflows/sweep.js';
import { TASK_WINDOW } from '../../workflows/sweepShard.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { sleep, waitUntil } from '../support/poll.js';
import { killHard, runTs, spawnTs } from '../support/processes.js';
import { startScriptedLlmServer } from '../support/scripted-llm-server.js';
import { connectClient } from '../support/temporal.js';
import {
  HUMANEVAL_DATASETS_YAML,
  oneSampleDirectYaml,
  scriptedAnswers,
  scriptedModelYaml,
  scriptedSweepFixture,
  requestsSettled,
} from './support.js';

const { config, env } = testConfig();
const TASKS = 20;
const ANSWER_MS = 200;
const MAX_ERRORS = 3;
const { bucket, dir, problems, server } = scriptedSweepFixture(config, 'cell-errors', TASKS, ANSWER_MS);

describe('a cell that only fails', () => {
  it('stops after its limit within the requests in flight, says why, lets the other cell finish, and resumes once fixed', async () => {
    // The broken endpoint: a 404 for every request until it is fixed, then the fixture's answers.
    let broken = true;
    const answers = scriptedAnswers(problems, new Map(), ANSWER_MS);
    const answered: string[] = [];
    const own = await startScriptedLlmServer((req) => {
      if (broken) return { status: 404, message: 'The model `scripted-typo` does not exist', delayMs: ANSWER_MS };
      answered.push(req.key);
      return answers(req);
    });
    const { client, close } = await connectClient(config);
    const id = `cell-errors-${uniqueSuffix()}`;
    const file = path.join(dir, `${id}.yaml`);
    writeFileSync(
      file,
      `id: ${id}
${HUMANEVAL_DATASETS_YAML}models:
${scriptedModelYaml('plain', server().url, 'scripted-completions', 'completions')}${scriptedModelYaml('broken', own.url, 'scripted-typo', 'completions')}${oneSampleDirectYaml(TASKS)}stop_cell_on_errors:
  max_errors: ${MAX_ERRORS}
`,
    );
    const brokenCell = 'humaneval.broken.direct.t0.2';
    // With progress (not a TTY: lines), which says when a cell holds and why.
    const sweep = spawnTs('scripts/start-sweep.ts', ['--config', file], env);
    let again: ReturnType<typeof spawnTs> | undefined;
    let finalOutput: string | undefined;
    const reason = new RegExp(
      `errors: cell ${brokenCell.replaceAll('.', '\\.')} stopped after \\d+ errors in \\d+ samples \\(\\d+%\\), over stop_cell_on_errors\\.max_errors ${MAX_ERRORS}; last error: model broken: .* answered 404`,
    );
    try {
      const cell = client.workflow.getHandle(cellWorkflowId(id, brokenCell));
      const hold = await waitUntil(async () => (await cell.query(cellProgressQuery).catch(() => null))?.errorHold, {
        what: () => `the broken cell to hold:\n${sweep.output()}`,
        timeoutMs: 120_000,
        intervalMs: 100,
      });
      expect(hold).toMatchObject({ cellId: brokenCell, limit: `max_errors ${MAX_ERRORS}` });
      expect(hold.errors).toBeGreaterThanOrEqual(MAX_ERRORS);
      expect(hold.lastError).toMatch(/answered 404 \(.*scripted-typo.* does not exist\)/);
      // The requests in flight end; none is sent after them.
      const refused = await requestsSettled(own, 4 * ANSWER_MS, 30_000);
      expect(refused).toBeLessThanOrEqual(TASK_WINDOW);
      // Why, from sweep-status: asked now, while the rest below waits.
      const statusRun = runTs('scripts/sweep-status.ts', [id], env);
      // The other cell goes on to its end meanwhile; 1.5 s at least with no request to the broken endpoint.
      const handle = client.workflow.getHandle(sweepWorkflowId(id));
      const [status] = await Promise.all([
        statusRun,
        sleep(1500),
        waitUntil(
          async () => (await handle.query(sweepProgressQuery)).cells.find((c) => c.id === 'humaneval.plain.direct.t0.2')?.state === 'done',
          { what: () => `the other cell to finish:\n${sweep.output()}`, timeoutMs: 120_000, intervalMs: 200 },
        ),
      ]);
      expect(own.requests()).toHaveLength(refused);

      // Why: sweep-status, the cell's search attribute, the progress lines.
      expect(status.code, status.output).toBe(0);
      expect(status.output).toMatch(reason);
      expect(status.output).toContain('run start-sweep again with the same config');
      expect((await cell.describe()).typedSearchAttributes.get(SA_PAUSED_FOR)).toMatch(reason);
      expect(sweep.output()).toMatch(reason);

      // Fixed, and the same command again: the cell is released and the sweep completes.
      // Ctrl-C: no worker serves the sweep; sweep-status still says why, from the search attributes.
      sweep.child.kill('SIGINT');
      const detached = await sweep.exited;
      expect(detached.code, sweep.output()).toBe(0);
      const offline = await runTs('scripts/sweep-status.ts', [id], env);
      expect(offline.code, offline.output).toBe(0);
      expect(offline.output).toMatch(/no worker answers for it/);
      expect(offline.output).toMatch(reason);

      // Fixed, and the same command again: once its workers serve the sweep, it releases the cell,
      // and follows the sweep to its end.
      broken = false;
      again = spawnTs('scripts/start-sweep.ts', ['--config', file], env);
      const { code } = await again.exited;
      expect(code, again.output()).toBe(0);
      finalOutput = again.output();
      expect(again.output()).toContain(`sweep ${id}: cell ${brokenCell} released (it held for errors: cell ${brokenCell} stopped after`);
      expect((await cell.describe()).typedSearchAttributes.get(SA_PAUSED_FOR)).toBe('');
      expect(own.requests().length - refused).toBe(TASKS);
    } finally {
      await killHard(sweep);
      if (again) await killHard(again);
      await close();
      await own.close();
    }
    // Every task answered once after the fix; the refusals cost nothing and were not recorded.
    expect(answered).toHaveLength(TASKS);
    expect(new Set(answered).size).toBe(TASKS);
    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!);
    const [plain, fixed] = results.cells;
    expect(fixed.cell.cell).toBe(brokenCell);
    expect(fixed.samples).toBe(TASKS);
    expect(fixed.cost.calls).toBe(TASKS);
    expect(fixed.passAtK).toEqual(plain.passAtK);
    // Its results say it held, and why; the other cell's say nothing of it.
    expect(fixed.cell.error_holds).toMatchObject({ count: 1 });
    expect(fixed.cell.error_holds.last).toMatch(reason);
    expect(plain.cell).not.toHaveProperty('error_holds');
    expect(finalOutput ?? '').toMatch(
      new RegExp(`^held on errors: ${brokenCell.replaceAll('.', '\\.')} 1 time\\(s\\), the last: errors: cell`, 'm'),
    );
  });
});
