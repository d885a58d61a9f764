/**
 * The languages with a long-lived compiler (lineServer.ts), each run in its own jail:
 *
 *   java  MultiPL-E: `javac -encoding UTF8 -d DIR FILE` (javatuples on CLASSPATH), then
 *         `java -ea -cp DIR:javatuples.jar Problem`. Ours: the same compile through javax.tools in
 *         one JVM (JavacServer.java: the JVM start, javac's loading and warm-up and the reading
 *         of the platform's classes are paid once), then the same `java -ea` per program with
 *         start-up flags that do not change what a program computes: -XX:TieredStopAtLevel=1
 *         (the quick JIT only: these programs run for milliseconds), -XX:+UseSerialGC (no GC
 *         threads to start), -Xshare:auto (the JDK's class-data archive), and sizes that fit the
 *         jail's address-space limit.
 *   ts    MultiPL-E: `tsc --target esnext FILE` (a non-zero exit, type errors included, is a
 *         SyntaxError), then `node FILE.js`. Ours: the same check and emit in a warm Node process
 *         (ts/tscServer.cjs), then the same `node`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { WARM_TOOLS_DIR } from './paths.js';
import { fileURLToPath } from 'node:url';
import { COMPILE_LIMITS, RUN_LIMITS, runInJail } from './jail.js';
import { LineServer, ServerTimeout } from './lineServer.js';
import { chownTree, DEFAULT_TIMEOUTS, freshJobDir, jobsRoot, removeJobDir, SERVER_UID, type MultiplStatus, type Slot, type WarmOutcome, type WarmStrategy } from './strategy.js';
import { writeFileSync } from 'node:fs';

const HERE = dirname(fileURLToPath(import.meta.url));

export const JAVA_RUN_FLAGS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-Xshare:auto', '-Xss8m', '-Xmx1g', '-XX:ReservedCodeCacheSize=64m', '-XX:CompressedClassSpaceSize=128m', '-XX:MaxMetaspaceSize=256m'];

/** Compiles before the first program: javac's JIT warm-up (a worker pays it once). */
const WARMUP_COMPILES = 12;
const JAVA_WARMUP = `import java.util.*;
import java.util.stream.*;
import org.javatuples.*;
class Problem {
    public static ArrayList<Long> f(ArrayList<Long> l) { return l.stream().filter(e -> e > 0).collect(Collectors.toCollection(ArrayList::new)); }
    public static void main(String[] args) {
        assert(f(new ArrayList<Long>(Arrays.asList((long)1l, (long)-2l))).equals(new ArrayList<Long>(Arrays.asList((long)1l))));
        assert(Pair.with(1, "a").getValue1().equals("a"));
    }
}
`;
const TS_WARMUP = `declare var require: any;
const assert = require('node:assert');
function f(l: number[]): number[] { return l.filter((e: number) => e > 0); }
assert.deepEqual(f([1, -2]), [1]);
`;

export interface JavaOptions {
  /** .tools/multiple (javatuples jar, javac-server classes). */
  toolsDir?: string;
  /** Compilations at once in the server JVM. */
  workers?: number;
  runFlags?: string[];
}

export class JavaStrategy implements WarmStrategy {
  readonly language = 'java';
  private readonly root = jobsRoot('java');
  private readonly tools: string;
  private readonly jar: string;
  private server!: LineServer;
  private readonly runFlags: string[];
  private javaHome = '';
  private next = 0;

  constructor(private readonly options: JavaOptions = {}) {
    this.tools = options.toolsDir ?? WARM_TOOLS_DIR;
    this.jar = join(this.tools, 'javatuples-1.2.jar');
    this.runFlags = options.runFlags ?? JAVA_RUN_FLAGS;
  }

  async start(): Promise<void> {
    for (const need of [this.jar, join(this.tools, 'javac-server/JavacServer.class')]) {
      if (!existsSync(need)) throw new Error(`${need} is missing: run bash scripts/install-warm-compilers.sh`);
    }
    const javac = execFileSync('sh', ['-c', 'readlink -f "$(command -v javac)"'], { encoding: 'utf8' }).trim();
    this.javaHome = dirname(dirname(javac));
    this.server = new LineServer(
      { jobDir: this.root, uid: SERVER_UID, limits: COMPILE_LIMITS, readOnly: [this.tools, this.javaHome] },
      [join(this.javaHome, 'bin/java'), '-XX:+UseSerialGC', '-Xmx768m', '-cp', join(this.tools, 'javac-server'), 'JavacServer', this.jar, String(this.options.workers ?? 2)],
      (line) => line.split('\t', 1)[0],
    );
    await this.server.start();
    // JIT warm-up of javac before the first program (a worker warms up once, before its samples).
    const dir = freshJobDir(this.root, 'warmup', SERVER_UID);
    writeFileSync(join(dir, 'Problem.java'), JAVA_WARMUP);
    for (let i = 0; i < WARMUP_COMPILES; i++) await this.server.request(`w${i}`, `w${i}\t/job/warmup/Problem.java\t/job/warmup`, 60_000);
    removeJobDir(dir);
  }

  async evaluate(program: string, slot: Slot, timeouts = DEFAULT_TIMEOUTS): Promise<WarmOutcome> {
    const name = `slot${slot.index}`;
    const dir = freshJobDir(this.root, name, SERVER_UID);
    const id = String(this.next++);
    try {
      writeFileSync(join(dir, 'Problem.java'), program);
      const started = performance.now();
      let answer: string;
      try {
        answer = await this.server.request(id, `${id}\t/job/${name}/Problem.java\t/job/${name}`, timeouts.compileMs);
      } catch (error) {
        if (error instanceof ServerTimeout) return { status: 'Timeout', exitCode: null, stdout: '', stderr: 'javac timed out', compileMs: performance.now() - started, runMs: 0 };
        throw error;
      }
      const compileMs = performance.now() - started;
      const [, code, diagnostics = ''] = answer.split('\t');
      if (code !== '0') return { status: 'SyntaxError', exitCode: 1, stdout: '', stderr: diagnostics.replace(/\\n/g, '\n').replace(/\\t/g, '\t').replace(/\\\\/g, '\\'), compileMs, runMs: 0 };
      chownTree(dir, slot.uid);
      const ran = await runInJail(
        { jobDir: dir, uid: slot.uid, limits: RUN_LIMITS, readOnly: [this.tools, this.javaHome] },
        [join(this.javaHome, 'bin/java'), '-ea', ...this.runFlags, '-cp', `/job:${this.jar}`, 'Problem'],
        timeouts.runMs,
      );
      const status: MultiplStatus = ran.timedOut ? 'Timeout' : ran.exitCode === 0 ? 'OK' : 'Exception';
      return { status, exitCode: ran.exitCode, stdout: ran.stdout, stderr: ran.stderr, compileMs, runMs: ran.wallMs };
    } finally {
      removeJobDir(dir);
    }
  }

  async close(): Promise<void> {
    await this.server?.close();
  }
}

export class TypeScriptStrategy implements WarmStrategy {
  readonly language = 'ts';
  private readonly root = jobsRoot('ts');
  private servers: LineServer[] = [];
  private next = 0;
  private typescriptDir = '';

  /** One warm checker per concurrency slot: a Node process checks one program at a time. */
  constructor(private readonly slots = 2) {}

  async start(): Promise<void> {
    this.typescriptDir = dirname(createRequire(import.meta.url).resolve('typescript/package.json'));
    this.servers = Array.from({ length: this.slots }, () => new LineServer(
      { jobDir: this.root, uid: SERVER_UID, limits: COMPILE_LIMITS, readOnly: [this.typescriptDir, join(HERE, 'ts')] },
      [process.execPath, '--max-old-space-size=1024', join(HERE, 'ts/tscServer.cjs'), this.typescriptDir],
      (line) => {
        const id = (JSON.parse(line) as { id?: unknown }).id;
        return id === undefined || id === null ? undefined : String(id);
      },
    ));
    await Promise.all(this.servers.map((s) => s.start()));
    const dir = freshJobDir(this.root, 'warmup', SERVER_UID);
    writeFileSync(join(dir, 'program.ts'), TS_WARMUP);
    for (let i = 0; i < 3; i++) {
      await Promise.all(this.servers.map((s, k) => s.request(`w${k}.${i}`, JSON.stringify({ id: `w${k}.${i}`, file: '/job/warmup/program.ts' }), 60_000)));
    }
    removeJobDir(dir);
  }

  async evaluate(program: string, slot: Slot, timeouts = DEFAULT_TIMEOUTS): Promise<WarmOutcome> {
    const name = `slot${slot.index}`;
    const dir = freshJobDir(this.root, name, SERVER_UID);
    const id = String(this.next++);
    try {
      writeFileSync(join(dir, 'program.ts'), program);
      const started = performance.now();
      let answer: { ok: boolean; diagnostics: string };
      try {
        const server = this.servers[slot.index % this.servers.length]!;
        answer = JSON.parse(await server.request(id, JSON.stringify({ id, file: `/job/${name}/program.ts` }), timeouts.compileMs)) as typeof answer;
      } catch (error) {
        if (error instanceof ServerTimeout) return { status: 'Timeout', exitCode: null, stdout: '', stderr: 'tsc timed out', compileMs: performance.now() - started, runMs: 0 };
        throw error;
      }
      const compileMs = performance.now() - started;
      if (!answer.ok) return { status: 'SyntaxError', exitCode: 2, stdout: answer.diagnostics, stderr: '', compileMs, runMs: 0 };
      chownTree(dir, slot.uid);
      const ran = await runInJail({ jobDir: dir, uid: slot.uid, limits: RUN_LIMITS }, [process.execPath, '/job/program.js'], timeouts.runMs);
      const status: MultiplStatus = ran.timedOut ? 'Timeout' : ran.exitCode === 0 ? 'OK' : 'Exception';
      return { status, exitCode: ran.exitCode, stdout: ran.stdout, stderr: ran.stderr, compileMs, runMs: ran.wallMs };
    } finally {
      removeJobDir(dir);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.close()));
  }
}
