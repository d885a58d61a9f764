/**
 * R's fork server (forkServer.ts): a warm Rscript running fork/r.R, which loads
 * fork/rfork.c's library (the server loop; base R cannot drop to a uid, set rlimits or move file
 * descriptors) and hands the child's console over to the program. Without a compiler R stays in
 * exec mode (execForkServer).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ForkServerSpec } from './contract.js';
import { forkLibrary } from './forkLibrary.js';
import { execForkServer } from './forkServer.js';
import { WARM_TOOLS_DIR } from './toolchains/common.js';

const SCRIPT = fileURLToPath(new URL('./fork/r.R', import.meta.url));

/** The library's host path, built on first need; null when it cannot be built here (no compiler). */
export function rForkLibrary(dir = join(WARM_TOOLS_DIR, 'fork')): string | null {
  return forkLibrary('rfork.c', [], dir);
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
