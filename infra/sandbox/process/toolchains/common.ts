/** What the toolchain modules share: limit presets, version probes, outcome helpers. */
import { execFile, spawnSync } from 'node:child_process';
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

/** Answers this process already has, and probes under way (a second asker waits for the first's). */
const versions = new Map<string, ToolchainCheck>();
const probing = new Map<string, Promise<ToolchainCheck>>();
/** Where probes marked `keepBetweenRuns` keep their answers (keptBetweenRuns.ts). */
export const PROBES_DIR = join(WARM_TOOLS_DIR, 'probes');
const KeptCheck = z.object({ ok: z.literal(true), version: z.string() });

export interface ProbeOptions {
  /**
   * Keep a successful answer on disk for later runs, keyed by the real binary `command` names
   * (path, inode, size, mtime) with the arguments and environment, and for rustup's proxies by what
   * rustup reads to choose the toolchain (rustupContext). Not for shells or other wrappers whose
   * answer depends on files the key does not see.
   */
  keepBetweenRuns?: boolean;
  /** The version is the first output line matching this (default: the first line). */
  line?: RegExp;
  /** The command writes its version on stderr (and exits 0): read it there. */
  versionOnStderr?: boolean;
  /**
   * For a kept answer: what else it depends on beside the binary (e.g. the jars a launcher script
   * loads, as identities), part of the key, so that a change to any of it is probed again.
   */
  alsoDependsOn?: () => unknown;
}

interface Probe {
  key: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  missing: string;
  install: string;
  options: ProbeOptions;
  /** What a kept answer is filed under; undefined when it is not kept. */
  kept?: unknown;
}

/** The in-process cache's key of `command args`. */
const keyOf = (command: string, args: string[]) => [command, ...args].join(' ');

function probeOf(
  command: string,
  args: string[],
  missing: string,
  install: string,
  env: Record<string, string>,
  options: ProbeOptions,
): Probe {
  const probeEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...env };
  const binary = options.keepBetweenRuns ? binaryIdentity(command, probeEnv.PATH) : undefined;
  const rustup = binary && rustupContext(binary.file, probeEnv.HOME, process.cwd());
  const kept = binary
    ? {
        probe: 1,
        binary,
        args,
        env,
        ...(options.line ? { line: options.line.source } : {}),
        ...(options.versionOnStderr ? { versionOnStderr: true } : {}),
        ...(rustup ? { rustup } : {}),
        ...(options.alsoDependsOn ? { alsoDependsOn: options.alsoDependsOn() } : {}),
      }
    : undefined;
  return { key: keyOf(command, args), command, args, env: probeEnv, missing, install, options, kept };
}

/** An answer an earlier run kept for exactly this probe, now this process's too; undefined when there is none. */
function keptAnswer(probe: Probe): ToolchainCheck | undefined {
  const kept = probe.kept !== undefined ? readKept(PROBES_DIR, probe.kept, KeptCheck) : undefined;
  if (kept) versions.set(probe.key, kept);
  return kept;
}

/**
 * Forgets this process's failed answers, so that the next check probes again: after a toolchain
 * was installed while the process runs (a sweep or `evaluate` installing a language it needs).
 */
export function forgetFailedProbes(): void {
  for (const [key, check] of versions) if (!check.ok) versions.delete(key);
}

/** The probe's run read as a check (the version line on success, else what is missing), remembered and, if asked, kept. */
function answered(
  probe: Probe,
  run: { ok: true; stdout: string; stderr: string } | { ok: false; stderr?: string; code?: string },
): ToolchainCheck {
  const { line, versionOnStderr } = probe.options;
  let check: ToolchainCheck;
  if (run.ok) {
    const lines = (versionOnStderr ? run.stderr : run.stdout).trim().split('\n');
    check = { ok: true, version: (line ? lines.find((l) => line.test(l)) : lines[0]) ?? '' };
  } else if (run.code !== 'ENOENT' && run.stderr?.trim() && probe.args.includes('-version')) {
    // java -version writes to stderr
    check = { ok: true, version: run.stderr.trim().split('\n')[0]! };
  } else {
    check = { ok: false, missing: probe.missing, install: probe.install };
  }
  if (probe.kept !== undefined && check.ok) keep(PROBES_DIR, probe.kept, check);
  versions.set(probe.key, check);
  return check;
}

/**
 * Runs `command args` once per process, without blocking: its first output line (or the first
 * matching `options.line`) is the version, a failure says what is missing. Toolchains' checks
 * call it, so that the checks of several languages (and the probes of one) run side by side.
 */
export function probeVersion(
  command: string,
  args: string[],
  missing: string,
  install: string,
  env: Record<string, string> = {},
  options: ProbeOptions = {},
): Promise<ToolchainCheck> {
  const key = keyOf(command, args);
  const known = versions.get(key);
  if (known) return Promise.resolve(known);
  let running = probing.get(key);
  if (!running) {
    const probe = probeOf(command, args, missing, install, env, options);
    const kept = keptAnswer(probe);
    running = kept
      ? Promise.resolve(kept)
      : new Promise<ToolchainCheck>((resolve) => {
          const child = execFile(command, args, { encoding: 'utf8', env: probe.env }, (error, stdout, stderr) =>
            resolve(answered(probe, error ? { ok: false, stderr, code: (error as { code?: string }).code } : { ok: true, stdout, stderr })),
          );
          child.stdin?.end();
        });
    probing.set(key, running);
    void running.finally(() => probing.delete(key));
  }
  return running;
}

/**
 * probeVersion for a caller that cannot wait (a sandbox's mounts, a run step's environment): the
 * same answer, shared with it and kept the same way, found by blocking when nobody asked before.
 */
export function probeVersionSync(
  command: string,
  args: string[],
  missing: string,
  install: string,
  env: Record<string, string> = {},
  options: ProbeOptions = {},
): ToolchainCheck {
  const known = versions.get(keyOf(command, args));
  if (known) return known;
  const probe = probeOf(command, args, missing, install, env, options);
  const kept = keptAnswer(probe);
  if (kept) return kept;
  const run = spawnSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: probe.env });
  return answered(
    probe,
    run.error || run.status !== 0
      ? { ok: false, stderr: run.stderr ?? undefined, code: (run.error as NodeJS.ErrnoException | undefined)?.code }
      : { ok: true, stdout: run.stdout, stderr: run.stderr },
  );
}

/** The first check that failed, else the first one: a toolchain's verdict from its probes run side by side. */
export function firstFailed(checks: readonly ToolchainCheck[]): ToolchainCheck {
  return checks.find((c) => !c.ok) ?? checks[0]!;
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
