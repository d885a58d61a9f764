/**
 * `tsx scripts/bench/bench-llm-client.ts [--requests 5000] [--rounds 3] [--concurrency 8]`: what one LLM
 * call costs the worker's CPU with the OpenAI SDK's built-in fetch and with `undiciFetch` (what our
 * clients use), side by side in one run, rounds alternating. The endpoint is an HTTP server in a
 * child process answering a HumanEval-sized completion at once, so the figures are the client's
 * own CPU per call (this process's, read with process.cpuUsage).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Command, Option } from 'commander';
import OpenAI from 'openai';
import { z } from 'zod';
import { undiciFetch } from '../../infra/llm/undiciFetch.js';

const SERVER = `
const http = require('node:http');
const body = JSON.stringify({ id: 'cmpl', object: 'text_completion', created: 1, model: 'm',
  choices: [{ index: 0, text: '    return sorted(set(l))\\n'.repeat(4), finish_reason: 'stop', logprobs: null }],
  usage: { prompt_tokens: 150, completion_tokens: 40, total_tokens: 190 } });
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'r' }); res.end(body); });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

const Options = z.object({
  requests: z.coerce.number().int().min(100),
  rounds: z.coerce.number().int().min(1),
  concurrency: z.coerce.number().int().min(1).max(256),
});

new Command('bench-llm-client')
  .addOption(new Option('--requests <n>', 'calls per side and round').default('5000'))
  .addOption(new Option('--rounds <n>', 'rounds; the sides alternate within each').default('3'))
  .addOption(new Option('--concurrency <n>', 'calls in flight at once').default('8'))
  .action(async (raw: unknown) => {
    const opts = Options.parse(raw);
    const server = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const [line] = (await once(server.stdout!, 'data')) as [Buffer];
      const baseURL = `http://127.0.0.1:${Number(line.toString().trim())}/v1`;
      const sides = {
        'built-in fetch': new OpenAI({ baseURL, apiKey: 'k', maxRetries: 0 }),
        undiciFetch: new OpenAI({ baseURL, apiKey: 'k', maxRetries: 0, fetch: undiciFetch }),
      };
      // A HumanEval-sized prompt.
      const prompt =
        'from typing import List\n\n\ndef unique(l: List[int]) -> List[int]:\n    """Return sorted unique elements in a list.\n' +
        '    >>> unique([5, 3, 5, 2, 3, 3, 9, 0, 123])\n'.repeat(8) +
        '    """\n';
      const run = async (client: OpenAI, n: number) => {
        let next = 0;
        await Promise.all(
          Array.from({ length: opts.concurrency }, async () => {
            while (next++ < n) {
              const answer = await client.completions.create({
                model: 'm',
                prompt,
                temperature: 0.8,
                top_p: 0.95,
                max_tokens: 512,
                stop: ['\ndef'],
              });
              if (!answer.choices[0]?.text) throw new Error('the server answered without a completion');
            }
          }),
        );
      };
      const cpuMs: Record<string, number[]> = { 'built-in fetch': [], undiciFetch: [] };
      for (const [, client] of Object.entries(sides)) await run(client, 300); // warm up both
      for (let round = 0; round < opts.rounds; round++) {
        for (const [name, client] of Object.entries(sides)) {
          const before = process.cpuUsage();
          await run(client, opts.requests);
          const used = process.cpuUsage(before);
          cpuMs[name]!.push((used.user + used.system) / 1000 / opts.requests);
        }
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      console.log(
        `${opts.requests} completions per side and round, ${opts.rounds} rounds, ${opts.concurrency} in flight; client CPU per call (rounds):`,
      );
      for (const [name, xs] of Object.entries(cpuMs))
        console.log(`  ${name.padEnd(15)} ${median(xs).toFixed(3)} ms median (${xs.map((x) => x.toFixed(3)).join(', ')})`);
      const saved = median(cpuMs['built-in fetch']!) - median(cpuMs.undiciFetch!);
      console.log(
        `undiciFetch saves ${saved.toFixed(3)} ms of CPU per call (${((saved / median(cpuMs['built-in fetch']!)) * 100).toFixed(0)}%)`,
      );
    } finally {
      server.kill();
    }
  })
  .parseAsync()
  .catch((err: Error) => {
    console.error(`bench-llm-client: ${err.message}`);
    process.exit(1);
  });
