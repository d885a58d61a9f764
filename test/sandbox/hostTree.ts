import { readdirSync, readFileSync } from 'node:fs';

/** Host view of processes, read from the host's /proc (the test runs outside the sandbox). */
interface HostProcess {
  pid: number;
  ppid: number;
  comm: string;
  state: string;
}

function hostProcesses(): HostProcess[] {
  const processes: HostProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const fields = stat.slice(close + 2).split(' ');
      processes.push({ pid: Number(entry), ppid: Number(fields[1]), comm: stat.slice(stat.indexOf('(') + 1, close), state: fields[0]! });
    } catch {
      // exited while we looked
    }
  }
  return processes;
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
