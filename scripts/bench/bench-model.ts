/**
 * `tsx scripts/bench/bench-model.ts [--model PATH] [--threads 1,2] [--runs 3] [--max-tokens 128]`: tokens
 * per second of the embedded model on this machine, through its HTTP API (chat and completions),
 * a few runs each. Prompt evaluation and generation are timed apart (the server's
 * x-explora-prompt-ms / x-explora-generation-ms headers); the machine's load average is printed,
 * since other busy processes on 2 cores change the figures a lot.
 */
import os from 'node:os';
import { Command, InvalidArgumentError } from 'commander';
import { modelPathFromEnv, startModelServer } from '../../stack/model-server/index.js';

const positiveInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
};

const program = new Command('bench-model')
  .description('Tokens per second of the embedded model (chat and completions) on this machine')
  .option('--model <path>', 'GGUF file (default: EXPLORA_MODEL_PATH or the installed default model)', modelPathFromEnv())
  .option('--threads <list>', "llama.cpp thread counts to compare, comma-separated ('auto' or numbers)", 'auto')
  .option('--runs <n>', 'runs per API and thread count', positiveInt, 3)
  .option('--max-tokens <n>', 'tokens to generate per run', positiveInt, 128)
  .parse();

const opts = program.opts<{ model: string; threads: string; runs: number; maxTokens: number }>();
const threadCounts = opts.threads.split(',').map((t) => (t.trim() === 'auto' ? ('auto' as const) : positiveInt(t.trim())));

interface Run {
  promptTokens: number;
  completionTokens: number;
  promptMs: number;
  generationMs: number;
  wallMs: number;
  threads: string;
}

const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');
const rate = (tokens: number, ms: number) => (ms > 0 ? (tokens / ms) * 1000 : 0);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function once(url: string, model: string, api: 'chat' | 'completions', seed: number): Promise<Run> {
  // Prompts that make the model write code for a while; temperature > 0 with a seed, so each run is
  // a different but reproducible sample, and long runs are not cut short by an early end.
  const task = 'Write a Python module with a class LinkedList (append, prepend, remove, find, __len__, __iter__, __repr__) and docstrings.';
  const body =
    api === 'chat'
      ? { model, messages: [{ role: 'user', content: task }], max_tokens: opts.maxTokens, temperature: 0.7, seed }
      : { model, prompt: `# ${task}\n\nclass Node:\n`, max_tokens: opts.maxTokens, temperature: 0.7, seed };
  const started = Date.now();
  const res = await fetch(`${url}/${api === 'chat' ? 'chat/completions' : 'completions'}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { usage?: { prompt_tokens: number; completion_tokens: number }; error?: { message: string } };
  if (!res.ok || !json.usage) throw new Error(`${api}: HTTP ${res.status} ${json.error?.message ?? ''}`);
  return {
    promptTokens: json.usage.prompt_tokens,
    completionTokens: json.usage.completion_tokens,
    promptMs: Number(res.headers.get('x-explora-prompt-ms')),
    generationMs: Number(res.headers.get('x-explora-generation-ms')),
    wallMs: Date.now() - started,
    threads: res.headers.get('x-explora-threads') ?? '?',
  };
}

console.log(`bench-model: ${opts.model}`);
console.log(`machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), load average ${load()} at start`);
for (const threads of threadCounts) {
  const loadStart = Date.now();
  const server = await startModelServer({ host: '127.0.0.1', port: 0, modelPath: opts.model, threads });
  console.log(`\nthreads ${threads}: model ${server.modelId} loaded in ${((Date.now() - loadStart) / 1000).toFixed(1)} s`);
  try {
    await once(server.url, server.modelId, 'completions', 0); // warm-up: page cache, first-call costs
    for (const api of ['completions', 'chat'] as const) {
      const runs: Run[] = [];
      for (let i = 1; i <= opts.runs; i++) {
        const r = await once(server.url, server.modelId, api, i);
        runs.push(r);
        console.log(
          `  ${api.padEnd(11)} run ${i}: prompt ${r.promptTokens} tok in ${r.promptMs} ms (${rate(r.promptTokens, r.promptMs).toFixed(0)} tok/s), ` +
            `generated ${r.completionTokens} tok in ${r.generationMs} ms (${rate(r.completionTokens, r.generationMs).toFixed(1)} tok/s), ` +
            `wall ${r.wallMs} ms (${rate(r.completionTokens, r.wallMs).toFixed(1)} tok/s end to end), ${r.threads} threads, load ${load()}`,
        );
      }
      console.log(
        `  ${api.padEnd(11)} median: ${median(runs.map((r) => rate(r.completionTokens, r.generationMs))).toFixed(1)} tok/s generated, ` +
          `${median(runs.map((r) => rate(r.promptTokens, r.promptMs))).toFixed(0)} tok/s prompt; load average now ${load()}`,
      );
    }
  } finally {
    await server.close();
  }
}
