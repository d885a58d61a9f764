/**
 * A language's toolchain is installed when `evaluate` first needs it (scripts/lib/toolchain-install.ts):
 * with a tools folder of its own, Java's javatuples and warm javac server are missing, are installed
 * by the run itself, and its program then runs; a toolchain that cannot be installed here (no lua,
 * no apt-get on PATH) is still refused before anything runs, naming the command that installs it.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { addRow, COMPLETIONS, jsonl } from '../support/multiple-rows.js';
import { RUN_ENTRY } from '../support/processes.js';

const dir = mkdtempSync(path.join(tmpdir(), 'explora-on-need-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function evaluate(args: string[], env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [RUN_ENTRY, path.join(PROJECT_ROOT, 'scripts/evaluate.ts'), ...args],
      { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, timeout: 300_000 },
      (error, _stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

describe('evaluate installs the toolchain a language needs', () => {
  it('installs what is missing (javatuples, the warm javac server) and runs the program', async () => {
    const tools = path.join(dir, 'tools');
    const problems = path.join(dir, 'humaneval-java.jsonl');
    writeFileSync(problems, jsonl([addRow('java', 1)]));
    const samples = path.join(dir, 'java-samples.jsonl');
    writeFileSync(samples, jsonl([{ task_id: 'HumanEval_1_add', completion: COMPLETIONS.java.right }]));
    const r = await evaluate(['--problems', problems, '--samples', samples], { EXPLORA_TOOLS_DIR: tools });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('evaluate: installing the toolchain of java, which this run needs');
    expect(r.stderr).toMatch(/setup: toolchains: java +ok \(/);
    expect(existsSync(path.join(tools, 'multiple', 'javatuples-1.2.jar'))).toBe(true);
    expect(existsSync(path.join(tools, 'logs', 'setup-toolchains.log'))).toBe(true);
    const results = readFileSync(`${samples}_results.jsonl`, 'utf8').trim().split('\n');
    expect(results.map((l) => (JSON.parse(l) as { passed: boolean }).passed)).toEqual([true]);
  }, 300_000);

  it('refuses, naming the command, a toolchain it cannot install here', async () => {
    const bin = path.join(dir, 'bin');
    mkdirSync(bin);
    for (const from of ['/usr/bin', '/bin'])
      for (const command of existsSync(from) ? readdirSync(from) : [])
        if (!/^(lua|apt)/.test(command) && !existsSync(path.join(bin, command)))
          symlinkSync(path.join(from, command), path.join(bin, command));
    const problems = path.join(dir, 'humaneval-lua.jsonl');
    writeFileSync(problems, jsonl([addRow('lua', 1)]));
    const samples = path.join(dir, 'lua-samples.jsonl');
    writeFileSync(samples, jsonl([{ task_id: 'HumanEval_1_add', completion: COMPLETIONS.lua.right }]));
    const r = await evaluate(['--problems', problems, '--samples', samples], { PATH: bin, EXPLORA_TOOLS_DIR: path.join(dir, 'tools-lua') });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('evaluate: installing the toolchain of lua, which this run needs');
    expect(r.stderr).toMatch(/setup: toolchains: lua +1 language\(s\) cannot run here until installed: lua/);
    expect(r.stderr).toMatch(/language lua \(.+\) cannot run here: lua or luaunit is missing; run `npm run setup -- --languages lua`/);
    expect(existsSync(`${samples}_results.jsonl`)).toBe(false);
  }, 120_000);
});
