/**
 * SandboxPool: programs on a real library (MonkeyEval's pandas, BeatNumEval's numpy) run in a
 * sandbox whose zygote imported it, plain programs in the lean one; the library's zygote stays
 * single-threaded, and its samples are as fresh as anywhere else (environment, random states).
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { liveDescendants } from '../../infra/sandbox/hostProcesses.js';
import { SandboxPool } from '../../infra/sandbox/pool.js';
import { ProcessExecutor } from '../../infra/sandbox/process/processExecutor.js';
import { PythonExecutor } from '../../infra/sandbox/pythonExecutor.js';
import type { LibraryRuntime } from '../../domain/apidocs/library.js';

const pool = new SandboxPool({ concurrency: 2, limits: { timeoutMs: 20_000 } });
afterAll(() => pool.close());

const PANDAS: LibraryRuntime = { kind: 'renamed', original: 'pandas', renamed: 'monkey', mapping: { DataFrame: 'KnowledgeFrame' } };
const NUMPY: LibraryRuntime = { kind: 'renamed', original: 'numpy', renamed: 'beatnum', mapping: {} };

describe('SandboxPool', () => {
  it('one sandbox per real library, the lean one for everything else', async () => {
    const plain = await pool.forRuntime();
    expect(await pool.forRuntime({ kind: 'builtin' })).toBe(plain);
    expect(await pool.forRuntime({ kind: 'module', module: 'pbe_ops', source: 'def f():\n    pass\n' })).toBe(plain);
    const pandas = await pool.forRuntime(PANDAS);
    expect(pandas).not.toBe(plain);
    expect(await pool.forRuntime({ ...PANDAS, mapping: {} })).toBe(pandas);
    expect(await pool.forRuntime(NUMPY)).not.toBe(pandas);

    const probe = 'import sys\nprint("pandas" in sys.modules, "numpy" in sys.modules)\n';
    const [onPlain] = await plain.runMany([{ id: 'plain', program: probe }]);
    const [onPandas] = await pandas.runMany([{ id: 'pandas', program: probe }]);
    expect(onPlain!.stdout.trim()).toBe('False False');
    expect(onPandas!.stdout.trim()).toBe('True True');
  });

  it("the library's zygote is single-threaded, and its samples get a clean environment and their own random states", async () => {
    const pandas = await pool.forRuntime(PANDAS);
    for (const p of liveDescendants(pandas.sandboxPid!).filter((q) => q.comm.startsWith('python'))) {
      expect(readFileSync(`/proc/${p.pid}/status`, 'utf8')).toMatch(/^Threads:\s+1$/m);
    }
    const program =
      'import os, random, numpy, pandas\nassert pandas.DataFrame({"a": [1, 2]}).a.sum() == 3\nprint(" ".join(sorted(os.environ)), numpy.random.rand(), random.random())\n';
    const results = await pandas.runMany(Array.from({ length: 4 }, (_, i) => ({ id: `s${i}`, program })));
    expect(results.map((r) => r.status)).toEqual(['passed', 'passed', 'passed', 'passed']);
    const lines = results.map((r) => r.stdout.trim().split(' '));
    for (const line of lines) expect(line.slice(0, 3)).toEqual(['LANG', 'LC_ALL', 'PATH']);
    expect(new Set(lines.map((l) => l[3])).size).toBe(4);
    expect(new Set(lines.map((l) => l[4])).size).toBe(4);
  });

  it("a language's programs go to the runner its runner kind names: Python's sandbox, or the language's process runner", async () => {
    expect(await pool.forLanguage('python')).toBe(await pool.forRuntime());
    expect(await pool.forLanguage('python', PANDAS)).toBe(await pool.forRuntime(PANDAS));
    expect(await pool.forLanguage('python')).toBeInstanceOf(PythonExecutor);
    const js = await pool.forLanguage('js');
    expect(js).toBeInstanceOf(ProcessExecutor);
    expect(js).toBe(await pool.forProcessLanguage('js'));
    const result = await js.run({ id: 'js', program: 'const assert = require("assert");\nassert.strictEqual(1 + 1, 2);\n' });
    expect(result.status).toBe('passed');
  });

  it('refuses work once closed', async () => {
    const own = new SandboxPool({ concurrency: 1 });
    await own.forRuntime();
    await own.close();
    await expect(own.forRuntime()).rejects.toThrow(/closed/);
  });
});
