/**
 * The native part of a fork server (fork/rfork.c for R, fork/luafork.c for Lua, both on
 * fork/forkserve.h's loop): built once per source text with the machine's C compiler into the warm
 * tools directory (a second runner finds it there). Null when it cannot be built here (no
 * compiler, or the language's headers missing): the language then stays in exec mode.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WARM_TOOLS_DIR } from './toolchains/common.js';

const SHARED = fileURLToPath(new URL('./fork/forkserve.h', import.meta.url));

/** Per library path: built, or not buildable (null). */
const built = new Map<string, string | null>();

/**
 * The library's host path for fork/<source>, built on first need with the extra compiler flags
 * (e.g. a header directory); null when it cannot be built.
 */
export function forkLibrary(source: string, flags: readonly string[] = [], dir = join(WARM_TOOLS_DIR, 'fork')): string | null {
  const file = fileURLToPath(new URL(`./fork/${source}`, import.meta.url));
  const key = `${dir}\0${source}\0${flags.join(' ')}`;
  if (built.has(key)) return built.get(key)!;
  let library: string | null;
  try {
    // Named by what it is built from: an edit of either source, or other flags, builds afresh.
    const hash = createHash('sha256')
      .update(readFileSync(file))
      .update(readFileSync(SHARED))
      .update(flags.join(' '))
      .digest('hex')
      .slice(0, 16);
    library = join(dir, `${source.replace(/\.c$/, '')}-${hash}.so`);
    if (!existsSync(library)) {
      mkdirSync(dir, { recursive: true });
      // Built beside its final name and renamed: a runner that starts meanwhile sees all of it or none.
      const partial = `${library}.${process.pid}.partial`;
      execFileSync('cc', ['-O2', '-Wall', '-shared', '-fPIC', ...flags, '-o', partial, file], { stdio: 'ignore', timeout: 60_000 });
      renameSync(partial, library);
    }
  } catch {
    library = null;
  }
  built.set(key, library);
  return library;
}
