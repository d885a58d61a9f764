/**
 * The generic test of a process-run language's statuses (test/sandbox/warm-toolchains.test.ts runs
 * it for every language of `LANGUAGES`, test/languages/throwaway-language.test.ts for a language
 * of its own): the language's four programs (its fixtures' `statuses`) through one ProcessExecutor
 * over its toolchain, in the real sandbox, and MultiPL-E's four outcomes: OK / Exception /
 * SyntaxError / Timeout are passed / failed|error / compile_error / timeout.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionLimits, ExecutionRequest, ExecutionResult } from '../../domain/execution/types.js';
import type { StatusPrograms } from '../../domain/languages/fixtures.js';
import type { Toolchain } from '../../infra/sandbox/process/contract.js';
import { ProcessExecutor } from '../../infra/sandbox/process/processExecutor.js';

/** Runs the requests through one executor over the toolchain, then closes it. */
export async function runWith(
  toolchain: Toolchain,
  requests: ExecutionRequest[],
  limits: Partial<ExecutionLimits>,
): Promise<ExecutionResult[]> {
  const executor = new ProcessExecutor(toolchain, { concurrency: 2, limits });
  try {
    return await executor.runMany(requests);
  } finally {
    await executor.close();
  }
}

export const show = (r: ExecutionResult | undefined): string =>
  JSON.stringify({ ...r, stdout: r?.stdout.slice(0, 800), stderr: r?.stderr.slice(0, 800) });

/** The four programs as requests: `hangLimits` for the hanging one. */
const statusRequests = (programs: StatusPrograms, hangLimits: Partial<ExecutionLimits>): ExecutionRequest[] => [
  { id: 'ok', program: programs.ok },
  { id: 'wrong', program: programs.wrong },
  { id: 'broken', program: programs.broken },
  { id: 'hangs', program: programs.hangs, limits: hangLimits },
];

/** The four cases over results that a beforeAll fills in. */
function statusCases(language: string, toolchain: Toolchain, results: () => Record<keyof StatusPrograms, ExecutionResult>): void {
  describe(`${language}: MultiPL-E's statuses through the process runner's ${toolchain.name} toolchain`, () => {
    it('a correct program: passed (OK)', () => {
      expect(results().ok.status, show(results().ok)).toBe('passed');
    });
    it('a wrong program: failed or error (Exception)', () => {
      expect(['failed', 'error'], show(results().wrong)).toContain(results().wrong.status);
    });
    it('a program that does not compile: compile_error (SyntaxError), never a pass', () => {
      expect(results().broken.status, show(results().broken)).toBe('compile_error');
    });
    it('a program that never ends: timeout (Timeout)', () => {
      expect(results().hangs.status, show(results().hangs)).toBe('timeout');
    });
  });
}

/** A language of `describeStatusesTogether`: its toolchain and its four programs. */
export interface StatusSubject {
  language: string;
  toolchain: Toolchain;
  programs: StatusPrograms;
}

/**
 * `describeStatuses` for several languages, their programs run side by side in one beforeAll (an
 * executor each, as in production): the same cases, but the languages' toolchain starts and
 * time-outs overlap instead of following one another.
 */
export function describeStatusesTogether(
  subjects: readonly StatusSubject[],
  limits: Partial<ExecutionLimits>,
  hangLimits: Partial<ExecutionLimits>,
): void {
  const all = new Map<string, Record<keyof StatusPrograms, ExecutionResult>>();
  beforeAll(async () => {
    await Promise.all(
      subjects.map(async ({ language, toolchain, programs }) => {
        const [ok, wrong, broken, hangs] = await runWith(toolchain, statusRequests(programs, hangLimits), limits);
        all.set(language, { ok: ok!, wrong: wrong!, broken: broken!, hangs: hangs! });
      }),
    );
  }, 240_000);
  for (const { language, toolchain } of subjects)
    statusCases(language, toolchain, () => {
      const results = all.get(language);
      if (!results) throw new Error(`no results for ${language}`);
      return results;
    });
}

/** `limits` for all four programs but the hanging one, which gets `hangLimits` (short enough, since it must time out). */
export function describeStatuses(
  language: string,
  toolchain: Toolchain,
  programs: StatusPrograms,
  limits: Partial<ExecutionLimits>,
  hangLimits: Partial<ExecutionLimits>,
): void {
  describe(`${language}: MultiPL-E's statuses through the process runner's ${toolchain.name} toolchain`, () => {
    let results: Record<keyof StatusPrograms, ExecutionResult>;
    beforeAll(async () => {
      const [ok, wrong, broken, hangs] = await runWith(
        toolchain,
        [
          { id: 'ok', program: programs.ok },
          { id: 'wrong', program: programs.wrong },
          { id: 'broken', program: programs.broken },
          { id: 'hangs', program: programs.hangs, limits: hangLimits },
        ],
        limits,
      );
      results = { ok: ok!, wrong: wrong!, broken: broken!, hangs: hangs! };
    }, 120_000);
    it('a correct program: passed (OK)', () => {
      expect(results.ok.status, show(results.ok)).toBe('passed');
    });
    it('a wrong program: failed or error (Exception)', () => {
      expect(['failed', 'error'], show(results.wrong)).toContain(results.wrong.status);
    });
    it('a program that does not compile: compile_error (SyntaxError), never a pass', () => {
      expect(results.broken.status, show(results.broken)).toBe('compile_error');
    });
    it('a program that never ends: timeout (Timeout)', () => {
      expect(results.hangs.status, show(results.hangs)).toBe('timeout');
    });
  });
}
