/** What the toolchain modules share: limit presets, version probes, outcome helpers. */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { ExecutionLimits } from '../../../../domain/execution/types.js';
import { MULTIPLE_COMPILE_LIMITS } from '../../../../domain/languages/multiple.js';
import {
  BUILD_DIR,
  type MemoryLimitKind,
  type RunOutcome,
  type SandboxStep,
  type StepLimits,
  type StepResult,
  type ToolchainCheck,
} from '../contract.js';
import { binaryIdentity, keep, readKept, rustupContext } from './keptBetweenRuns.js';

/** The repository's root (tools installed by scripts/install-toolchains.sh live in its .tools/). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
export const TOOLS_DIR = process.env.EXPLORA_TOOLS_DIR ?? join(REPO_ROOT, '.tools');
/** Where scripts/install-warm-compilers.sh puts javatuples (the plain Java toolchain's too), the javac server and the C++ PCH. */
export const WARM_TOOLS_DIR = join(TOOLS_DIR, 'multiple');

/** Limits of a compile step (the languages' own, domain/languages/multiple.ts); RLIMIT_DATA, since compilers reserve large arenas. */
export const COMPILE_LIMITS: StepLimits = { ...MULTIPLE_COMPILE_LIMITS, memoryKind: 'data', maxOpenFiles: 4096 };

/** The run step's limits from the request's. */
export function runLimits(limits: ExecutionLimits, memoryKind: MemoryLimitKind, overrides: Partial<StepLimits> = {}): StepLimits {
  return {
    timeoutMs: limits.timeoutMs,
    memoryBytes: limits.memoryBytes,
    memoryKind,
    maxProcesses: limits.maxProcesses,
    maxFileBytes: limits.maxFileBytes,
    maxOutputBytes: limits.maxOutputBytes,
    maxOpenFiles: 256,
    ...overrides,
  };
}

/** A compiler run in the sandbox on the build dir, with the compile limits. */
export function sandboxCompile(argv: string[]): SandboxStep {
  return { kind: 'sandbox', argv, env: { HOME: '/tmp', LANG: 'C.UTF-8' }, limits: COMPILE_LIMITS };
}

/** The native binary a compile step left as `program`, under RLIMIT_AS (a native binary reserves what it uses). */
export function runNativeProgram(limits: ExecutionLimits): SandboxStep {
  return { kind: 'sandbox', argv: [`${BUILD_DIR}/program`], env: { LANG: 'C.UTF-8' }, limits: runLimits(limits, 'address-space') };
}

const versions = new Map<string, ToolchainCheck>();
/** Where probes marked `keepBetweenRuns` keep their answers (keptBetweenRuns.ts). */
export const PROBES_DIR = join(WARM_TOOLS_DIR, 'probes');
const KeptCheck = z.object({ ok: z.literal(true), version: z.string() });

/**
 * Runs `command args` once per process; its first output line (or the first matching `line`) is
 * the version, a failure says what is missing.
 * `keepBetweenRuns`: a successful answer is also kept on disk for later runs, keyed by the real
 * binary `command` names (path, inode, size, mtime) with the arguments and environment, and for
 * rustup's proxies by what rustup reads to choose the toolchain (rustupContext). Not for shells or
 * other wrappers whose answer depends on files the key does not see.
 */
export function probeVersion(
  command: string,
  args: string[],
  missing: string,
  install: string,
  env: Record<string, string> = {},
  options: { keepBetweenRuns?: boolean; line?: RegExp } = {},
): ToolchainCheck {
  const key = [command, ...args].join(' ');
  let check = versions.get(key);
  if (!check) {
    const probeEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...env };
    const binary = options.keepBetweenRuns ? binaryIdentity(command, probeEnv.PATH) : undefined;
    const rustup = binary && rustupContext(binary.file, probeEnv.HOME, process.cwd());
    const what = binary
      ? { probe: 1, binary, args, env, ...(options.line ? { line: options.line.source } : {}), ...(rustup ? { rustup } : {}) }
      : undefined;
    check = what ? readKept(PROBES_DIR, what, KeptCheck) : undefined;
    if (!check) {
      check = runProbe(command, args, missing, install, probeEnv, options.line);
      if (what && check.ok) keep(PROBES_DIR, what, check);
    }
    versions.set(key, check);
  }
  return check;
}

function runProbe(
  command: string,
  args: string[],
  missing: string,
  install: string,
  env: Record<string, string>,
  line?: RegExp,
): ToolchainCheck {
  try {
    const out = execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env });
    const lines = out.trim().split('\n');
    return { ok: true, version: (line ? lines.find((l) => line.test(l)) : lines[0]) ?? '' };
  } catch (error) {
    const e = error as { stderr?: string; code?: string };
    // java -version writes to stderr
    if (e.code !== 'ENOENT' && typeof e.stderr === 'string' && e.stderr.trim() && args.includes('-version'))
      return { ok: true, version: e.stderr.trim().split('\n')[0]! };
    return { ok: false, missing, install };
  }
}

/** The first line of `text` matching, trimmed, or undefined. */
export function firstLine(text: string, pattern: RegExp): string | undefined {
  return text
    .split('\n')
    .find((line) => pattern.test(line))
    ?.trim();
}

/** A run that ended by a signal no toolchain-specific rule explained. */
export function killedBy(run: StepResult): RunOutcome {
  return {
    status: 'killed',
    exception: {
      type: run.signal ?? 'Signal',
      message: `the program was killed by ${run.signal}${run.stderr ? `: ${run.stderr.trim().slice(-1000)}` : ''}`,
    },
  };
}

/** A non-zero exit no toolchain-specific rule explained. */
export function exitedWith(run: StepResult, type = 'NonZeroExit'): RunOutcome {
  return {
    status: 'error',
    exception: {
      type,
      message: `the program exited with code ${run.exitCode}${run.stderr ? `: ${run.stderr.trim().slice(-1500)}` : ''}`,
      traceback: run.stderr.slice(-4000),
    },
  };
}
