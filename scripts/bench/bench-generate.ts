/**
 * `tsx scripts/bench/bench-generate.ts [--count 100000]`: tasks per second and peak memory of local
 * PBE World generation (`generate-dataset --local`), run as a real child process. Peak memory is
 * the kernel's max RSS of the process tree (getrusage RUSAGE_CHILDREN, read by a tiny Python
 * wrapper), at a tenth of the count and at the full count, to show it does not grow with the dataset.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command, Option } from 'commander';
import { resolvePythonExecutable } from '../../infra/sandbox/python.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';

const MEASURE = `
import resource, subprocess, sys, time, json
t0 = time.perf_counter()
subprocess.run(sys.argv[1:], check=True)
dt = time.perf_counter() - t0
print(json.dumps({"seconds": dt, "max_rss_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
`;

function measure(count: number, out: string): { seconds: number; maxRssMiB: number; bytes: number } {
  const cmd = [
    path.join(PROJECT_ROOT, 'node_modules/.bin/tsx'),
    path.join(PROJECT_ROOT, 'scripts/generate-dataset.ts'),
    '--local',
    '--out',
    out,
    '--count',
    String(count),
    '--no-progress',
  ];
  const res = JSON.parse(
    execFileSync(resolvePythonExecutable(), ['-c', MEASURE, ...cmd], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .trim()
      .split('\n')
      .pop()!,
  );
  return { seconds: res.seconds, maxRssMiB: res.max_rss_kib / 1024, bytes: statSync(out).size };
}

new Command('bench-generate')
  .addOption(new Option('--count <n>', 'tasks in the large run').default('100000'))
  .action(({ count }: { count: string }) => {
    const n = Number(count);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-bench-'));
    try {
      console.log(`local generation, default parameters, ${os.cpus().length} cores, node ${process.version}`);
      for (const c of [Math.max(1, Math.floor(n / 10)), n]) {
        const r = measure(c, path.join(dir, `d${c}.jsonl`));
        console.log(
          `${String(c).padStart(9)} tasks: ${r.seconds.toFixed(2)} s wall (incl. ~1 s process start), ` +
            `${Math.round(c / r.seconds).toLocaleString('en-US')} tasks/s, peak RSS ${r.maxRssMiB.toFixed(0)} MiB, ` +
            `${(r.bytes / 1e6).toFixed(1)} MB written`,
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  })
  .parse();
