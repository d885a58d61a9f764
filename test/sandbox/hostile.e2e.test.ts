/**
 * Hostile programs: each must be contained and reported, leave no process and no file behind, and
 * not disturb the samples running beside it (every hostile program runs together with bystanders
 * that must still pass). Runs on the default backend, bwrap.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PythonExecutor } from '../../infra/sandbox/pythonExecutor.js';
import type { ExecutionResult } from '../../domain/execution/types.js';
import { liveDescendants } from '../../infra/sandbox/hostProcesses.js';

const SECRET_NAME = 'EXPLORA_HOSTILE_TEST_SECRET';
const SECRET = `s3cr3t-${randomBytes(12).toString('hex')}`;
const TIMEOUT_MS = 2_000;
const MAX_PROCESSES = 16;
const MAX_OUTPUT = 4096;

/** Runs for a while, writes and reads its own files, computes: must pass whatever runs beside it. */
const BYSTANDER = `
import os, time
time.sleep(0.3)
with open("own.txt", "w") as f:
    f.write("mine")
assert open("own.txt").read() == "mine"
assert sorted(os.listdir(".")) == ["own.txt"], os.listdir(".")
assert sum(i * i for i in range(10000)) == 333283335000
`;

let executor: PythonExecutor;
let baseline: number[];

beforeAll(async () => {
  // Set before the sandbox starts: the sandbox must not inherit it.
  process.env[SECRET_NAME] = SECRET;
  executor = new PythonExecutor({
    concurrency: 4,
    limits: { timeoutMs: TIMEOUT_MS, maxProcesses: MAX_PROCESSES, maxOutputBytes: MAX_OUTPUT, memoryBytes: 512 * 1024 * 1024 },
  });
  await executor.start();
  baseline = liveDescendants(executor.sandboxPid!)
    .map((p) => p.pid)
    .sort();
});

afterAll(async () => {
  await executor.close();
  delete process.env[SECRET_NAME];
});

afterEach(async () => {
  // Nothing of the sample survives: the sandbox is back to its launcher and zygote...
  const now = liveDescendants(executor.sandboxPid!)
    .map((p) => p.pid)
    .sort();
  expect(now).toEqual(baseline);
  // ...its working directories are gone, and what programs try to plant never reaches the host.
  const stats = await executor.stats();
  expect(stats).toMatchObject({ active: 0, queued: 0, tmpEntries: [] });
  for (const planted of [join(tmpdir(), 'planted'), '/planted', '/usr/planted', '/etc/planted', '/dev/shm/planted']) {
    expect(existsSync(planted), planted).toBe(false);
  }
});

/** Time a well-behaved program gets: ample, so that only a hang can make it a timeout. */
const AMPLE = { timeoutMs: 10_000 };

async function runHostile(program: string, limits: Record<string, number> = AMPLE): Promise<ExecutionResult> {
  const [hostile, ...bystanders] = await executor.runMany([
    { id: 'hostile', program, limits },
    { id: 'bystander-1', program: BYSTANDER, limits: { timeoutMs: 10_000 } },
    { id: 'bystander-2', program: BYSTANDER, limits: { timeoutMs: 10_000 } },
  ]);
  for (const bystander of bystanders) expect(bystander, JSON.stringify(bystander)).toMatchObject({ status: 'passed' });
  return hostile!;
}

describe('hostile programs are contained', () => {
  it('fork bomb: the process limit binds, the bomb times out and every fork is killed', async () => {
    const result = await runHostile(
      `
import os
while True:
    try:
        os.fork()
    except OSError:
        pass
`,
      { timeoutMs: TIMEOUT_MS },
    );
    expect(result.status).toBe('timeout');
  });

  it('fork bomb with sleeping children: forks fail at the per-sample limit, children die with the sample', async () => {
    const result = await runHostile(`
import os, time
forks = 0
try:
    while True:
        if os.fork() == 0:
            time.sleep(600)
            os._exit(0)
        forks += 1
except OSError as e:
    print(forks, e.errno)
`);
    expect(result.status).toBe('passed');
    const [forks, errno] = result.stdout.trim().split(' ').map(Number);
    expect(errno).toBe(11); // EAGAIN: RLIMIT_NPROC
    expect(forks).toBeGreaterThan(0);
    expect(forks).toBeLessThan(MAX_PROCESSES);
  });

  it('infinite loop: timeout', async () => {
    const result = await runHostile('while True:\n    pass\n', { timeoutMs: TIMEOUT_MS });
    expect(result.status).toBe('timeout');
    expect(result.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS);
  });

  it('memory bomb: oom', async () => {
    // Filling 512 MB takes a while on a loaded machine: time enough to reach the memory limit.
    const result = await runHostile('blocks = []\nwhile True:\n    blocks.append(bytearray(10 ** 7))\n', { timeoutMs: 20_000 });
    expect(result.status).toBe('oom');
    expect(result.exception?.type).toBe('MemoryError');
  });

  it('1 GB of output: captured output is capped, the rest counted and dropped', async () => {
    const result = await runHostile(`import os\nblock = b"x" * (1 << 20)\nfor _ in range(1024):\n    os.write(1, block)\n`, {
      timeoutMs: 20_000,
    });
    expect(['passed', 'timeout']).toContain(result.status);
    expect(result.stdout.length).toBe(MAX_OUTPUT);
    if (result.status === 'passed') expect(result.stdoutBytes).toBe(1024 * 1024 * 1024);
    else expect(result.stdoutBytes).toBeGreaterThan(MAX_OUTPUT);
  });

  it('a daemon that double-forks out of the process group dies with the sample', async () => {
    const result = await runHostile(`
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        print("daemon running", flush=True)
        time.sleep(600)
    os._exit(0)
time.sleep(0.5)
`);
    expect(result.status).toBe('passed');
    expect(result.stdout).toContain('daemon running');
  });

  it('SIGTERM ignored: killed anyway on timeout', async () => {
    const result = await runHostile(
      `
import signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
while True:
    time.sleep(0.05)
`,
      { timeoutMs: TIMEOUT_MS },
    );
    expect(result.status).toBe('timeout');
    expect(result.signal).toBe('SIGKILL');
  });

  it('closed stdout and stderr: reported as an error, not a hang', async () => {
    const result = await runHostile('import os\nos.close(1)\nos.close(2)\nprint("x" * 100000)\n');
    expect(result.status).toBe('error');
    expect(result.exception?.type).toBe('OSError');
  });

  it('blocking read of stdin: sees end of input at once', async () => {
    const result = await runHostile('import sys\nassert sys.stdin.read() == ""\ninput("number? ")\n');
    expect(result.status).toBe('error');
    expect(result.exception?.type).toBe('EOFError'); // not a timeout: the read did not block
  });

  it("the worker's environment is invisible, in os.environ and through /proc", async () => {
    expect(process.env[SECRET_NAME]).toBe(SECRET);
    const result = await runHostile(`
import os
secret = ${JSON.stringify(SECRET)}.encode()
name = ${JSON.stringify(SECRET_NAME)}
found = [k for k, v in os.environ.items() if k == name or secret in v.encode()]
readable = []
for pid in os.listdir("/proc"):
    if pid.isdigit() or pid in ("self", "thread-self"):
        try:
            data = open(f"/proc/{pid}/environ", "rb").read()
            readable.append(pid)
            if secret in data or name.encode() in data:
                found.append(pid)
        except OSError:
            pass
for pid in (1, 2, ${process.pid}, ${process.ppid}):
    try:
        if secret in open(f"/proc/{pid}/environ", "rb").read():
            found.append(str(pid))
    except OSError:
        pass
print(sorted(os.environ), readable)
assert not found, found
`);
    expect(result.status, JSON.stringify(result)).toBe('passed');
    expect(result.stdout).not.toContain(SECRET_NAME);
  });

  it('reading and writing outside the working directory fails; system directories are read-only', async () => {
    const hostDir = mkdtempSync(join(tmpdir(), 'explora-hostile-'));
    const hostSecret = join(hostDir, 'secret.txt');
    writeFileSync(hostSecret, SECRET);
    const repoFile = resolve('package.json');
    const rootEntries = readdirSync('/root');
    try {
      const result = await runHostile(`
import json, os
out = {"read": {}, "write": {}, "root": sorted(os.listdir("/root")) if os.path.isdir("/root") else None}
for path in [${JSON.stringify(hostSecret)}, ${JSON.stringify(repoFile)}, "/etc/shadow", "/proc/1/root/etc/hostname"]:
    try:
        out["read"][path] = open(path).read()[:50]
    except OSError as e:
        out["read"][path] = type(e).__name__
for path in ["/tmp/planted", "/usr/planted", "/etc/planted", "/planted", "../planted", "/dev/shm/planted", ${JSON.stringify(join(hostDir, 'planted'))}]:
    try:
        with open(path, "w") as f:
            f.write("x")
        out["write"][path] = "written"
    except OSError as e:
        out["write"][path] = type(e).__name__
with open("mine.txt", "w") as f:
    f.write("fine")
out["own"] = open("mine.txt").read()
print(json.dumps(out))
`);
      expect(result.status, JSON.stringify(result)).toBe('passed');
      const out = JSON.parse(result.stdout) as {
        read: Record<string, string>;
        write: Record<string, string>;
        root: string[] | null;
        own: string;
      };
      for (const [path, outcome] of Object.entries(out.read)) {
        expect(outcome, path).toMatch(/Error$/);
      }
      for (const [path, outcome] of Object.entries(out.write)) {
        expect(outcome, path).toMatch(/Error$/);
      }
      expect(out.own).toBe('fine');
      // The host's /root is not there; at most the path to the interpreter is.
      for (const entry of out.root ?? []) {
        expect(entry === '.pyenv' || !rootEntries.includes(entry), entry).toBe(true);
      }
      expect(readdirSync(hostDir)).toEqual(['secret.txt']);
      expect(readFileSync(hostSecret, 'utf8')).toBe(SECRET);
      expect(existsSync('/planted')).toBe(false);
    } finally {
      rmSync(hostDir, { recursive: true, force: true });
    }
  });

  it('the repository is invisible: no path of it (or of the folders its .tools and node_modules link to) exists in the sandbox', async () => {
    const repo = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
    const linked = ['.tools', 'node_modules'].map((name) => join(repo, name)).filter((p) => existsSync(p));
    const targets = [...new Set([repo, realpathSync(repo), ...linked.map((p) => realpathSync(p))])];
    const result = await runHostile(`
import json, os
targets = ${JSON.stringify(targets)}
found = [t for t in targets if os.path.lexists(t)]
# Everything outside the host's read-only system folders and the kernel's views.
for top in sorted(os.listdir("/")):
    if top in ("proc", "sys", "dev", "usr", "etc"):
        continue
    for dirpath, dirnames, filenames in os.walk("/" + top):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            if any(path == t or path.startswith(t + "/") for t in targets):
                found.append(path)
print(json.dumps(found[:20]))
`);
    expect(result.status, JSON.stringify(result)).toBe('passed');
    expect(JSON.parse(result.stdout), targets.join(', ')).toEqual([]);
  });

  it('no network: the host loopback (a listener of this test, Temporal, S3) is unreachable', async () => {
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
    const port = (server.address() as AddressInfo).port;
    try {
      const result = await runHostile(`
import socket
failures = {}
for port in (${port}, 7233, 8333):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(1)
    try:
        s.connect(("127.0.0.1", port))
        failures[port] = "connected"
    except OSError as e:
        failures[port] = type(e).__name__
    finally:
        s.close()
print(failures)
assert "connected" not in failures.values(), failures
`);
      expect(result.status, JSON.stringify(result)).toBe('passed');
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });

  it('deep recursion is contained', async () => {
    const plain = await runHostile('def f(n):\n    return f(n + 1) + 1\nf(0)\n');
    expect(plain.status).toBe('error');
    expect(plain.exception?.type).toBe('RecursionError');
    const unbounded = await runHostile('import sys\nsys.setrecursionlimit(10 ** 8)\ndef f(n):\n    return f(n + 1) + 1\nf(0)\n', {
      timeoutMs: TIMEOUT_MS,
    });
    expect(['error', 'oom', 'killed', 'timeout']).toContain(unbounded.status);
  });

  it('os._exit before the end is an error, not a pass', async () => {
    const result = await runHostile('import os\nos._exit(0)\nassert False\n');
    expect(result.status).toBe('error');
    expect(result.exception?.type).toBe('EarlyExit');
    expect(result.exitCode).toBe(0);
  });

  it('signalling everything it can reach (kill -1, every pid) touches no other sample', async () => {
    const result = await runHostile(`
import os, signal
me = os.getpid()
for pid in range(1, 5000):
    if pid != me:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
try:
    os.kill(-1, signal.SIGKILL)
except OSError:
    pass
print("still here")
`);
    expect(result.status).toBe('passed');
    expect(result.stdout).toContain('still here');
  });
});
