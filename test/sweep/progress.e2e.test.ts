/**
 * What a sweep's progress says when it cannot make progress: with --worker external and no worker
 * on a queue the sweep needs, a warning names the queues and the command that serves them; when
 * Temporal does not answer, the display says so instead of freezing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { sweepWorkflowId } from '../../domain/sweep/keys.js';
import { showSweepProgress } from '../../scripts/lib/sweep-view.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { waitUntil } from '../support/poll.js';
import { killHard, spawnTs } from '../support/processes.js';
import { HUMANEVAL_DATASETS_YAML, humanEvalProblems, oneSampleDirectYaml, scriptedAnswers, scriptedModelYaml } from './support.js';
import { startScriptedLlmServer } from '../support/scripted-llm-server.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-progress-'));
/** A sweep seed no earlier run used: its requests are new to the LLM cache, so the scripted server answers them. */
const freshSeed = () => Math.floor(Math.random() * 0xffff_fff0);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The cases run at once: each has its own queues, sweep, endpoints and seed, and mostly waits (on the
// scripted answers' delays, the unserved queues' grace).
describe.concurrent('progress that tells the truth', () => {
  it('--worker external with no worker: a warning names the unserved queues and the command that serves them', async () => {
    // Queues of their own: no worker of any other test serves them.
    const prefix = `lonely-${uniqueSuffix()}`;
    const { config, env } = testConfig({ EXPLORA_TASK_QUEUE_PREFIX: prefix });
    const id = `unserved-${uniqueSuffix()}`;
    const file = path.join(dir, `${id}.yaml`);
    // An endpoint that answers: start-sweep checks the model before it starts anything.
    const llm = await startScriptedLlmServer(() => ({ content: '' }));
    writeFileSync(
      file,
      `id: ${id}\n${HUMANEVAL_DATASETS_YAML}models:\n${scriptedModelYaml('m', llm.url, 'x', 'completions')}${oneSampleDirectYaml(1)}`,
    );
    const p = spawnTs('scripts/start-sweep.ts', ['--config', file, '--worker', 'external', '--no-progress'], env);
    try {
      const output = await waitUntil(() => (/no worker serves/.test(p.output()) ? p.output() : undefined), {
        timeoutMs: 60_000,
        intervalMs: 500,
        what: () => `the warning, in:\n${p.output()}`,
      });
      expect(output).toContain(`no worker serves ${prefix}-workflows, ${prefix}-storage, ${prefix}-sandbox, ${prefix}-llm-`);
      expect(output).toMatch(/npm run worker -- --queues workflows,storage,sandbox,llm --sweep-config \S+\.yaml/);
    } finally {
      await killHard(p);
      const connection = await Connection.connect({ address: config.temporal.address });
      await new Client({ connection, namespace: config.temporal.namespace }).workflow
        .getHandle(sweepWorkflowId(id))
        .terminate('test done')
        .catch(() => undefined);
      await connection.close();
      await llm.close();
    }
  });

  it('answers are counted while the shard still generates, apart from the executed samples', async () => {
    const { env } = testConfig();
    const problems = humanEvalProblems(8);
    const server = await startScriptedLlmServer(scriptedAnswers(problems, new Map(), 400));
    try {
      const id = `answered-${uniqueSuffix()}`;
      const file = path.join(dir, `${id}.yaml`);
      // One cell, one shard of 8 tasks x 2 samples; one request at a time, 0.4 s each: ~6 s of answers before any sample runs.
      writeFileSync(
        file,
        `id: ${id}\n${HUMANEVAL_DATASETS_YAML}models:\n${scriptedModelYaml('m', server.url, 'scripted', 'completions').replace('concurrency: 2', 'concurrency: 1')}` +
          'methods: [direct]\ntemperatures: [0.2]\nn_samples: 2\nk: [1]\nlimit: 8\ntimeout_s: 5\n',
      );
      // Progress on, output not a terminal: a line per tenth of answers or of executed samples.
      const p = spawnTs('scripts/start-sweep.ts', ['--config', file], env);
      const { code } = await p.exited;
      const output = p.output();
      expect(code, output).toBe(0);
      const seen = [
        ...output.matchAll(
          /running samples answered (\d+)\/16 executed (\d+)\/16 tasks \d+\/8 cut 0 pass@1 \S+ ETA (\S+) calls (\d+) tokens (\d+)/g,
        ),
      ].map((m) => ({ answered: Number(m[1]), executed: Number(m[2]), eta: m[3]!, calls: Number(m[4]), tokens: Number(m[5]) }));
      // Some answers were counted while nothing had run yet, and the count grew.
      const whileGenerating = seen.filter((l) => l.executed === 0 && l.answered > 0 && l.answered < 16);
      expect(whileGenerating.length, output).toBeGreaterThan(0);
      expect(new Set(whileGenerating.map((l) => l.answered)).size, output).toBeGreaterThan(1);
      // Calls and tokens grow with the answers, before the shard ends; the ETA comes from the answer
      // rate then (one answer a request here: calls = answered).
      for (const l of whileGenerating) {
        expect(l.calls, output).toBe(l.answered);
        expect(l.tokens, output).toBeGreaterThan(0);
        expect(l.eta, output).toMatch(/^\d+s$/);
      }
      expect(Math.max(...whileGenerating.map((l) => l.calls)), output).toBeGreaterThan(Math.min(...whileGenerating.map((l) => l.calls)));
      // The sweep then ran and scored all of them.
      expect(output).toMatch(/humaneval\.m\.direct\.t0\.2\s+8\s+16\s/);
    } finally {
      await server.close();
    }
  });

  it("a task's samples count as each is answered, before the task is; answers cut at max_tokens are counted and warned of", async () => {
    const { env } = testConfig();
    const problems = humanEvalProblems(1);
    const answers = scriptedAnswers(problems, new Map(), 800);
    // Every answer stops at max_tokens, as the endpoint says.
    const server = await startScriptedLlmServer((req) => ({ ...answers(req), finishReason: 'length' }));
    try {
      const id = `per-sample-${uniqueSuffix()}`;
      const file = path.join(dir, `${id}.yaml`);
      // One task of 10 samples, one request at a time, 0.8 s each: one LLM activity of ~8 s.
      writeFileSync(
        file,
        `id: ${id}\n${HUMANEVAL_DATASETS_YAML}models:\n${scriptedModelYaml('m', server.url, 'scripted', 'completions').replace('concurrency: 2', 'concurrency: 1')}` +
          // A seed of its own: no answer of an earlier run (a server on the same port) is in the LLM cache.
          `methods: [direct]\ntemperatures: [0.2]\nn_samples: 10\nk: [1]\nlimit: 1\ntimeout_s: 5\nseed: ${freshSeed()}\n`,
      );
      const p = spawnTs('scripts/start-sweep.ts', ['--config', file], env);
      const { code } = await p.exited;
      const output = p.output();
      expect(code, output).toBe(0);
      const seen = [...output.matchAll(/running samples answered (\d+)\/10 executed 0\/10 tasks 0\/1 cut (\d+) /g)].map((m) => ({
        answered: Number(m[1]),
        cut: Number(m[2]),
      }));
      // Answers of the one task were counted while it was still being answered, and so were the cut ones.
      const within = seen.filter((l) => l.answered > 0 && l.answered < 10);
      expect(within.length, output).toBeGreaterThan(0);
      for (const l of within) expect(l.cut, output).toBe(l.answered);
      expect(output).toMatch(/warning: humaneval\.m\.direct\.t0\.2: \d+ of \d+ answers so far were cut at max_tokens/);
      // The results say so too.
      expect(output).toMatch(/warning: humaneval\.m\.direct\.t0\.2: 10 of 10 answers were cut at max_tokens/);
    } finally {
      await server.close();
    }
  });

  it("a cell's results are shown as soon as it ends, while the others still run", async () => {
    const { env } = testConfig();
    const problems = humanEvalProblems(2);
    const fast = await startScriptedLlmServer(scriptedAnswers(problems));
    const slow = await startScriptedLlmServer(scriptedAnswers(problems, new Map(), 4000));
    try {
      const id = `first-results-${uniqueSuffix()}`;
      const file = path.join(dir, `${id}.yaml`);
      // Two cells one after another (max_parallel_cells: 1): the fast model's answers at once, then
      // the slow one's, 4 s each (two tasks: 8 s or more).
      writeFileSync(
        file,
        `id: ${id}\n${HUMANEVAL_DATASETS_YAML}models:\n${scriptedModelYaml('fast', fast.url, 'scripted', 'completions')}` +
          `${scriptedModelYaml('slow', slow.url, 'scripted', 'completions').replace('concurrency: 2', 'concurrency: 1')}` +
          `${oneSampleDirectYaml(2).replace(/^seed: .*$/m, `seed: ${freshSeed()}`)}max_parallel_cells: 1\n`,
      );
      const p = spawnTs('scripts/start-sweep.ts', ['--config', file], env);
      const { code } = await p.exited;
      const output = p.output();
      expect(code, output).toBe(0);
      const early = output.indexOf('finished while the sweep goes on:');
      expect(early, output).toBeGreaterThanOrEqual(0);
      // The fast cell's row, before the slow cell is done; the slow one's only in the final table.
      // The table ends with its footnote on cut answers.
      const block = output.slice(early, output.indexOf('cut: answers the endpoint cut', early));
      expect(block, output).toMatch(/\nhumaneval\.fast\.direct\.t0\.2\s+2\s+2\s/);
      expect(block, output).not.toMatch(/humaneval\.slow/);
      // The slow cell started only once the fast one was done: no line of it before the block.
      expect(output.slice(0, early), output).not.toMatch(/humaneval\.slow\.direct\.t0\.2: running/);
      expect(output.lastIndexOf('humaneval.slow.direct.t0.2 ')).toBeGreaterThan(early);
    } finally {
      await fast.close();
      await slow.close();
    }
  });

  it('a Temporal that does not answer: the display says so, once, instead of freezing', async () => {
    const connection = Connection.lazy({ address: '127.0.0.1:1' });
    const client = new Client({ connection, namespace: 'default' });
    const said: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((line: unknown) => void said.push(String(line)));
    try {
      const view = showSweepProgress(client, 'nowhere', true);
      await waitUntil(() => said.some((l) => l.includes('cannot query its progress')), {
        timeoutMs: 20_000,
        intervalMs: 200,
        what: 'the unreachable notice',
      });
      await new Promise((r) => setTimeout(r, 2500));
      await view.stop();
      // (Only its own lines: the other cases, running meanwhile, may write to the console too.)
      const notices = said.filter((l) => l.includes('cannot query its progress'));
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatch(
        /^sweep nowhere: cannot query its progress \(.+\); retrying every second\. The sweep carries on wherever workers serve it\.$/,
      );
    } finally {
      spy.mockRestore();
      await connection.close();
    }
  });
});
