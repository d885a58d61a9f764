/**
 * The warm compilers' servers (infra/sandbox/warm/warmToolchains.ts ServedCompiler): compiles that
 * arrive together at a fresh runner share one server, and closing the runner leaves none running.
 * (A race once let each of a first burst's compiles start a server of its own; all but one were
 * never closed, and kept the process that started them alive.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ProcessExecutor } from '../../infra/sandbox/process/processExecutor.js';
import { toolchainFor } from '../../infra/sandbox/toolchainRegistry.js';

/** Processes descended from this one whose command line mentions `marker` (the servers themselves, not the bwrap processes that hold them). */
function descendants(marker: string): number[] {
  const parentOf = new Map<number, number>();
  const commandOf = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      commandOf.set(Number(entry), readFileSync(`/proc/${entry}/cmdline`, 'latin1'));
    } catch {
      // gone
    }
  }
  const mine = (pid: number): boolean => {
    for (let p = parentOf.get(pid); p !== undefined && p > 1; p = parentOf.get(p)) if (p === process.pid) return true;
    return false;
  };
  return [...commandOf]
    .filter(([pid, command]) => command.includes(marker) && !command.split('\0')[0]!.endsWith('bwrap') && mine(pid))
    .map(([pid]) => pid);
}

describe('a warm compiler server per runner', () => {
  it('a first burst of TypeScript compiles starts one tsc server; closing the runner stops it', async () => {
    const executor = new ProcessExecutor(toolchainFor('ts'), { concurrency: 4, limits: { timeoutMs: 30_000 } });
    await executor.start();
    const programs = Array.from({ length: 4 }, (_, i) => ({
      id: `p${i}`,
      program: `declare var require: any;\nrequire('node:assert').deepEqual(${i} + 1, ${i + 1});\n`,
    }));
    const results = await Promise.all(programs.map((p) => executor.run(p)));
    expect(results.map((r) => r.status)).toEqual(['passed', 'passed', 'passed', 'passed']);
    expect(descendants('tscServer.cjs')).toHaveLength(1);
    await executor.close();
    expect(descendants('tscServer.cjs')).toEqual([]);
  }, 120_000);
});
