/**
 * Java (MultiPL-E `java`): as its eval_java.py, `javac -encoding UTF8 -d <dir> Problem.java`
 * with javatuples 1.2 on the classpath (the prompts import org.javatuples.*), then
 * `java -ea -cp <dir>:javatuples.jar Problem`; exit 0 is OK, else Exception (an uncaught
 * exception exits 1). java.lang.AssertionError is `failed`, OutOfMemoryError `oom`.
 *
 * Memory: the JVM reserves far more address space than it uses (a 1 GiB compressed class space
 * alone), so RLIMIT_AS would stop it at start: RLIMIT_DATA (its private writable memory) is the
 * limit, with the heap (-Xmx) at half of it so that a memory bomb ends in OutOfMemoryError.
 * Processes: the JVM's own threads count against RLIMIT_NPROC, so the run gets at least 64.
 * The JVM flags (serial GC, C1 only, no perf data file) change speed and footprint, not results.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RunOutcome, StepResult, Toolchain } from '../contract.js';
import { BUILD_DIR } from '../contract.js';
import { COMPILE_LIMITS, exitedWith, firstFailed, firstLine, killedBy, probeVersion, runLimits, WARM_TOOLS_DIR } from './common.js';

/** Fetched (sha-256 pinned) by scripts/install-warm-compilers.sh; the plain and the warm Java toolchains share it. */
export const JAVATUPLES_JAR = join(WARM_TOOLS_DIR, 'javatuples-1.2.jar');
const JAR_IN_SANDBOX = '/opt/java/javatuples-1.2.jar';
const JDK_INSTALL = 'install a JDK 11 or later (Debian: apt-get install openjdk-17-jdk-headless) so that `javac` and `java` are on PATH';
const JVM_FLAGS = ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-XX:-UsePerfData', '-Xshare:auto'];

export function classifyJava(run: StepResult): RunOutcome {
  const text = run.stderr;
  if (/java\.lang\.OutOfMemoryError/.test(text))
    return { status: 'oom', exception: { type: 'OutOfMemoryError', message: firstLine(text, /OutOfMemoryError/) ?? '' } };
  if (run.signal) return killedBy(run);
  if (/java\.lang\.AssertionError/.test(text))
    return {
      status: 'failed',
      exception: { type: 'AssertionError', message: firstLine(text, /AssertionError/) ?? '', traceback: text.slice(-4000) },
    };
  const thrown = /Exception in thread "[^"]*" ([\w.$]+)(?::\s*(.*))?/.exec(text);
  if (thrown)
    return { status: 'error', exception: { type: thrown[1]!.split('.').pop()!, message: thrown[2] ?? '', traceback: text.slice(-4000) } };
  return exitedWith(run);
}

export function javaToolchain(): Toolchain {
  return {
    language: 'java',
    name: 'Java',
    check: async () => {
      const [javac, java] = await Promise.all([
        probeVersion('javac', ['-version'], 'javac', JDK_INSTALL, {}, { keepBetweenRuns: true }),
        probeVersion('java', ['-version'], 'java', JDK_INSTALL, {}, { keepBetweenRuns: true }),
      ]);
      const probed = firstFailed([javac, java]);
      if (!probed.ok) return probed;
      if (!existsSync(JAVATUPLES_JAR))
        return {
          ok: false,
          missing: `javatuples 1.2 (${JAVATUPLES_JAR})`,
          install: 'run `npm run setup -- --languages java` (it fetches org.javatuples:javatuples:1.2 from Maven Central, sha-256 pinned)',
        };
      return javac;
    },
    mounts: () => [{ host: JAVATUPLES_JAR, sandbox: JAR_IN_SANDBOX }],
    files: (program) => ({ 'Problem.java': program }),
    compile: () => ({
      kind: 'sandbox',
      argv: [
        'javac',
        ...JVM_FLAGS.map((f) => `-J${f}`),
        '-J-Xmx1g',
        '-encoding',
        'UTF8',
        '-cp',
        JAR_IN_SANDBOX,
        '-d',
        BUILD_DIR,
        'Problem.java',
      ],
      env: { HOME: '/tmp', LANG: 'C.UTF-8' },
      limits: COMPILE_LIMITS,
    }),
    run: (limits) => ({
      kind: 'sandbox',
      argv: [
        'java',
        ...JVM_FLAGS,
        `-Xmx${Math.max(32, Math.floor(limits.memoryBytes / 2 / 1024 / 1024))}m`,
        '-ea',
        '-cp',
        `${BUILD_DIR}:${JAR_IN_SANDBOX}`,
        'Problem',
      ],
      env: { HOME: '/tmp', LANG: 'C.UTF-8' },
      limits: runLimits(limits, 'data', { maxProcesses: Math.max(limits.maxProcesses, 64), maxOpenFiles: 1024 }),
    }),
    classify: classifyJava,
  };
}
