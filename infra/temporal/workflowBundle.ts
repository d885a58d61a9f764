/**
 * The workflow bundle, built once per version of the code instead of at every worker start. Building
 * it (webpack over workflows/, domain/ and the methods' workflow faces) costs several CPU-seconds on
 * a 2-core machine at each `start-sweep`, each `workers` start and each e2e test's workers: a
 * fixed cost, but one that a sweep's throughput pays for (scripts/bench/bench-sweep-overhead.ts).
 *
 * The bundle is kept in the tools folder under a hash of everything it can depend on: the contents
 * of every source file of the folders workflow code may import from (the dependency rules keep it
 * there), the lock file, the Temporal SDK's version and the entry file. Any change to any of them is
 * another hash, so a kept bundle is never stale; a bundle that cannot be read or written is built as
 * before.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, type Logger, type WorkflowBundle } from '@temporalio/worker';

const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The workflows' entry point: what every worker runs, bundled. */
export const WORKFLOWS_ENTRY = path.join(PROJECT_ROOT, 'workflows', 'index.ts');

/** Where bundles are kept: the tools folder (EXPLORA_TOOLS_DIR, else the project's .tools). */
export function workflowBundleDir(env: Record<string, string | undefined> = process.env): string {
  return path.join(path.resolve(env.EXPLORA_TOOLS_DIR || path.join(PROJECT_ROOT, '.tools')), 'workflow-bundles');
}

/** Folders whose files a bundle can contain (workflow code, what it imports, and their neighbours, to be safe). */
const SOURCE_DIRS = ['workflows', 'domain', 'methods', 'activities', 'infra'];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    // A folder that is not there holds nothing (its absence is in the hash as no files).
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw err;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

/** The hash a bundle of `workflowsPath` is kept under, or null for an entry outside the project's source folders. */
export function workflowBundleKey(workflowsPath: string, root = PROJECT_ROOT): string | null {
  const entry = path.relative(root, path.resolve(workflowsPath));
  if (entry.startsWith('..') || path.isAbsolute(entry) || !SOURCE_DIRS.includes(entry.split(path.sep)[0]!)) return null;
  const hash = createHash('sha256');
  const sdk = JSON.parse(readFileSync(path.join(root, 'node_modules/@temporalio/worker/package.json'), 'utf8')) as { version: string };
  hash.update(`sdk ${sdk.version}\nentry ${entry}\n`);
  hash.update(readFileSync(path.join(root, 'package-lock.json')));
  for (const file of SOURCE_DIRS.flatMap((d) => sourceFiles(path.join(root, d))).sort()) {
    hash.update(`\n${path.relative(root, file)}\n`);
    hash.update(readFileSync(file));
  }
  return hash.digest('hex').slice(0, 32);
}

/**
 * The bundle of `workflowsPath`: the kept one when this version of the code has one, else built and
 * kept in `cacheDir`. Undefined when it cannot be kept (an entry outside the project): the worker
 * then bundles as it always did.
 */
export async function keptWorkflowBundle(workflowsPath: string, cacheDir: string, logger?: Logger): Promise<WorkflowBundle | undefined> {
  let key: string | null;
  try {
    key = workflowBundleKey(workflowsPath);
  } catch {
    return undefined;
  }
  if (key === null) return undefined;
  const file = path.join(cacheDir, `${key}.js`);
  try {
    return { code: readFileSync(file, 'utf8') };
  } catch {
    // Not built yet for this version of the code.
  }
  const bundle = await bundleWorkflowCode({ workflowsPath, ...(logger ? { logger } : {}) });
  try {
    mkdirSync(cacheDir, { recursive: true });
    // Written whole, then renamed: a worker starting meanwhile reads a complete bundle or none.
    const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(tmp, bundle.code);
    renameSync(tmp, file);
    pruneOldBundles(cacheDir, file);
  } catch (err) {
    console.warn(`workflow bundle not kept in ${cacheDir}: ${(err as Error).message}`);
  }
  return bundle;
}

/** Bundles of older versions of the code go, except the few newest (other checkouts may use them). */
function pruneOldBundles(cacheDir: string, keep: string, newest = 8): void {
  const mtime = (f: string) => {
    try {
      return statSync(f).mtimeMs;
    } catch {
      return 0;
    }
  };
  const older = readdirSync(cacheDir)
    .filter((f) => f.endsWith('.js'))
    .map((f) => path.join(cacheDir, f))
    .filter((f) => f !== keep)
    .map((f) => ({ f, t: mtime(f) }))
    .sort((a, b) => b.t - a.t);
  for (const { f } of older.slice(newest - 1)) rmSync(f, { force: true });
}
