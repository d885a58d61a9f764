/**
 * R's fork server (opt-in, forkServer.ts): a warm Rscript running fork/r.R, which loads
 * fork/rfork.c's library (the server loop; base R cannot drop to a uid, set rlimits or move file
 * descriptors) and hands the child's console over to the program. The library is built once per
 * source text with the machine's C compiler into the warm tools directory (a second runner finds
 * it there); without a compiler R stays in exec mode (execForkServer).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ForkServerSpec } from './contract.js';
import { execForkServer } from './forkServer.js';
import { WARM_TOOLS_DIR } from './toolchains/common.js';

const SOURCE = fileURLToPath(new URL('./fork/rfork.c', import.meta.url));
const SCRIPT = fileURLToPath(new URL('./fork/r.R', import.meta.url));

/** Per directory: the library built there, or null (no compiler). */
const builtIn = new Map<string, string | null>();

/** The library's host path, built on first need; null when it cannot be built here. */
export function rForkLibrary(dir = join(WARM_TOOLS_DIR, 'fork')): string | null {
  if (builtIn.has(dir)) return builtIn.get(dir)!;
  let built: string | null;
  try {
    const hash = createHash('sha256').update(readFileSync(SOURCE)).digest('hex').slice(0, 16);
    const library = join(dir, `rfork-${hash}.so`);
    if (!existsSync(library)) {
      mkdirSync(dir, { recursive: true });
      // Built beside its final name and renamed: a runner that starts meanwhile sees all of it or none.
      const partial = `${library}.${process.pid}.partial`;
      execFileSync('cc', ['-O2', '-Wall', '-shared', '-fPIC', '-o', partial, SOURCE], { stdio: 'ignore', timeout: 60_000 });
      renameSync(partial, library);
    }
    built = library;
  } catch {
    built = null;
  }
  builtIn.set(dir, built);
  return built;
}

/**
 * R's server: `Rscript /fork/r.R`, as a lone run is `Rscript /build/program.r` (the same R start,
 * default packages and options), with its requests moved to fd 3 and stdin /dev/null.
 */
export function rForkServer(): ForkServerSpec {
  const library = rForkLibrary();
  if (!library) return execForkServer();
  return {
    script: SCRIPT,
    argv: (script) => ['sh', '-c', 'exec Rscript "$0" 3<&0 0</dev/null', script],
    mounts: [{ host: library, sandbox: '/fork/rfork.so' }],
  };
}
