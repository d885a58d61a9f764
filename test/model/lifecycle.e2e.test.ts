/**
 * The model server's edges: with every slot busy and the queue full it answers 429 with Retry-After,
 * closing answers the running and waiting requests 503 and frees the port, and the CLI prints its
 * URL, serves, and stops on SIGTERM.
 *
 * The in-process servers run one at a time: they share node-llama-cpp's native binding (one per
 * process), which a server's close() disposes. The cases that only spawn processes or watch the CPU
 * run at once with the threads case, which mostly waits for its servers' tokens.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { OtherCpuLoad, threadsFor } from '../../stack/model-server/cpu-load.js';
import { startModelServer, type ModelServer } from '../../stack/model-server/index.js';
import { sleep, waitUntil } from '../support/poll.js';
import { killHard, spawnTs, type Spawned } from '../support/processes.js';
import { expectApiError, get, installedModelPath, post } from './support.js';

const MODEL = 'qwen2.5-coder-0.5b-instruct';
/** An in-process server of this test's own, closed when the test ends (close() may come first: it is idempotent). */
async function serve(ctx: TestContext, options: { threads?: number | 'auto'; slots?: number } = {}): Promise<ModelServer> {
  const server = await startModelServer({ host: '127.0.0.1', port: 0, modelPath: installedModelPath(), slots: 2, ...options });
  ctx.onTestFinished(() => server.close());
  return server;
}

/** A CLI process of this test's own, killed when the test ends (concurrent cases share no cleanup list). */
function spawnCli(ctx: TestContext, args: string[], env: Record<string, string>): Spawned {
  const child = spawnTs('scripts/model-server.ts', args, env);
  ctx.onTestFinished(() => killHard(child));
  return child;
}

const slow = { model: MODEL, prompt: 'def quicksort(items):\n', max_tokens: 16, temperature: 0 };

describe('model server lifecycle: one server, 2 slots and a queue of 1', () => {
  // The 429 case, then close() on the same server (one model load for both).
  let server: ModelServer;
  beforeAll(async () => {
    server = await startModelServer({ host: '127.0.0.1', port: 0, modelPath: installedModelPath(), slots: 2, maxQueue: 1 });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('with every slot busy and the queue full, further requests get 429 with Retry-After; the accepted ones are answered', async () => {
    // Two take the slots, one waits, two are refused.
    const answers = await Promise.all([0, 1, 2, 3, 4].map(() => post(server.url, '/completions', slow)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    for (const a of answers.filter((x) => x.status === 429)) {
      expectApiError(a, 429, { code: 'rate_limit_exceeded', message: /busy/ });
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // The answered ones are the same greedy completion.
    const ok = answers.filter((x) => x.status === 200);
    expect(new Set(ok.map((x) => x.body.choices[0].text)).size).toBe(1);
    expect(ok[0]!.body.usage.completion_tokens).toBe(16);
  });

  it('close(): the running and the waiting requests get 503, then the port is free', async () => {
    // Both slots run a long request, a third waits.
    const running = [0, 1].map(() => post(server.url, '/completions', { ...slow, max_tokens: 200 }));
    await sleep(300);
    const waiting = post(server.url, '/completions', slow);
    await sleep(200);
    const started = Date.now();
    await server.close();
    // The 200-token requests did not run to their end: they were stopped between tokens.
    expect(Date.now() - started).toBeLessThan(10_000);
    for (const r of running) expectApiError(await r, 503, { type: 'server_error' });
    expectApiError(await waiting, 503, { type: 'server_error' });
    await expect(get(server.url, '/models')).rejects.toThrow();
  });
});

// Processes of their own, and a CPU watch: at once with the threads case (below), which waits on
// its in-process servers meanwhile.
describe.concurrent('model server CLI and threads', () => {
  // A stop signal, once or twice 2 ms apart, with a request in flight: that request is answered
  // (503, for its client to retry), the process exits 0; the second signal does not cut it short.
  for (const [signal, times] of [
    ['SIGTERM', 1],
    ['SIGINT', 2],
  ] as const) {
    it(`CLI: prints the URL when ready, serves, stops cleanly on ${signal}${times === 2 ? ' sent twice' : ''} with a request in flight`, async (ctx) => {
      const child = spawnCli(ctx, ['--host', '127.0.0.1', '--port', '0', '--model', installedModelPath()], {
        EXPLORA_MODEL_SLOTS: '2',
      });
      const url = await waitUntil(() => /^(http:\/\/127\.0\.0\.1:\d+\/v1)$/m.exec(child.output())?.[1], {
        what: () => `the server's URL on its output:\n${child.output()}`,
        timeoutMs: 120_000,
        intervalMs: 200,
      });
      const models = await get(url, '/models');
      expect(models.body.data[0].id).toBe(MODEL);
      const answer = await post(url, '/completions', { model: MODEL, prompt: 'x = ', max_tokens: 2 });
      expect(answer.status).toBe(200);
      // Settled either way, so that a failure shows in the assertion below, not as an unhandled rejection.
      const inFlight = post(url, '/completions', { ...slow, max_tokens: 400 }).catch((err: Error) => err);
      const root = url.replace(/\/v1$/, '');
      await waitUntil(async () => (await get(root, '/health')).body.queue.running || undefined, {
        what: () => `a request running:\n${child.output()}`,
        timeoutMs: 30_000,
      });
      child.child.kill(signal);
      if (times === 2) {
        await sleep(2);
        child.child.kill(signal);
      }
      const exit = await child.exited;
      expect(exit, child.output()).toEqual({ code: 0, signal: null });
      expect(child.output()).toMatch(/POST \/v1\/completions 200/);
      expect(child.output()).toContain(`model-server: ${signal}: stopping`);
      expect(child.output()).toMatch(/loaded in [\d.]+ s, 2 slots/);
      const last = await inFlight;
      if (last instanceof Error) throw last;
      expect([200, 503], JSON.stringify(last.body)).toContain(last.status);
    });
  }

  it('CLI: a missing model file or a bad port is refused with a message that says what to do', async (ctx) => {
    // Three processes that fail before loading anything: started together.
    const missing = spawnCli(ctx, ['--port', '0', '--model', '/nonexistent/smollm2-135m-instruct.gguf'], {});
    const badPort = spawnCli(ctx, [], { EXPLORA_MODEL_PORT: 'eighty' });
    const badSlots = spawnCli(ctx, [], { EXPLORA_MODEL_SLOTS: '0' });
    expect((await missing.exited).code).toBe(1);
    expect(missing.output()).toContain('bash scripts/install-model.sh smollm2-135m-instruct');
    expect((await badPort.exited).code).toBe(1);
    expect(badPort.output()).toContain('EXPLORA_MODEL_PORT');
    expect((await badSlots.exited).code).toBe(1);
    expect(badSlots.output()).toContain('EXPLORA_MODEL_SLOTS must be a number of sequences (1-256)');
  });

  it('1 and 2 threads give the same seeded samples (what lets the server pick per request)', async (ctx) => {
    const texts: string[][] = [];
    // One server after the other (see above).
    for (const threads of [1, 2]) {
      const server = await serve(ctx, { threads, slots: 1 });
      const answers = [];
      for (const seed of [11, 12]) {
        const r = await post(server.url, '/completions', {
          model: MODEL,
          prompt: 'import random\n\ndef roll_dice(sides):\n',
          max_tokens: 16,
          temperature: 1,
          seed,
        });
        expect(r.headers.get('x-explora-threads')).toBe(String(threads));
        answers.push(r.body.choices[0].text as string);
      }
      texts.push(answers);
      await server.close();
    }
    expect(texts[1]).toEqual(texts[0]);
    expect(texts[0]![0]).not.toBe(texts[0]![1]);
  });

  it('auto: one thread when other processes keep a core busy, two when they leave both free', async () => {
    expect([threadsFor(0, 2, 2), threadsFor(0.4, 2, 2), threadsFor(0.7, 2, 2), threadsFor(3, 2, 2), threadsFor(1, 8, 8)]).toEqual([
      2, 2, 1, 1, 7,
    ]);
    const load = new OtherCpuLoad(250);
    try {
      // A process of our own spinning for 3 s is another process's load as far as the server is concerned.
      const burner = spawn(process.execPath, ['-e', 'const end = Date.now() + 3000; while (Date.now() < end);'], { stdio: 'ignore' });
      const exited = new Promise((r) => burner.on('exit', r));
      await sleep(2500);
      expect(load.otherCores()).toBeGreaterThan(0.6);
      await exited;
    } finally {
      load.stop();
    }
  });
});
