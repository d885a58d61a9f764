/**
 * `tsx scripts/bench/bench-library-sandbox.ts [--rounds 2] [--repeat 2]`: what a sandbox with the real
 * library pre-imported (SandboxPool.forRuntime, as the sweep's workers run MonkeyEval and
 * BeatNumEval) saves against the plain sandbox, which imports pandas or numpy in every sample.
 * The workload is the original PandasEval and NumpyEval canonical solutions (read at run time from
 * ../shared/reference/private-library), each run --repeat times; both sides run it in every round,
 * alternating which goes first. Prints executions per second and CPU per execution (this process,
 * the sandbox's processes and its samples).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import { z } from 'zod';
import { descendantsCpuSeconds } from '../../infra/sandbox/hostProcesses.js';
import { readJsonlText } from '../../infra/sandbox/jsonlFile.js';
import type { PythonExecutor } from '../../infra/sandbox/pythonExecutor.js';
import { SandboxPool } from '../../infra/sandbox/pool.js';

const REFERENCE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/reference/private-library');
const Task = z.object({
  task_id: z.string(),
  prompt: z.string(),
  canonical_solution: z.array(z.string()).min(1),
  test: z.string(),
  entry_point: z.string(),
});

function programs(file: string, repeat: number): Array<{ id: string; program: string }> {
  const tasks = readJsonlText(path.join(REFERENCE, file))
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => Task.parse(JSON.parse(l)));
  return Array.from({ length: repeat }, (_, r) =>
    tasks.map((t) => ({
      id: `${t.task_id}#${r}`,
      program: `${t.prompt}${t.canonical_solution[0]}\n${t.test}\n${t.entry_point === 'none' ? 'check()' : `check(${t.entry_point})`}`,
    })),
  ).flat();
}

/** CPU seconds so far of this process and of everything in the sandbox (its processes and the samples they reaped). */
function cpuSeconds(executor: PythonExecutor): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6 + descendantsCpuSeconds(executor.sandboxPid!);
}

async function measure(executor: PythonExecutor, work: Array<{ id: string; program: string }>) {
  const cpu = cpuSeconds(executor);
  const start = performance.now();
  const results = await executor.runMany(work);
  const seconds = (performance.now() - start) / 1000;
  return {
    seconds,
    cpuMs: ((cpuSeconds(executor) - cpu) * 1000) / work.length,
    passed: results.filter((r) => r.status === 'passed').length,
  };
}

new Command('bench-library-sandbox')
  .addOption(new Option('--rounds <n>', 'rounds; the two sandboxes alternate which goes first').default('2'))
  .addOption(new Option('--repeat <n>', 'runs of each canonical solution per side and round').default('2'))
  .action(async (raw: unknown) => {
    const opts = z.object({ rounds: z.coerce.number().int().min(1), repeat: z.coerce.number().int().min(1) }).parse(raw);
    const pool = new SandboxPool({ limits: { timeoutMs: 30_000 } });
    try {
      for (const [library, file] of [
        ['pandas', 'real_pandas_eval_v3.jsonl.gz'],
        ['numpy', 'real_numpy_eval_v3.jsonl.gz'],
      ] as const) {
        const work = programs(file, opts.repeat);
        const plain = await pool.forRuntime();
        const preimported = await pool.forRuntime({ kind: 'renamed', original: library, renamed: library, mapping: {} });
        for (let round = 1; round <= opts.rounds; round++) {
          const order =
            round % 2 === 1
              ? ([
                  ['plain', plain],
                  [`${library} pre-imported`, preimported],
                ] as const)
              : ([
                  [`${library} pre-imported`, preimported],
                  ['plain', plain],
                ] as const);
          for (const [name, executor] of order) {
            const m = await measure(executor, work);
            console.log(
              `${library} round ${round}, ${name} sandbox: ${work.length} in ${m.seconds.toFixed(2)} s = ${(work.length / m.seconds).toFixed(1)} executions/s, ${m.cpuMs.toFixed(1)} ms CPU per execution; passed ${m.passed}`,
            );
          }
        }
      }
    } finally {
      await pool.close();
    }
  })
  .parseAsync()
  .catch((err: Error) => {
    console.error(`bench-library-sandbox: ${err.message}`);
    process.exit(1);
  });
