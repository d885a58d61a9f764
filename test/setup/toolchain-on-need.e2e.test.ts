/**
 * A sweep installs the toolchain a dataset's language needs before it starts
 * (scripts/lib/sweep-input.ts, toolchain-install.ts), and refuses up front what it still cannot
 * run, naming the command that installs it: here a machine without lua and without apt-get (a
 * PATH of links to the machine's commands less those), where the install is tried and cannot succeed.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepResultsKey } from '../../domain/sweep/keys.js';
import { getText } from '../../infra/s3.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { addRow, jsonl } from '../support/multiple-rows.js';
import { runTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';

describe('a sweep whose language needs a toolchain', () => {
  const { config, env } = testConfig();
  const bucket = testBucket(config);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-on-need-sweep-'));
  let server: ScriptedLlmServer;

  beforeAll(async () => {
    server = await startScriptedLlmServer(() => ({ content: '  return x + y\nend\n' }));
  });
  afterAll(async () => {
    await server.close();
    bucket.s3.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('tries to install it first, then refuses before starting, naming the setup command', async () => {
    const bin = path.join(dir, 'bin');
    mkdirSync(bin);
    for (const from of ['/usr/bin', '/bin'])
      for (const command of existsSync(from) ? readdirSync(from) : [])
        if (!/^(lua|apt)/.test(command) && !existsSync(path.join(bin, command)))
          symlinkSync(path.join(from, command), path.join(bin, command));
    writeFileSync(path.join(dir, 'humaneval-lua.jsonl'), jsonl([addRow('lua', 1)]));
    const id = `on-need-lua-${uniqueSuffix()}`;
    const file = path.join(dir, 'lua.yaml');
    writeFileSync(
      file,
      `id: ${id}\ndatasets:\n  - name: humaneval-lua\n    family: multipl-e\n    path: humaneval-lua.jsonl\n    language: lua\nmodels:\n  - id: base\n    base_url: ${server.url}\n    model: scripted-base\n    api: completions\nmethods: [direct]\ntemperatures: [0]\nn_samples: 1\nk: [1]\n`,
    );
    const before = server.requests().length;
    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], {
      ...env,
      PATH: bin,
      EXPLORA_TOOLS_DIR: path.join(dir, 'tools'),
    });
    expect(run.code, run.output).not.toBe(0);
    expect(run.output).toContain('installing the toolchain of lua, which this run needs');
    expect(run.output).toMatch(/setup: toolchains: lua +1 language\(s\) cannot run here until installed: lua/);
    expect(run.output).toMatch(
      /datasets\[humaneval-lua\]: language lua \(.+\) cannot run here: lua or luaunit is missing; run `npm run setup -- --languages lua`/,
    );
    expect(server.requests().length).toBe(before);
    expect(await getText(bucket, sweepResultsKey(id))).toBeNull();
  }, 180_000);
});
