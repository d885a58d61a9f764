/**
 * The model server's edges: with every slot busy and the queue full it answers 429 with Retry-After,
 * closing answers the running and waiting requests 503 and frees the port, and the CLI prints its
 * URL, serves, and stops on SIGTERM.
 */
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { OtherCpuLoad, threadsFor } from '../../stack/model-server/cpu-load.js';
import { startModelServer, type ModelServer } from '../../stack/model-server/index.js';
import { sleep, waitUntil } from '../support/poll.js';
import { killHard, spawnTs, type Spawned } from '../support/processes.js';
import { expectApiError, get, installedModelPath, post } from './support.js';

const MODEL = 'qwen2.5-coder-0.5b-instruct';
const servers: ModelServer[] = [];
const children: Spawned[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await Promise.all(children.splice(0).map((c) => killHard(c)));
});

async function serve(options: { maxQueue?: number; threads?: number | 'auto'; slots?: number } = {}): Promise<ModelServer> {
  const server = await startModelServer({ host: '127.0.0.1', port: 0, modelPath: installedModelPath(), slots: 2, ...options });
  servers.push(server);
  return server;
}

const slow = { model: MODEL, prompt: 'def quicksort(items):\n', max_tokens: 16, temperature: 0 };

describe('model server lifecycle', () => {
  it('with every slot busy and the queue full, further requests get 429 with Retry-After; the accepted ones are answered', async () => {
    const server = await serve({ maxQueue: 1, slots: 2 });
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
    const server = await serve({ slots: 1 });
    const running = post(server.url, '/completions', { ...slow, max_tokens: 200 });
    await sleep(300);
    const waiting = post(server.url, '/completions', slow);
    await sleep(200);
    const started = Date.now();
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    // The 200-token request did not run to its end: it was stopped between tokens.
    expect(Date.now() - started).toBeLessThan(10_000);
    expectApiError(await running, 503, { type: 'server_error' });
    expectApiError(await waiting, 503, { type: 'server_error' });
    await expect(get(server.url, '/models')).rejects.toThrow();
  });

  // A stop signal, once or twice 2 ms apart, with a request in flight: that request is answered
  // (503, for its client to retry), the process exits 0; the second signal does not cut it short.
  for (const [signal, times] of [
    ['SIGTERM', 1],
    ['SIGINT', 2],
  ] as const) {
    it(`CLI: prints the URL when ready, serves, stops cleanly on ${signal}${times === 2 ? ' sent twice' : ''} with a request in flight`, async () => {
      const child = spawnTs('scripts/model-server.ts', ['--host', '127.0.0.1', '--port', '0', '--model', installedModelPath()], {
        EXPLORA_MODEL_SLOTS: '2',
      });
      children.push(child);
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

  it('CLI: a missing model file or a bad port is refused with a message that says what to do', async () => {
    const missing = spawnTs('scripts/model-server.ts', ['--port', '0', '--model', '/nonexistent/smollm2-135m-instruct.gguf'], {});
    children.push(missing);
    expect((await missing.exited).code).toBe(1);
    expect(missing.output()).toContain('bash scripts/install-model.sh smollm2-135m-instruct');
    const badPort = spawnTs('scripts/model-server.ts', [], { EXPLORA_MODEL_PORT: 'eighty' });
    children.push(badPort);
    expect((await badPort.exited).code).toBe(1);
    expect(badPort.output()).toContain('EXPLORA_MODEL_PORT');
    const badSlots = spawnTs('scripts/model-server.ts', [], { EXPLORA_MODEL_SLOTS: '0' });
    children.push(badSlots);
    expect((await badSlots.exited).code).toBe(1);
    expect(badSlots.output()).toContain('EXPLORA_MODEL_SLOTS must be a number of sequences (1-256)');
  });
});

describe('model server threads', () => {
  it('1 and 2 threads give the same seeded samples (what lets the server pick per request)', async () => {
    const texts: string[][] = [];
    for (const threads of [1, 2]) {
      const server = await serve({ threads, slots: 1 });
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
      servers.splice(servers.indexOf(server), 1);
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
