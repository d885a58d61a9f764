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
 *
 * A program with a `public class Main` (HumanEvalPack's, which code_eval_octopack writes to
 * Main.java, compiles with `javac Main.java` and runs as `java -cp DIR Main`, assertions off) is
 * written to Main.java, beside a Problem.java whose main turns assertions off for the classes not
 * yet loaded (the program's own) and calls Main.main: the run step stays `java -ea ... Problem`,
 * and the program runs as code_eval_octopack runs it.
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

/** A program whose entry point is a `public class Main` (HumanEvalPack's tests): it must be in Main.java. */
export function declaresPublicMain(program: string): boolean {
  return /^public\s+class\s+Main\b/m.test(program);
}

/** Runs Main as `java Main` would: assertions off for every class loaded from here on (the program's). */
const MAIN_LAUNCHER =
  'class Problem {\n' +
  '    public static void main(String[] args) throws Throwable {\n' +
  '        ClassLoader.getSystemClassLoader().setDefaultAssertionStatus(false);\n' +
  '        Main.main(args);\n' +
  '    }\n' +
  '}\n';

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
    files: (program): Record<string, string> =>
      declaresPublicMain(program) ? { 'Main.java': program, 'Problem.java': MAIN_LAUNCHER } : { 'Problem.java': program },
    compile: (_limits, program) => ({
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
        ...(declaresPublicMain(program) ? ['Main.java'] : []),
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
