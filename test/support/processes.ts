import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../../stack/local-stack.js';

/**
 * As npm's scripts and the image run them: node on bin/run.mjs (the entry's kept bundle, in the same
 * process), no `tsx` CLI in between (it relays a stop signal and kills its child 30 ms later).
 */
const RUN = path.join(PROJECT_ROOT, 'bin/run.mjs');

/**
 * `node RUN_ENTRY <entry.ts> ...` runs an entry point as users do, from its kept bundle: where a
 * test needs execFile's own options, this in place of tsx's loader (`--import tsx`), which costs
 * about two more seconds of CPU at every start.
 */
export const RUN_ENTRY = RUN;

export interface Spawned {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * The exit, once its standard output and error are read to their end too: `exited` can come before
   * the last of them is read (seen with several processes at once), so a check of what a process
   * printed last awaits this one.
   */
  closed?: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs a project TypeScript entry point (a script or worker) as a real child process. */
export function spawnTs(entry: string, args: string[], env: Record<string, string>): Spawned {
  const child = spawn(process.execPath, [RUN, path.join(PROJECT_ROOT, entry), ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => out, exited, closed };
}

/** Runs an entry to its exit; with `untilClosed`, until its output is read to the end too (see Spawned.closed). */
export async function runTs(entry: string, args: string[], env: Record<string, string>, { untilClosed = false } = {}) {
  const p = spawnTs(entry, args, env);
  const { code } = await ((untilClosed && p.closed) || p.exited);
  return { code, output: p.output() };
}

/** SIGKILL a process and everything it started. */
export async function killHard(p: Spawned): Promise<void> {
  if (p.child.pid === undefined) return;
  const descendants = (pid: number): number[] => {
    try {
      const kids = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
        .split('\n')
        .filter(Boolean)
        .map(Number);
      return kids.flatMap((k) => [k, ...descendants(k)]);
    } catch {
      return [];
    }
  };
  for (const pid of [p.child.pid, ...descendants(p.child.pid)]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  await p.exited;
}
