/**
 * The languages whose warm route is one compiler process per program with flags that cut its
 * cost, and JavaScript (a fresh `node` per program, as MultiPL-E runs it: nothing to warm).
 *
 *   cpp  MultiPL-E: `g++ FILE -o BIN -std=c++17`. Ours: the same command plus `-include` of a
 *        precompiled header of the shared includes (<assert.h>, <bits/stdc++.h>, built once by
 *        scripts/install-warm-compilers.sh with the same g++ and flags), used only when the program
 *        starts with exactly those includes (MultiPL-E's prompts do): the header is then the
 *        program's own first lines, parsed once instead of per program. Anything else compiles
 *        without it.
 *   rs   MultiPL-E: `rustc FILE -o BIN` (edition 2015, opt-level 0, debug assertions and overflow
 *        checks on). Ours: the same plus `-C prefer-dynamic` (std linked as the toolchain's shared
 *        library, mounted read-only for the run: the link shrinks from the whole static std to a
 *        few symbols) and `-C strip=debuginfo`; neither changes what the program computes or
 *        which checks it makes.
 *   js   MultiPL-E: `node FILE`. Ours: the same.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WARM_TOOLS_DIR } from './paths.js';
import { COMPILE_LIMITS, RUN_LIMITS, runInJail, type JailResult } from './jail.js';
import { DEFAULT_TIMEOUTS, freshJobDir, jobsRoot, removeJobDir, type MultiplStatus, type Slot, type WarmOutcome, type WarmStrategy } from './strategy.js';

export const CPP_PCH_PREFIX = '#include<assert.h>\n#include<bits/stdc++.h>\n';

function runStatus(r: JailResult): MultiplStatus {
  return r.timedOut ? 'Timeout' : r.exitCode === 0 ? 'OK' : 'Exception';
}

export class NodeStrategy implements WarmStrategy {
  readonly language = 'js';
  private readonly root = jobsRoot('js');
  async start(): Promise<void> {}
  async evaluate(program: string, slot: Slot, timeouts = DEFAULT_TIMEOUTS): Promise<WarmOutcome> {
    const dir = freshJobDir(this.root, `slot${slot.index}`, slot.uid);
    try {
      writeFileSync(join(dir, 'program.js'), program);
      const r = await runInJail({ jobDir: dir, uid: slot.uid, limits: RUN_LIMITS }, [process.execPath, '/job/program.js'], timeouts.runMs);
      const status = r.timedOut ? 'Timeout' : r.exitCode === 0 ? 'OK' : /SyntaxError/.test(r.stderr) ? 'SyntaxError' : 'Exception';
      return { status, exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr, compileMs: 0, runMs: r.wallMs };
    } finally {
      removeJobDir(dir);
    }
  }
  async close(): Promise<void> {}
}

export interface CppOptions {
  /** Directory holding multiple.h and multiple.h.gch (scripts/install-warm-compilers.sh). */
  pchDir?: string;
  usePch?: boolean;
}

export class CppStrategy implements WarmStrategy {
  readonly language = 'cpp';
  private readonly root = jobsRoot('cpp');
  private readonly pchDir: string;
  private readonly usePch: boolean;
  constructor(options: CppOptions = {}) {
    this.pchDir = options.pchDir ?? join(WARM_TOOLS_DIR, 'cpp-pch');
    this.usePch = options.usePch ?? true;
  }
  async start(): Promise<void> {
    if (this.usePch && !existsSync(join(this.pchDir, 'multiple.h.gch'))) {
      throw new Error(`no C++ precompiled header in ${this.pchDir}: run bash scripts/install-warm-compilers.sh`);
    }
  }
  async evaluate(program: string, slot: Slot, timeouts = DEFAULT_TIMEOUTS): Promise<WarmOutcome> {
    const dir = freshJobDir(this.root, `slot${slot.index}`, slot.uid);
    try {
      writeFileSync(join(dir, 'program.cpp'), program);
      const pch = this.usePch && program.startsWith(CPP_PCH_PREFIX);
      const command = ['/usr/bin/g++', '/job/program.cpp', '-o', '/job/program', '-std=c++17', ...(pch ? ['-include', join(this.pchDir, 'multiple.h')] : [])];
      const built = await runInJail({ jobDir: dir, uid: slot.uid, limits: COMPILE_LIMITS, readOnly: pch ? [this.pchDir] : [] }, command, timeouts.compileMs);
      if (built.timedOut) return { status: 'Timeout', exitCode: null, stdout: built.stdout, stderr: built.stderr, compileMs: built.wallMs, runMs: 0 };
      if (built.exitCode !== 0) return { status: 'SyntaxError', exitCode: built.exitCode, stdout: built.stdout, stderr: built.stderr, compileMs: built.wallMs, runMs: 0 };
      const ran = await runInJail({ jobDir: dir, uid: slot.uid, limits: RUN_LIMITS }, ['/job/program'], timeouts.runMs);
      return { status: runStatus(ran), exitCode: ran.exitCode, stdout: ran.stdout, stderr: ran.stderr, compileMs: built.wallMs, runMs: ran.wallMs };
    } finally {
      removeJobDir(dir);
    }
  }
  async close(): Promise<void> {}
}

export interface RustOptions {
  /** Extra rustc flags beside MultiPL-E's; default prefer-dynamic and strip=debuginfo. */
  flags?: string[];
}

export const RUST_FAST_FLAGS = ['-C', 'prefer-dynamic', '-C', 'strip=debuginfo'];

export class RustStrategy implements WarmStrategy {
  readonly language = 'rs';
  private readonly root = jobsRoot('rs');
  private readonly flags: string[];
  private sysroot = '';
  private libDir = '';
  constructor(options: RustOptions = {}) {
    this.flags = options.flags ?? RUST_FAST_FLAGS;
  }
  async start(): Promise<void> {
    this.sysroot = execFileSync('rustc', ['--print', 'sysroot'], { encoding: 'utf8' }).trim();
    const host = /^host: (\S+)$/m.exec(execFileSync('rustc', ['-vV'], { encoding: 'utf8' }))?.[1];
    if (!host) throw new Error('rustc -vV does not name its host target');
    this.libDir = join(this.sysroot, 'lib/rustlib', host, 'lib');
  }
  async evaluate(program: string, slot: Slot, timeouts = DEFAULT_TIMEOUTS): Promise<WarmOutcome> {
    const dir = freshJobDir(this.root, `slot${slot.index}`, slot.uid);
    try {
      writeFileSync(join(dir, 'program.rs'), program);
      const command = [join(this.sysroot, 'bin/rustc'), '/job/program.rs', '-o', '/job/program', ...this.flags];
      const built = await runInJail({ jobDir: dir, uid: slot.uid, limits: COMPILE_LIMITS, readOnly: [this.sysroot] }, command, timeouts.compileMs);
      if (built.timedOut) return { status: 'Timeout', exitCode: null, stdout: built.stdout, stderr: built.stderr, compileMs: built.wallMs, runMs: 0 };
      if (built.exitCode !== 0) return { status: 'SyntaxError', exitCode: built.exitCode, stdout: built.stdout, stderr: built.stderr, compileMs: built.wallMs, runMs: 0 };
      const dynamic = this.flags.includes('prefer-dynamic');
      const ran = await runInJail(
        { jobDir: dir, uid: slot.uid, limits: RUN_LIMITS, readOnly: dynamic ? [this.libDir] : [], env: dynamic ? { LD_LIBRARY_PATH: this.libDir } : {} },
        ['/job/program'],
        timeouts.runMs,
      );
      return { status: runStatus(ran), exitCode: ran.exitCode, stdout: ran.stdout, stderr: ran.stderr, compileMs: built.wallMs, runMs: ran.wallMs };
    } finally {
      removeJobDir(dir);
    }
  }
  async close(): Promise<void> {}
}
