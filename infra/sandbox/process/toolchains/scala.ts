/**
 * Scala (MultiPL-E `scala`): as its eval_scala.py, `scalac -d <dir> program.scala` (a failure is
 * its SyntaxError: `compile_error`), then `scala -cp <dir> Problem`: OK only when it exits 0 and
 * wrote nothing to stderr, else an Exception. MultiPL-E's image installs Ubuntu's `scala` package,
 * Scala 2.11.12; Debian bookworm's is the same version, and it runs on the machine's JDK 17.
 *
 * The run step is `java` itself with the Scala library on the classpath: the `scala` script's
 * object runner calls the same `Problem.main` (its extra class loader frames change no outcome)
 * and takes one more JVM start-up script. A small POSIX shell wrapper keeps eval_scala.py's rule:
 * it passes the JVM's stderr on and exits 1 when the JVM exited 0 but wrote to stderr. Then as
 * Java: java.lang.AssertionError (Predef.assert's "assertion failed") is `failed`,
 * OutOfMemoryError `oom`, another uncaught exception `error`.
 *
 * Memory: RLIMIT_DATA with the heap at half of it, and at least 64 processes (the JVM's threads),
 * as for Java. The compiler runs on C1 only (a short-lived JVM: faster, the same classes).
 */
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import type { Mount, RunOutcome, StepResult, Toolchain } from '../contract.js';
import { BUILD_DIR } from '../contract.js';
import { classifyJava } from './java.js';
import { COMPILE_LIMITS, exitedWith, firstFailed, probeVersion, runLimits } from './common.js';
import { binaryIdentity, fileIdentity } from './keptBetweenRuns.js';

export const SCALA_INSTALL =
  "run `npm run setup -- --languages scala` (Debian: apt-get install scala, Scala 2.11 as in MultiPL-E's image) so that `scalac` is on PATH, with a JDK";
const LIBRARY_IN_SANDBOX = '/opt/scala/scala-library.jar';
const JVM_FLAGS = ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-XX:-UsePerfData', '-Xshare:auto'];

/** The Scala installation behind `scalac` on PATH: its home (the script's ../) and its library jar. */
export function scalaInstallation(): { home: string; library: string } | undefined {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(delimiter)) {
    const script = join(dir, 'scalac');
    if (!dir || !existsSync(script)) continue;
    const home = dirname(dirname(realpathSync(script)));
    const library = join(home, 'lib', 'scala-library.jar');
    if (existsSync(library)) return { home, library: realpathSync(library) };
  }
  return undefined;
}

/** What `scalac -version` reads beside its script: the installation's jars and the JVM on PATH. */
function scalacDependsOn(): unknown {
  const scala = scalaInstallation();
  const lib = scala ? join(scala.home, 'lib') : undefined;
  const jars =
    lib && existsSync(lib)
      ? readdirSync(lib)
          .filter((f) => f.endsWith('.jar'))
          .sort()
      : [];
  return {
    jars: jars.map((jar) => [jar, fileIdentity(join(lib!, jar)) ?? null]),
    java: binaryIdentity('java', process.env.PATH ?? '/usr/bin:/bin') ?? null,
  };
}

/** java, then its stderr passed on; a clean exit with something on stderr becomes exit 1 (eval_scala.py's rule). */
function wrapper(argv: string[]): string {
  return `${argv.join(' ')} 2>jvm.stderr; s=$?; cat jvm.stderr >&2; if [ "$s" -eq 0 ] && [ -s jvm.stderr ]; then exit 1; fi; exit "$s"`;
}

export function classifyScala(run: StepResult): RunOutcome {
  const outcome = classifyJava(run);
  // A clean exit that wrote to stderr (the wrapper's exit 1): MultiPL-E's Exception.
  if (outcome.status === 'error' && run.exitCode === 1 && !/Exception in thread/.test(run.stderr)) return exitedWith(run, 'StderrOutput');
  return outcome;
}

export function scalaToolchain(): Toolchain {
  const mounts = (): Mount[] => {
    const scala = scalaInstallation();
    if (!scala) return [];
    // The compiler script and its jars are read where they are; outside /usr they need a mount.
    const home: Mount[] = scala.home.startsWith('/usr/') ? [] : [{ host: scala.home, sandbox: scala.home }];
    return [...home, { host: scala.library, sandbox: LIBRARY_IN_SANDBOX }];
  };
  return {
    language: 'scala',
    name: 'Scala 2 (scalac, JDK)',
    check: async () => {
      const [scalac, java] = await Promise.all([
        // A JVM start (~0.5 s): kept, keyed also by the jars scalac's script loads and the java it runs.
        probeVersion(
          'scalac',
          ['-version'],
          'scalac',
          SCALA_INSTALL,
          {},
          { keepBetweenRuns: true, versionOnStderr: true, alsoDependsOn: scalacDependsOn },
        ),
        probeVersion('java', ['-version'], 'java', SCALA_INSTALL, {}, { keepBetweenRuns: true }),
      ]);
      const probed = firstFailed([scalac, java]);
      if (!probed.ok) return probed;
      if (!scalaInstallation())
        return { ok: false, missing: "Scala's library (lib/scala-library.jar beside scalac)", install: SCALA_INSTALL };
      return scalac;
    },
    mounts,
    files: (program) => ({ 'program.scala': program }),
    compile: () => ({
      kind: 'sandbox',
      argv: ['scalac', '-d', BUILD_DIR, 'program.scala'],
      // The scalac script passes JAVA_OPTS to its JVM (in place of its -Xmx256M default).
      env: { HOME: '/tmp', LANG: 'C.UTF-8', JAVA_OPTS: ['-Xmx1g', '-Xss4m', ...JVM_FLAGS].join(' ') },
      limits: { ...COMPILE_LIMITS, maxProcesses: Math.max(COMPILE_LIMITS.maxProcesses, 64) },
    }),
    run: (limits) => ({
      kind: 'sandbox',
      argv: [
        '/bin/sh',
        '-c',
        wrapper([
          'java',
          ...JVM_FLAGS,
          `-Xmx${Math.max(32, Math.floor(limits.memoryBytes / 2 / 1024 / 1024))}m`,
          '-cp',
          `${BUILD_DIR}:${LIBRARY_IN_SANDBOX}`,
          'Problem',
        ]),
      ],
      env: { HOME: '/tmp', LANG: 'C.UTF-8' },
      limits: runLimits(limits, 'data', { maxProcesses: Math.max(limits.maxProcesses, 64), maxOpenFiles: 1024 }),
    }),
    classify: classifyScala,
  };
}
