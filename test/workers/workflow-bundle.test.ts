/**
 * The kept workflow bundle (infra/temporal/workflowBundle.ts): its key follows every file it can
 * depend on, and a kept bundle is what a worker gets for the same code, without bundling again.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { keptWorkflowBundle, workflowBundleKey } from '../../infra/temporal/workflowBundle.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'explora-bundle-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A project tree with the files the key reads. */
function fakeProject(): string {
  const root = mkdtempSync(path.join(tmp, 'root-'));
  const file = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };
  file('node_modules/@temporalio/worker/package.json', '{"version": "1.0.0"}');
  file('package-lock.json', '{}');
  file('workflows/index.ts', "export * from './a.js';\n");
  file('domain/rule.ts', 'export const limit = 1;\n');
  file('infra/io.ts', 'export const x = 1;\n');
  return root;
}

describe('workflow bundle key', () => {
  it('changes with any source file, the lock file or the SDK version, and only with them', () => {
    const root = fakeProject();
    const entry = path.join(root, 'workflows/index.ts');
    const key = workflowBundleKey(entry, root);
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(workflowBundleKey(entry, root)).toBe(key);
    writeFileSync(path.join(root, 'docs.md'), 'not a source file');
    expect(workflowBundleKey(entry, root)).toBe(key);
    const keys = new Set([key]);
    for (const [rel, text] of [
      ['domain/rule.ts', 'export const limit = 2;\n'],
      ['infra/io.ts', 'export const x = 2;\n'],
      ['methods/direct/workflow.ts', 'export {};\n'],
      ['package-lock.json', '{"lockfileVersion": 3}'],
      ['node_modules/@temporalio/worker/package.json', '{"version": "1.0.1"}'],
    ] as const) {
      mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      writeFileSync(path.join(root, rel), text);
      const next = workflowBundleKey(entry, root);
      expect(keys.has(next!), `after changing ${rel}`).toBe(false);
      keys.add(next!);
    }
  });

  it('is none for an entry outside the source folders (a test bundle): the worker bundles it', async () => {
    const root = fakeProject();
    writeFileSync(path.join(root, 'extra.ts'), 'export {};\n');
    expect(workflowBundleKey(path.join(root, 'extra.ts'), root)).toBeNull();
    expect(workflowBundleKey(path.join(tmp, 'elsewhere.ts'), root)).toBeNull();
    expect(await keptWorkflowBundle(path.join(tmp, 'elsewhere.ts'), path.join(tmp, 'cache'))).toBeUndefined();
  });

  it('gives the kept bundle of this version of the code', async () => {
    const entry = path.join(ROOT, 'workflows/index.ts');
    const dir = path.join(tmp, 'kept');
    mkdirSync(dir);
    writeFileSync(path.join(dir, `${workflowBundleKey(entry)}.js`), '/* the kept bundle */');
    expect(await keptWorkflowBundle(entry, dir)).toEqual({ code: '/* the kept bundle */' });
  });
});
