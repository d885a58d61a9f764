// Runs one of the project's TypeScript entry points (a script, the worker) in this process, fast.
//
// Start-up (docs/benchmarks.md#command-start-up): loading an entry's hundreds of
// TypeScript modules through tsx's loader costs seconds of CPU at every start (its hooks run on a
// thread of their own, one round trip per module; the main thread mostly waits): `start-sweep
// --dry-run` took 5.2-6.8 CPU-s that way, 3.1-4.1 from a bundle. So the entry is bundled once into plain ES modules (esbuild, which
// tsx itself uses; packages stay imports of node_modules) and that bundle is loaded directly by later
// runs, for as long as none of the files it was made from has changed (each one's size and mtime,
// checked at every start). Each module's own `import.meta.url` is kept (the code finds its Python
// zygote, servers and tools by it). A bundle that cannot be made or checked falls back to tsx's
// loader, as does a run with the bundle turned off (the caller's switch).
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, relative, resolve, sep } from 'node:path';
import console from 'node:console';
import process from 'node:process';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';

/** The project's root: bin/lib/ is two levels below it. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
/** Files esbuild reads besides the modules (their compiler options). */
const SETTINGS = [join(ROOT, 'tsconfig.json'), join(ROOT, 'package.json')];

function identity(file) {
  const stat = statSync(file, { throwIfNoEntry: false });
  return stat ? [stat.size, stat.mtimeMs] : null;
}

/** The bundle a previous run made, if every file it was made from is as it was then. */
function keptBundle(dir, entry) {
  try {
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    if (manifest.entry !== entry || manifest.node !== process.version || typeof manifest.bundle !== 'string') return undefined;
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

/** Bundles the entry, keeps the bundle and what it was made from (files changed meanwhile: not kept). */
async function makeBundle(dir, entry) {
  const { build } = await import('esbuild');
  const name = basename(entry, extname(entry));
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
    entryPoints: [entry],
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
    entryNames: name,
    outExtension: { '.js': '.mjs' },
    sourcemap: 'linked',
    write: false,
    logLevel: 'silent',
    plugins: [keepOwnUrls],
  });
  // The files go to a directory named by their content, made under a temporary name and renamed whole.
  const hash = createHash('sha256');
  for (const file of result.outputFiles) hash.update(file.path).update(file.contents);
  const version = hash.digest('hex').slice(0, 16);
  const target = join(dir, version);
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
    if (!statSync(join(target, `${name}.mjs`), { throwIfNoEntry: false })) throw error;
  }
  // Bundles of earlier sources, a day old: gone (a run still using one has long loaded what it needs).
  for (const item of readdirSync(dir)) {
    const path = join(dir, item);
    if (item !== version && item !== 'manifest.json' && statSync(path).mtimeMs < Date.now() - 86_400_000)
      rmSync(path, { recursive: true, force: true });
  }
  const bundle = join(version, `${name}.mjs`);
  if (!changedWhileRead)
    writeAtomically(join(dir, 'manifest.json'), JSON.stringify({ entry, node: process.version, bundle, inputs }) + '\n');
  return join(dir, bundle);
}

/**
 * The bundles of `entry` (an absolute path) live in `dir` when given, else in one directory per entry
 * under node_modules/.cache, so that the bundle's imports of packages resolve as the entry's do.
 */
export function bundleDirOf(entry, root = join(ROOT, 'node_modules', '.cache', 'explora-bundles')) {
  return join(root, `${basename(entry, extname(entry))}-${createHash('sha256').update(entry).digest('hex').slice(0, 16)}`);
}

/**
 * Runs `entry` in this process (no relay of signals in between: a stop signal reaches the entry's
 * own handlers): from its kept or new bundle, or through tsx's loader when `bundled` is false or no
 * bundle can be had.
 */
export async function launch(entry, { bundled = true, dir = bundleDirOf(entry), dirSetting = `the bundle directory ${dir}` } = {}) {
  // A bundle imports its packages by name, found from where it lies: in a folder outside the
  // project, no node_modules is above it, and every start would fail after the bundle was made.
  if (bundled && !resolve(dir).startsWith(ROOT + sep)) {
    console.error(
      `${dirSetting} is outside the project (${ROOT}): a bundle kept there cannot find node_modules; name a folder inside it, or leave it unset`,
    );
    process.exit(2);
  }
  let file;
  if (bundled) {
    try {
      file = keptBundle(dir, entry) ?? (await makeBundle(dir, entry));
    } catch {
      file = undefined;
    }
  }
  if (file) {
    process.setSourceMapsEnabled(true);
    await import(pathToFileURL(file).href);
  } else {
    const { register } = await import('tsx/esm/api');
    register();
    await import(pathToFileURL(entry).href);
  }
}
