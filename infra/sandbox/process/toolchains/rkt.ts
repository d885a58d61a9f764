/**
 * Racket (MultiPL-E `rkt`): `racket program.rkt`, as its eval_racket.py runs it. rackunit reports
 * a failed check on stderr and still exits 0, so eval_racket.py calls any stderr (or a non-zero
 * exit) an Exception, and "read-syntax" in it a SyntaxError. Here the exit code carries that rule:
 * the run step is racket under a small POSIX shell wrapper that keeps racket's stderr, passes it
 * on, and exits 1 when racket exited 0 but wrote to stderr. Then: "read-syntax" is
 * `compile_error`, a rackunit FAILURE `failed`, "out of memory" `oom`, anything else `error`.
 * Memory: RLIMIT_DATA (Racket CS reserves address space it does not use). By default a warm racket
 * per slot runs the programs (../rktServer.ts, ../fork/rkt.rkt), applying the same rules; what it
 * cannot vouch for runs this cold step.
 */
import type { RunOutcome, StepResult, Toolchain } from '../contract.js';
import { BUILD_DIR } from '../contract.js';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { exitedWith, firstLine, killedBy, probeVersion, runLimits } from './common.js';
import { binaryIdentity, directoryIdentity, fileIdentity } from './keptBetweenRuns.js';
import { RacketServers } from '../rktServer.js';

export const RACKET_INSTALL =
  'run `npm run setup -- --languages rkt` (Debian: apt-get install racket) so that `racket` and rackunit are there';

/** racket, then its stderr passed on; a clean exit with something on stderr becomes exit 1 (eval_racket.py's rule). */
const WRAPPER = `racket ${BUILD_DIR}/program.rkt 2>racket.stderr; s=$?; cat racket.stderr >&2; if [ "$s" -eq 0 ] && [ -s racket.stderr ]; then exit 1; fi; exit "$s"`;

export function classifyRacket(run: StepResult): RunOutcome {
  const text = run.stderr;
  if (/out of memory/i.test(text))
    return { status: 'oom', exception: { type: 'OutOfMemory', message: firstLine(text, /out of memory/i) ?? 'out of memory' } };
  if (run.signal) return killedBy(run);
  if (/read-syntax/.test(text))
    return {
      status: 'compile_error',
      exception: { type: 'SyntaxError', message: firstLine(text, /read-syntax/) ?? 'read-syntax', traceback: text.slice(-4000) },
    };
  if (/^FAILURE$/m.test(text))
    return {
      status: 'failed',
      exception: {
        type: 'CheckFailure',
        message: (firstLine(text, /^(actual|name):/) ?? 'a rackunit check failed').slice(0, 2000),
        traceback: text.slice(-4000),
      },
    };
  if (text.trim())
    return {
      status: 'error',
      exception: { type: 'RacketError', message: text.trim().split('\n')[0]!.slice(0, 2000), traceback: text.slice(-4000) },
    };
  return exitedWith(run);
}

/**
 * What the check's answer (racket/base and rackunit load) depends on beyond racket's own binary:
 * where racket finds its collections and packages, read without starting racket (~0.3 s, what
 * keeping the answer saves). The installation's config.rktd (a tarball install: <prefix>/etc;
 * Debian's, under /usr: /etc/racket) names its share, package and compiled-file directories; the key holds
 * their identities (a package installed or removed changes the package directory's), rackunit's
 * own package directory, the installation's and the user's links files, the user's add-on
 * directory, and the PLT variables that move any of these.
 */
export function rktDependsOn(path: string = process.env.PATH ?? '/usr/bin:/bin', env: NodeJS.ProcessEnv = process.env): unknown {
  const racket = binaryIdentity('racket', path)?.file;
  if (!racket) return null;
  const prefix = dirname(dirname(racket));
  // Debian's racket (under /usr) reads /etc/racket; an installation elsewhere, its own <prefix>/etc.
  const configs = [join(prefix, 'etc', 'config.rktd'), join(prefix, 'etc', 'racket', 'config.rktd')];
  if (prefix === '/usr') configs.push('/etc/racket/config.rktd');
  const configFile = configs.find((f) => fileIdentity(f) !== undefined);
  let config = '';
  try {
    config = configFile ? readFileSync(configFile, 'utf8') : '';
  } catch {
    config = '';
  }
  const configured = (name: string) => new RegExp(`\\(${name} \\. "([^"]+)"\\)`).exec(config)?.[1];
  const share = configured('share-dir') ?? join(prefix, 'share', 'racket');
  const pkgs = configured('pkgs-dir') ?? join(share, 'pkgs');
  const lib = configured('lib-dir') ?? join(prefix, 'lib', 'racket');
  const home = env.PLTUSERHOME || env.HOME || '/';
  const addon = env.PLTADDONDIR || join(home, '.local', 'share', 'racket');
  return {
    config: configFile ? fileIdentity(configFile) : null,
    links: fileIdentity(join(share, 'links.rktd')) ?? null,
    collects: directoryIdentity(join(share, 'collects')) ?? null,
    pkgs: directoryIdentity(pkgs) ?? null,
    rackunit: directoryIdentity(join(pkgs, 'rackunit-lib')) ?? null,
    compiled: directoryIdentity(join(lib, 'compiled')) ?? null,
    addon: directoryIdentity(addon) ?? null,
    addonLinks: fileIdentity(join(addon, 'links.rktd')) ?? null,
    env: ['PLTCOLLECTS', 'PLTADDONDIR', 'PLTUSERHOME', 'PLTCOMPILEDROOTS', 'PLT_ZO_COMPILE'].map((k) => [k, env[k] ?? null]),
  };
}

export function rktToolchain(): Toolchain {
  return {
    language: 'rkt',
    name: 'Racket (racket, rackunit)',
    check: () =>
      probeVersion(
        'racket',
        ['-l', 'racket/base', '-l', 'rackunit', '-e', '(displayln (version))'],
        'racket or rackunit',
        RACKET_INSTALL,
        {},
        { keepBetweenRuns: true, alsoDependsOn: rktDependsOn },
      ),
    mounts: () => [],
    files: (program) => ({ 'program.rkt': program }),
    compile: () => null,
    run: (limits) => ({
      kind: 'sandbox',
      argv: ['/bin/sh', '-c', WRAPPER],
      env: { LANG: 'C.UTF-8', HOME: '/tmp' },
      limits: runLimits(limits, 'data'),
    }),
    // The default (forkServer; --no-fork-server: cold): a warm racket per slot runs each program in a
    // racket/sandbox evaluator, in the lone run's jail; what it cannot vouch for runs cold (../rktServer.ts).
    slotServers: (mounts, tmpBytes) => new RacketServers(mounts, tmpBytes),
    classify: classifyRacket,
  };
}
