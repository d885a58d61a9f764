import { readdirSync, readFileSync } from 'node:fs';

/**
 * The host's view of processes, from the host's /proc: which processes descend from the sandbox
 * launcher (tests check that nothing of a sample survives) and how much CPU they used (the
 * benchmark accounts for it). Linux only, like the sandbox.
 */
export interface HostProcess {
  pid: number;
  ppid: number;
  comm: string;
  state: string;
  /** CPU seconds of the process itself, and of its reaped children. */
  cpuSeconds: number;
  childrenCpuSeconds: number;
}

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ on Linux

function hostProcesses(): HostProcess[] {
  const processes: HostProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const fields = stat.slice(close + 2).split(' ');
      processes.push({
        pid: Number(entry),
        ppid: Number(fields[1]),
        comm: stat.slice(stat.indexOf('(') + 1, close),
        state: fields[0]!,
        cpuSeconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND,
        childrenCpuSeconds: (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS_PER_SECOND,
      });
    } catch {
      // exited while we looked
    }
  }
  return processes;
}

/** CPU seconds used so far by `root`'s live descendants and the children they reaped. */
export function descendantsCpuSeconds(root: number): number {
  return liveDescendants(root).reduce((sum, p) => sum + p.cpuSeconds + p.childrenCpuSeconds, 0);
}

/** Live (non-zombie) processes descending from `root`, not counting `root` itself. */
export function liveDescendants(root: number): HostProcess[] {
  const all = hostProcesses();
  const children = new Map<number, HostProcess[]>();
  for (const p of all) {
    const list = children.get(p.ppid) ?? [];
    list.push(p);
    children.set(p.ppid, list);
  }
  const found: HostProcess[] = [];
  const stack = [root];
  while (stack.length > 0) {
    for (const child of children.get(stack.pop()!) ?? []) {
      if (child.state !== 'Z') found.push(child);
      stack.push(child.pid);
    }
  }
  return found;
}
