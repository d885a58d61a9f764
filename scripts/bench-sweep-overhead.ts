/**
 * `tsx scripts/bench-sweep-overhead.ts [--samples 20000]`: the cost of durability. The same
 * HumanEval samples (canonical solutions, answered instantly by a scripted OpenAI-compatible server)
 * go once through a full sweep (Temporal, S3 cache and records, sandbox activities, workers in one
 * child process) and once through `scripts/evaluate.ts` (the bare executor), in one run. Prints both
 * throughputs and their ratio, the largest history any workflow run reached, and the sweep
 * process's peak RSS at a fifth of the size and at full size (memory should not grow with the
 * sweep). Needs the local stack (`npm run stack:up`).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Client, Connection } from '@temporalio/client';
import { Command, Option } from 'commander';
import { resolvePythonExecutable } from '../activities/python.js';
import { parseConfig } from '../domain/config/env.js';
import { startScriptedLlmServer } from '../test/support/scripted-llm-server.js';
import { PROJECT_ROOT } from './lib/local-stack.js';

const HUMANEVAL = path.resolve(PROJECT_ROOT, '../shared/reference/humaneval/HumanEval.jsonl.gz');
const TSX = path.join(PROJECT_ROOT, 'node_modules/.bin/tsx');

// Runs a command and reports its wall time and the peak RSS of its process tree (getrusage).
const MEASURE = `
import resource, subprocess, sys, time, json, tempfile
log = tempfile.TemporaryFile()
t0 = time.perf_counter()
p = subprocess.run(sys.argv[1:], stdout=log, stderr=log)
dt = time.perf_counter() - t0
if p.returncode != 0:
    log.seek(0); sys.stderr.write(log.read().decode()[-3000:]); sys.exit(p.returncode)
print(json.dumps({"seconds": dt, "max_rss_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
`;

/** Asynchronous: the scripted server lives in this process and must keep answering meanwhile. */
async function measure(cmd: string[]): Promise<{ seconds: number; rssMiB: number }> {
  const { stdout } = await promisify(execFile)(resolvePythonExecutable(), ['-c', MEASURE, ...cmd], { encoding: 'utf8', env: process.env, maxBuffer: 64 * 1024 * 1024 });
  const r = JSON.parse(stdout.trim().split('\n').pop()!);
  return { seconds: r.seconds, rssMiB: r.max_rss_kib / 1024 };
}

new Command('bench-sweep-overhead')
  .addOption(new Option('--samples <n>', 'samples in the large sweep (164 HumanEval tasks x n)').default('20000'))
  .action(async (opts: { samples: string }) => {
    const problems = gunzipSync(readFileSync(HUMANEVAL)).toString('utf8').trim().split('\n').map((l) => JSON.parse(l) as { task_id: string; prompt: string; canonical_solution: string });
    const canonical = new Map(problems.map((p) => [p.prompt, p.canonical_solution]));
    const server = await startScriptedLlmServer((req) => ({ content: canonical.get(String(req.body.prompt)) ?? '    pass\n' }), { applyStop: false });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-overhead-'));
    const env = parseConfig(process.env);
    const stamp = Date.now().toString(36);
    try {
      const runSweep = async (n: number) => {
        const id = `overhead-${stamp}-n${n}`;
        const file = path.join(dir, `${id}.yaml`);
        // A model name of its own per run: the LLM cache must not answer for the server.
        writeFileSync(
          file,
          `id: ${id}\ndatasets:\n  - name: humaneval\n    path: ${HUMANEVAL}\nmodels:\n  - id: instant\n    base_url: ${server.url}\n    model: canonical-${id}\n    api: completions\n    stop: []\n    concurrency: 8\nmethods: [direct]\ntemperatures: [0.8]\nn_samples: ${n}\nk: [1]\nseed: 1\n`,
        );
        const m = await measure([TSX, path.join(PROJECT_ROOT, 'scripts/start-sweep.ts'), '--config', file, '--no-progress']);
        return { id, samples: n * problems.length, ...m };
      };

      const nLarge = Math.ceil(Number(opts.samples) / problems.length);
      const nSmall = Math.max(1, Math.round(nLarge / 5));
      console.log(`machine: ${os.cpus().length} cores; HumanEval ${problems.length} tasks; sweep sizes n=${nSmall} and n=${nLarge}`);
      const small = await runSweep(nSmall);
      const large = await runSweep(nLarge);

      const samplesFile = path.join(dir, 'samples.jsonl');
      writeFileSync(samplesFile, problems.flatMap((p) => Array.from({ length: nLarge }, () => JSON.stringify({ task_id: p.task_id, completion: p.canonical_solution }) + '\n')).join(''));
      const bare = await measure([TSX, path.join(PROJECT_ROOT, 'scripts/evaluate.ts'), '--problems', HUMANEVAL, '--samples', samplesFile, '--k', '1']);

      const connection = await Connection.connect({ address: env.temporal.address });
      let maxEvents = 0;
      let runs = 0;
      try {
        const client = new Client({ connection, namespace: env.temporal.namespace });
        for await (const wf of client.workflow.list({ query: `WorkflowId STARTS_WITH 'explora-sweep/${large.id}'` })) {
          runs++;
          maxEvents = Math.max(maxEvents, wf.historyLength);
        }
      } finally {
        await connection.close();
      }

      const sweepRate = large.samples / large.seconds;
      const bareRate = large.samples / bare.seconds;
      console.log(`sweep    ${large.samples} samples: ${large.seconds.toFixed(1)} s, ${sweepRate.toFixed(0)} samples/s (LLM call + S3 cache + sandbox + records, through Temporal)`);
      console.log(`evaluate ${large.samples} samples: ${bare.seconds.toFixed(1)} s, ${bareRate.toFixed(0)} samples/s (bare executor)`);
      console.log(`ratio sweep/bare: ${(sweepRate / bareRate).toFixed(2)}`);
      console.log(`workflow runs: ${runs}, largest history: ${maxEvents} events`);
      console.log(`peak RSS of the sweep process (workers included): ${small.rssMiB.toFixed(0)} MiB at ${small.samples} samples, ${large.rssMiB.toFixed(0)} MiB at ${large.samples} samples`);
      console.log(`scripted server received ${server.requests().length} requests for ${small.samples + large.samples} samples`);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  })
  .parseAsync()
  .catch((err: Error) => {
    console.error(`bench-sweep-overhead: ${err.message}`);
    process.exit(1);
  });
