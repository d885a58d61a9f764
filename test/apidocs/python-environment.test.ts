/**
 * A dataset's Python environment for the methods' own runs (domain/apidocs/pythonEnvironment.ts),
 * run by the sandbox's interpreter: the environment's modules shadow the interpreter's own, its
 * .pth files are read, its variables are set (TZ taking effect), HOME is the working directory unless
 * set, `from __future__` lines stay first, a traceback's line numbers move by one, and the preamble
 * leaves no names behind.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withPythonEnvironment } from '../../domain/apidocs/pythonEnvironment.js';
import { resolveSandboxPython } from '../../infra/sandbox/python.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-pyenv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(program: string, env: Record<string, string> = {}): { stdout: string; stderr: string } {
  try {
    const options = { encoding: 'utf8' as const, stdio: 'pipe' as const, cwd: dir, env: { PATH: process.env.PATH ?? '', ...env } };
    return { stdout: execFileSync(resolveSandboxPython(), ['-c', program], options), stderr: '' };
  } catch (err) {
    const e = err as { stdout: string; stderr: string };
    return { stdout: e.stdout, stderr: e.stderr };
  }
}

describe('withPythonEnvironment', () => {
  // An environment (a venv's layout, with a name containing a quote) whose json shadows the standard library's.
  const env = { path: path.join(dir, "bcb 'env'"), environ: { TZ: 'Asia/Tokyo', EXPLORA_PROBE: "it's set" } };
  const site = path.join(env.path, 'lib', 'python3.11', 'site-packages');
  mkdirSync(site, { recursive: true });
  writeFileSync(path.join(site, 'json.py'), "WHERE = 'the environment'\n");
  mkdirSync(path.join(dir, 'extra'));
  writeFileSync(path.join(dir, 'extra', 'explora_pth_probe.py'), "WHERE = 'a .pth folder'\n");
  writeFileSync(path.join(site, 'extra.pth'), `${path.join(dir, 'extra')}\n`);

  it("imports the environment's modules first, and what its .pth files add", () => {
    const program = withPythonEnvironment('import json, explora_pth_probe\nprint(json.WHERE, "/", explora_pth_probe.WHERE)', env);
    expect(run(program)).toEqual({ stdout: 'the environment / a .pth folder\n', stderr: '' });
    // Without it, the interpreter's own.
    expect(run('import json\nprint(hasattr(json, "WHERE"))').stdout).toBe('False\n');
  });

  it('sets its variables, TZ taking effect, and HOME to the working directory unless set', () => {
    const program = withPythonEnvironment(
      'import os, time\nprint(os.environ["EXPLORA_PROBE"], time.strftime("%H", time.localtime(0)), os.environ["HOME"])',
      env,
    );
    expect(run(program).stdout).toBe(`it's set 09 ${dir}\n`);
    expect(run(program, { HOME: '/home/someone' }).stdout).toBe("it's set 09 /home/someone\n");
  });

  it('keeps __future__ imports first, moves line numbers by one, and leaves no names', () => {
    const program = withPythonEnvironment(
      'from __future__ import annotations\nnames = sorted(n for n in globals() if "explora" in n)\nprint(names)\nraise ValueError("line 4")',
      env,
    );
    expect(program.split('\n')[0]).toBe('from __future__ import annotations');
    const { stdout, stderr } = run(program);
    expect(stdout).toBe('[]\n');
    expect(stderr).toContain('line 5');
    expect(stderr).toContain('ValueError: line 4');
  });
});
