#!/usr/bin/env node
// scripts/evaluate.ts as a command of its own, from any directory: `bin/evaluate.mjs --problems ...`.
//
// Start-up (docs/benchmarks.md, evaluate start-up): loading the script's ~150 TypeScript modules
// through tsx's loader costs more than the whole budget for the first program (its hooks run on a
// thread of their own, one round trip per module; the main thread mostly waits). So the script is
// bundled once into one plain ES module (esbuild, which tsx itself uses; packages stay imports of
// node_modules) and that bundle is loaded directly by later runs, for as long as none of the files
// it was made from has changed (each one's size and mtime, checked at every start). Each module's
// own `import.meta.url` is kept (the script finds its Python zygote, servers and tools by it). A
// bundle that cannot be made or checked, or EXPLORA_EVALUATE_BUNDLE=0, falls back to tsx's loader.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';

const ENTRY = fileURLToPath(new URL('../scripts/evaluate.ts', import.meta.url));
const ROOT = dirname(dirname(ENTRY));
/** Files esbuild reads besides the modules (their compiler options). */
const SETTINGS = [join(ROOT, 'tsconfig.json'), join(ROOT, 'package.json')];

function identity(file) {
  const stat = statSync(file, { throwIfNoEntry: false });
  return stat ? [stat.size, stat.mtimeMs] : null;
}

/** The bundle a previous run made, if every file it was made from is as it was then. */
function keptBundle(dir) {
  try {
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    if (manifest.entry !== ENTRY || manifest.node !== process.version || typeof manifest.bundle !== 'string') return undefined;
    for (const [file, kept] of Object.entries(manifest.inputs))
      if (JSON.stringify(identity(file)) !== JSON.stringify(kept)) return undefined;
    return join(dir, manifest.bundle);
  } catch {
    return undefined;
  }
}

function writeAtomically(file, text) {
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}

/** Bundles the script, keeps the bundle and what it was made from (files changed meanwhile: not kept). */
async function makeBundle(dir) {
  const { build } = await import('esbuild');
  const inputs = {};
  for (const file of SETTINGS) inputs[file] = identity(file);
  let changedWhileRead = false;
  const keepOwnUrls = {
    name: 'explora-own-import-meta',
    setup(b) {
      b.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => {
        const before = identity(args.path);
        const text = readFileSync(args.path, 'utf8');
        if (JSON.stringify(identity(args.path)) !== JSON.stringify(before)) changedWhileRead = true;
        inputs[args.path] = before;
        const url = pathToFileURL(args.path).href;
        const contents = text
          .replaceAll('import.meta.url', JSON.stringify(url))
          .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
          .replaceAll('import.meta.filename', JSON.stringify(args.path));
        return { contents, loader: /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js' };
      });
    },
  };
  const result = await build({
    entryPoints: [ENTRY],
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: `node${process.versions.node.split('.')[0]}`,
    packages: 'external',
    // Each dynamically imported module in a chunk of its own, loaded when it is imported, with the
    // packages it imports (a single file would load every package up front: the AWS SDK, ...).
    splitting: true,
    outdir: join(dir, 'next'),
    entryNames: 'evaluate',
    outExtension: { '.js': '.mjs' },
    sourcemap: 'linked',
    write: false,
    logLevel: 'silent',
    plugins: [keepOwnUrls],
  });
  // The files go to a directory named by their content, made under a temporary name and renamed whole.
  const hash = createHash('sha256');
  for (const file of result.outputFiles) hash.update(file.path).update(file.contents);
  const name = hash.digest('hex').slice(0, 16);
  const target = join(dir, name);
  const tmp = `${target}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  for (const file of result.outputFiles) {
    const path = join(tmp, relative(join(dir, 'next'), file.path));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.contents);
  }
  try {
    renameSync(tmp, target);
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    // Another run made the same files meanwhile.
    if (!statSync(join(target, 'evaluate.mjs'), { throwIfNoEntry: false })) throw error;
  }
  // Bundles of earlier sources, a day old: gone (a run still using one has long loaded what it needs).
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (entry !== name && entry !== 'manifest.json' && statSync(path).mtimeMs < Date.now() - 86_400_000)
      rmSync(path, { recursive: true, force: true });
  }
  const bundle = join(name, 'evaluate.mjs');
  if (!changedWhileRead)
    writeAtomically(join(dir, 'manifest.json'), JSON.stringify({ entry: ENTRY, node: process.version, bundle, inputs }) + '\n');
  return join(dir, bundle);
}

async function bundle() {
  if (process.env.EXPLORA_EVALUATE_BUNDLE === '0') return undefined;
  // Inside node_modules, so that the bundle's imports of packages resolve as the script's do (tests name their own).
  const dir =
    process.env.EXPLORA_EVALUATE_BUNDLE_DIR ??
    join(ROOT, 'node_modules', '.cache', 'explora-evaluate', createHash('sha256').update(ENTRY).digest('hex').slice(0, 16));
  try {
    return keptBundle(dir) ?? (await makeBundle(dir));
  } catch {
    return undefined;
  }
}

const bundled = await bundle();
if (bundled) {
  process.setSourceMapsEnabled(true);
  await import(pathToFileURL(bundled).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../scripts/evaluate.ts');
}
