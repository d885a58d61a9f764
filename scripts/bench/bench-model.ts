/**
 * `tsx scripts/bench/bench-model.ts [--model PATH] [--slots 8] [--n 1,5,10] [--concurrency 1,2,4]
 * [--max-tokens 16] [--reps 2] [--threads 1] [--single]`: the embedded model's speed on this
 * machine, through its HTTP API.
 *
 * - Memory bandwidth, measured here (memchr over a buffer far larger than any cache, in 1 and in
 *   every core's worth of threads), and the floor it sets: a decode step reads every weight once, so
 *   a step takes at least weights bytes / bandwidth, whatever the batch holds.
 * - Batching: for each n (choices per request) and concurrency (requests sent at once), generated
 *   tokens per second, time to first token and per-request latency, on a server of one slot (one
 *   sequence at a time, as the server decoded before batching) and on one of `--slots`, side by side
 *   in the same run, alternating, `--reps` times each; the best (least disturbed) rep is shown.
 *   Also CPU time per generated token (this process's, where both servers run; only one works at a
 *   time): on a machine that other work keeps busy, wall-clock rates follow the load, CPU time per
 *   token follows the work. With 1 thread (the default here) CPU time is not inflated by llama.cpp's
 *   threads spinning while they wait for each other.
 * - `--single`: also the old single-stream figures (chat and completions, prompt and generation
 *   timed apart, per thread count of `--threads`).
 *
 * The machine's load average is printed throughout: on 2 cores other busy processes move every figure.
 */
import { statSync } from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { Command, InvalidArgumentError } from 'commander';
import { modelPathFromEnv, startModelServer, type ModelServer } from '../../stack/model-server/index.js';

const positiveInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
};
const intList = (value: string): number[] => value.split(',').map((v) => positiveInt(v.trim()));
const threadsValue = (value: string): number | 'auto' => (value.trim() === 'auto' ? 'auto' : positiveInt(value.trim()));

const program = new Command('bench-model')
  .description('Speed of the embedded model on this machine: memory-bandwidth floor, batched vs one-at-a-time decoding')
  .option('--model <path>', 'GGUF file (default: EXPLORA_MODEL_PATH or the installed default model)', modelPathFromEnv())
  .option('--slots <n>', 'slots of the batched server', positiveInt, 8)
  .option('--n <list>', 'choices per request, comma-separated', intList, [1, 5, 10])
  .option('--concurrency <list>', 'requests sent at once, comma-separated', intList, [1, 2, 4])
  .option('--max-tokens <n>', 'tokens to generate per choice', positiveInt, 16)
  .option('--reps <n>', 'rounds per server and setting, alternating', positiveInt, 2)
  .option('--threads <n|auto>', "llama.cpp threads of both servers ('auto' or a number)", threadsValue, 1 as number | 'auto')
  .option('--single', 'also the single-stream chat/completions figures (3 runs of 128 tokens)')
  .parse();

const opts = program.opts<{
  model: string;
  slots: number;
  n: number[];
  concurrency: number[];
  maxTokens: number;
  reps: number;
  threads: number | 'auto';
  single?: boolean;
}>();

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const rate = (tokens: number, ms: number) => (ms > 0 ? (tokens / ms) * 1000 : 0);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const GB = 1e9;

/** Best-of-20 read bandwidth of `threads` threads at once, each scanning its own 256 MiB with memchr (Buffer.indexOf). */
async function readBandwidth(threads: number): Promise<number> {
  const code = `
    const { parentPort } = require('node:worker_threads');
    // Written to (a zero-filled allocation maps one shared zero page: reading it measures the cache).
    const buf = Buffer.alloc(256 * 1024 * 1024, 2);
    buf.indexOf(1); // fault the pages in
    parentPort.on('message', () => {
      const t = process.hrtime.bigint();
      if (buf.indexOf(1) !== -1) throw new Error('unexpected byte');
      parentPort.postMessage({ bytes: buf.length, ns: Number(process.hrtime.bigint() - t) });
    });
    parentPort.postMessage('ready');`;
  const workers = Array.from({ length: threads }, () => new Worker(code, { eval: true }));
  const next = (w: Worker) => new Promise<unknown>((resolve, reject) => (w.once('message', resolve), w.once('error', reject)));
  try {
    await Promise.all(workers.map(next));
    let best = 0;
    for (let round = 0; round < 20; round++) {
      const results = workers.map(next);
      const started = process.hrtime.bigint();
      for (const w of workers) w.postMessage('go');
      // A worker's message after 'go' (the code above posts it).
      const done = (await Promise.all(results)) as Array<{ bytes: number }>;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      best = Math.max(best, done.reduce((s, d) => s + d.bytes, 0) / seconds);
    }
    return best;
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

interface Answer {
  completionTokens: number;
  latencyMs: number;
  firstTokenMs: number;
  queueMs: number;
  threads: number;
}

async function request(server: ModelServer, body: Record<string, unknown>): Promise<Answer> {
  const started = Date.now();
  const res = await fetch(`${server.url}/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: server.modelId, ...body }),
  });
  const json = (await res.json()) as { usage?: { completion_tokens: number }; error?: { message: string } };
  if (!res.ok || !json.usage) throw new Error(`HTTP ${res.status} ${json.error?.message ?? ''}`);
  return {
    completionTokens: json.usage.completion_tokens,
    latencyMs: Date.now() - started,
    firstTokenMs: Number(res.headers.get('x-explora-first-token-ms')),
    queueMs: Number(res.headers.get('x-explora-queue-ms')),
    threads: Number(res.headers.get('x-explora-threads')),
  };
}

interface Round {
  tokens: number;
  wallMs: number;
  cpuMs: number;
  answers: Answer[];
}

/**
 * `concurrency` requests of `n` choices at once, each a different prompt (no shared cache between
 * requests), seeded, at a temperature that keeps choices apart and long runs from ending early.
 */
async function round(server: ModelServer, n: number, concurrency: number, tag: number): Promise<Round> {
  const started = Date.now();
  const cpu = process.cpuUsage();
  const answers = await Promise.all(
    Array.from({ length: concurrency }, (_, i) =>
      request(server, {
        prompt: `# Task ${tag}-${i}: a Python module with a class LinkedList (append, prepend, remove, find, __len__, __iter__).\n\nclass Node:\n`,
        n,
        max_tokens: opts.maxTokens,
        temperature: 0.7,
        seed: tag * 100 + i,
      }),
    ),
  );
  const used = process.cpuUsage(cpu);
  return {
    tokens: answers.reduce((s, a) => s + a.completionTokens, 0),
    wallMs: Date.now() - started,
    cpuMs: (used.user + used.system) / 1000,
    answers,
  };
}

const modelBytes = statSync(opts.model).size;
console.log(`bench-model: ${opts.model} (${(modelBytes / 2 ** 20).toFixed(0)} MiB of weights)`);
console.log(
  `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, load average ${load()} at start`,
);

const cores = os.cpus().length;
const bandwidth1 = await readBandwidth(1);
const bandwidthAll = cores > 1 ? await readBandwidth(cores) : bandwidth1;
const floorMs = (bw: number) => (modelBytes / bw) * 1000;
console.log(
  `memory read bandwidth (memchr over 256 MiB, best of 20): 1 thread ${(bandwidth1 / GB).toFixed(1)} GB/s, ${cores} threads ${(bandwidthAll / GB).toFixed(1)} GB/s; ` +
    `floor per decode step (weights / bandwidth): ${floorMs(bandwidth1).toFixed(0)} ms on 1 thread, ${floorMs(bandwidthAll).toFixed(0)} ms on ${cores}; load ${load()}`,
);

const serverOptions = { host: '127.0.0.1', port: 0, modelPath: opts.model, threads: opts.threads, maxQueue: 1000 };
const sequential = await startModelServer({ ...serverOptions, slots: 1 });
const batched = await startModelServer({ ...serverOptions, slots: opts.slots });
try {
  // Warm-up: page cache, first-call costs.
  await round(sequential, 1, 1, 0);
  await round(batched, 2, 1, 0);
  console.log(
    `\nbatching: ${opts.maxTokens} tokens per choice, temperature 0.7; sequential = 1 slot, batched = ${opts.slots} slots; ` +
      `threads ${opts.threads}; best of ${opts.reps} alternating rounds`,
  );
  console.log(
    '| n | concurrent | server | tok/s | speed-up | CPU ms/token | speed-up by CPU | floor tok/s (1 thread) | first token ms (median, max) | latency ms (median, max) | threads | load |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  let tag = 1;
  for (const n of opts.n) {
    for (const concurrency of opts.concurrency) {
      tag++;
      const servers = [
        ['sequential', sequential, 1, [] as Round[]],
        ['batched', batched, opts.slots, [] as Round[]],
      ] as const;
      for (let rep = 0; rep < opts.reps; rep++)
        for (const [, server, , rounds] of servers) rounds.push(await round(server, n, concurrency, tag * 10 + rep));
      const best = (rounds: readonly Round[]) => rounds.reduce((a, b) => (rate(b.tokens, b.wallMs) > rate(a.tokens, a.wallMs) ? b : a));
      const cpuPerToken = (rounds: readonly Round[]) => Math.min(...rounds.map((r) => r.cpuMs / r.tokens));
      const base = best(servers[0][3]);
      const baseCpu = cpuPerToken(servers[0][3]);
      for (const [name, , slots, rounds] of servers) {
        const r = best(rounds);
        const perStep = Math.min(slots, n * concurrency);
        const floor = (perStep * bandwidth1) / modelBytes;
        const tps = rate(r.tokens, r.wallMs);
        const cpu = cpuPerToken(rounds);
        const ttft = r.answers.map((a) => a.firstTokenMs);
        const latency = r.answers.map((a) => a.latencyMs);
        console.log(
          `| ${n} | ${concurrency} | ${name} | ${tps.toFixed(1)} | ${(tps / rate(base.tokens, base.wallMs)).toFixed(2)}x | ${cpu.toFixed(0)} | ` +
            `${(baseCpu / cpu).toFixed(2)}x | ${floor.toFixed(0)} (${((tps / floor) * 100).toFixed(0)}%) | ` +
            `${median(ttft)}, ${Math.max(...ttft)} | ${median(latency)}, ${Math.max(...latency)} | ${Math.max(...r.answers.map((a) => a.threads))} | ${load()} |`,
        );
      }
    }
  }
} finally {
  await Promise.all([sequential.close(), batched.close()]);
}

if (opts.single) await singleStream();

/** The single-stream figures: chat and completions, prompt evaluation and generation timed apart. */
async function singleStream(): Promise<void> {
  const task = 'Write a Python module with a class LinkedList (append, prepend, remove, find, __len__, __iter__, __repr__) and docstrings.';
  const server = await startModelServer({ ...serverOptions, slots: 1 });
  try {
    console.log(`\nsingle stream, threads ${opts.threads}, 128 tokens, 3 runs each`);
    for (const api of ['completions', 'chat'] as const) {
      const gen: number[] = [];
      const prompt: number[] = [];
      for (let seed = 1; seed <= 3; seed++) {
        const body =
          api === 'chat'
            ? { model: server.modelId, messages: [{ role: 'user', content: task }], max_tokens: 128, temperature: 0.7, seed }
            : { model: server.modelId, prompt: `# ${task}\n\nclass Node:\n`, max_tokens: 128, temperature: 0.7, seed };
        const res = await fetch(`${server.url}/${api === 'chat' ? 'chat/completions' : 'completions'}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const json = (await res.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
        gen.push(rate(json.usage.completion_tokens, Number(res.headers.get('x-explora-generation-ms'))));
        prompt.push(rate(json.usage.prompt_tokens, Number(res.headers.get('x-explora-prompt-ms'))));
      }
      // A repeated prompt is found in the cache (0 ms): only the runs that evaluated it count.
      const evaluated = prompt.filter((p) => p > 0);
      const promptRate = evaluated.length > 0 ? median(evaluated).toFixed(0) : '-';
      console.log(`  ${api.padEnd(11)} median ${median(gen).toFixed(1)} tok/s generated, ${promptRate} tok/s prompt; load ${load()}`);
    }
  } finally {
    await server.close();
  }
}
