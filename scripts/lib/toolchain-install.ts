/**
 * A language's toolchain is installed when a sweep or `evaluate` first needs it: the languages whose
 * check failed and whose toolchain this project installs itself (Debian packages, javatuples and the
 * warm compilers: scripts/install-toolchains.sh) are installed by `npm run setup -- --only
 * --languages ...`, once per process, its one line per step on stderr and the details in its log.
 * What still fails afterwards (not root, no apt, a compiler that is the machine's own: Go, Rust, a
 * JDK, Julia, Swift) is refused by the caller as before, naming the command.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { forgetFailedProbes, REPO_ROOT } from '../../infra/sandbox/process/toolchains/common.js';

/** The languages whose toolchain scripts/install-toolchains.sh can install (the others' compilers are the machine's). */
const INSTALLABLE = new Set(['java', 'lua', 'rb', 'php', 'pl', 'sh', 'r', 'rkt', 'd', 'scala', 'cs']);

const attempted = new Set<string>();

/** The command that installs the languages' toolchains, as a person types it. */
export function setupCommand(languages: readonly string[]): string {
  return `npm run setup -- --languages ${languages.join(',')}`;
}

/**
 * Installs the toolchains of those `languages` that this project can install and this process has
 * not tried before; resolves true when it ran the installer (the caller then checks again).
 */
export async function installToolchains(languages: readonly string[], say: (line: string) => void): Promise<boolean> {
  const wanted = [...new Set(languages)].filter((l) => INSTALLABLE.has(l) && !attempted.has(l)).sort();
  if (wanted.length === 0) return false;
  for (const l of wanted) attempted.add(l);
  say(`installing the toolchain of ${wanted.join(', ')}, which this run needs (once; the same as \`${setupCommand(wanted)}\`)`);
  await new Promise<void>((resolve) => {
    const child = spawn('bash', [join(REPO_ROOT, 'scripts/install-tools.sh'), '--only', '--languages', wanted.join(',')], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    // Its own lines say how it went; whatever is still missing is refused by the check that follows.
    child.on('error', (err) => {
      say(`could not run scripts/install-tools.sh: ${err.message}`);
      resolve();
    });
    child.on('exit', () => resolve());
  });
  forgetFailedProbes();
  return true;
}
