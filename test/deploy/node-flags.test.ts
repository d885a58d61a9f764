/**
 * The long-lived commands that host workers (the worker, a sweep, dataset generation; `npm start`'s
 * default sweep starts a sweep with the sweep's flags) run node with one set of flags, read from
 * package.json by npmScriptNodeFlags (which the sweep benchmark and the image's test use); a
 * script of another shape is refused by name.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { npmScriptNodeFlags } from '../../scripts/lib/node-flags.js';

const LONG_LIVED: Array<[string, string]> = [
  ['worker', 'workers/main.ts'],
  ['sweep', 'scripts/start-sweep.ts'],
  ['generate', 'scripts/generate-dataset.ts'],
];

describe('the node flags of the long-lived commands', () => {
  it('are the same for every one, and give V8 a larger young generation', () => {
    const flags = LONG_LIVED.map(([name, entry]) => npmScriptNodeFlags(name, entry));
    for (const f of flags) expect(f).toEqual(flags[0]);
    expect(flags[0]).toContainEqual(expect.stringMatching(/^--max-semi-space-size=\d+$/));
  });

  const root = mkdtempSync(path.join(os.tmpdir(), 'explora-node-flags-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const withScripts = (scripts: Record<string, string>) => {
    writeFileSync(path.join(root, 'package.json'), JSON.stringify({ scripts }));
    return root;
  };

  it('reads flags, none, and the part after an && chain', () => {
    expect(npmScriptNodeFlags('a', 'x.ts', withScripts({ a: 'exec node --one=1 --two bin/run.mjs x.ts' }))).toEqual(['--one=1', '--two']);
    expect(npmScriptNodeFlags('a', 'x.ts', withScripts({ a: 'exec node bin/run.mjs x.ts' }))).toEqual([]);
    expect(npmScriptNodeFlags('a', 'x.ts', withScripts({ a: 'bash setup.sh && exec node --f bin/run.mjs x.ts' }))).toEqual(['--f']);
  });

  it('refuses a missing script, another entry and a script that is not exec node', () => {
    const r = withScripts({ a: 'exec node bin/run.mjs y.ts', b: 'node bin/run.mjs x.ts' });
    expect(() => npmScriptNodeFlags('none', 'x.ts', r)).toThrow(/package\.json: no npm script "none"/);
    expect(() => npmScriptNodeFlags('a', 'x.ts', r)).toThrow(
      /the npm script "a" does not end in "exec node \[--flags\] bin\/run\.mjs x\.ts": exec node bin\/run\.mjs y\.ts/,
    );
    expect(() => npmScriptNodeFlags('b', 'x.ts', r)).toThrow(/the npm script "b" does not end in/);
  });
});
