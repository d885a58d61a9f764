/**
 * Ctrl-C under `npm run sweep`, as a terminal sends it: SIGINT to the whole foreground process group,
 * so node gets it from the terminal and again from npm, which passes it on. One press is one stop
 * (nothing is "ignored: already stopping"), no request starts after it, the requests in flight are
 * cancelled at the in-process workers' grace (they would take longer), and the command returns
 * within 10 s. Run again, the sweep finishes: every answer received before the press is kept, only
 * the cancelled requests are asked again.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { waitUntil } from '../support/poll.js';
import { runTs } from '../support/processes.js';
import { startScriptedLlmServer } from '../support/scripted-llm-server.js';
import { HUMANEVAL_DATASETS_YAML, identify, scriptedAnswers, scriptedModelYaml, scriptedSweepFixture, SWEEP_SEED } from './support.js';

const { config, env } = testConfig();
const TASKS = 4;
const N = 3;
const fx = scriptedSweepFixture(config, 'ctrl-c', TASKS, 0);

describe('Ctrl-C under npm run sweep', () => {
  it('one press: one stop, no request after it, requests in flight cancelled at the grace, back within 10 s; answers kept', async () => {
    // Until the press, the even tasks' answers take longer than the in-process workers' 5 s grace
    // (cut at it), the odd tasks' less (their activity would go on to the next sample within it);
    // after it, answers are quick.
    let pressed = false;
    const answers = scriptedAnswers(fx.problems);
    const server = await startScriptedLlmServer((req) => {
      const reply = answers(req);
      if (pressed || !('content' in reply)) return reply;
      return { ...reply, delayMs: identify(req, fx.problems).problem.index % 2 === 0 ? 9_000 : 1_500 };
    });
    const id = `ctrl-c-${uniqueSuffix()}`;
    const file = path.join(fx.dir, `${id}.yaml`);
    writeFileSync(
      file,
      `id: ${id}\n${HUMANEVAL_DATASETS_YAML}models:\n${scriptedModelYaml('m', server.url, 'scripted-completions', 'completions')}` +
        `methods: [direct]\ntemperatures: [0.5]\nn_samples: ${N}\nk: [1]\nlimit: ${TASKS}\ntimeout_s: 5\nseed: ${SWEEP_SEED}\n`,
    );
    // Its own process group, as a terminal's foreground job.
    const npm = spawn('npm', ['run', '--silent', 'sweep', '--', '--config', file, '--no-progress'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    npm.stdout.on('data', (d) => (out += d));
    npm.stderr.on('data', (d) => (out += d));
    let exit: { code: number | null; at: number } | undefined;
    npm.on('exit', (code) => (exit = { code, at: Date.now() }));
    try {
      // Some answers in (a task's samples are asked one after another), and requests in flight, one of
      // them an even task's (its 9 s answer outlasts the grace, so the stop must cut it).
      const slowInFlight = () =>
        server
          .requests()
          .some(
            (r) =>
              r.answeredAt === undefined &&
              r.api === 'completions' &&
              identify({ api: r.api, body: r.body } as never, fx.problems).problem.index % 2 === 0,
          );
      await waitUntil(() => server.requests().some((r) => r.answeredAt !== undefined) && server.inFlight().now > 1 && slowInFlight(), {
        timeoutMs: 120_000,
        what: () => `answers and a request in flight:\n${out}`,
      });
      const answeredBefore = server.requests().filter((r) => r.answeredAt !== undefined);
      const pressedAt = Date.now();
      process.kill(-npm.pid!, 'SIGINT');
      pressed = true;
      await waitUntil(() => exit, { timeoutMs: 60_000, what: () => `the command to return:\n${out}` });
      // Requests still unanswered as it returned: cut at the grace, not waited for.
      const cut = server.requests().filter((r) => r.answeredAt === undefined);
      expect(exit!.code, out).toBe(0);
      expect(exit!.at - pressedAt, out).toBeLessThan(10_000);
      expect(out).toMatch(/start-sweep: SIGINT: detaching/);
      expect(out).not.toMatch(/ignored: already stopping/);
      expect(out).toMatch(/detached from sweep/);
      // No request started after the press (a request on the wire as it came may still be read).
      const late = server.requests().filter((r) => r.time > pressedAt + 200);
      expect(late, out).toEqual([]);
      expect(cut.length, out).toBeGreaterThan(0);

      // Run again: it finishes; the answers received before the press are not asked again.
      const again = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
      expect(again.code, again.output).toBe(0);
      const byKey = new Map<string, number>();
      for (const r of server.requests()) byKey.set(r.key, (byKey.get(r.key) ?? 0) + 1);
      expect(byKey.size).toBe(TASKS * N);
      for (const r of answeredBefore) expect(byKey.get(r.key)).toBe(1);
    } finally {
      if (!exit)
        try {
          process.kill(-npm.pid!, 'SIGKILL');
        } catch {
          /* gone */
        }
      await server.close();
    }
  });
});
