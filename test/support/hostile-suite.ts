/**
 * The generic hostile-program suite (test/sandbox/process-hostile.e2e.test.ts runs it for every
 * process-run language of `LANGUAGES`, test/languages/throwaway-language.test.ts for a language of
 * its own): each language's eight hostile programs (its fixtures' `hostile`), on its toolchain in
 * the real sandbox, all languages at once (one executor each): an infinite loop, a spawn bomb, a
 * memory bomb, a flood of output, a connection to loopback ports, reading the worker's
 * environment, writing outside its directory, a child that outlives the program. Each must be
 * contained and reported, and leave no process of the samples' uids and no file on the host behind.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../domain/execution/types.js';
import type { HostileKind, ProcessFixtures } from '../../domain/languages/fixtures.js';
import type { Toolchain } from '../../infra/sandbox/process/contract.js';
import { ProcessExecutor } from '../../infra/sandbox/process/processExecutor.js';

const SECRET_NAME = 'EXPLORA_PROCESS_HOSTILE_SECRET';
const SECRET = `s3cr3t-${randomBytes(12).toString('hex')}`;
const PLANT = `planted-${randomBytes(6).toString('hex')}`;
const TIMEOUT_MS = 1_000;
const MAX_OUTPUT = 4096;
const LIMITS = { timeoutMs: TIMEOUT_MS, maxProcesses: 16, maxOutputBytes: MAX_OUTPUT, memoryBytes: 512 * 1024 * 1024 };
const AMPLE = { ...LIMITS, timeoutMs: 15_000 };
// A memory bomb is given far more time than it needs (3 s alone here): with every language's
// programs running at once on two loaded cores, an interpreter can take longer than 15 s to fill 512 MB.
const MEMORY_AMPLE = { ...LIMITS, timeoutMs: 90_000 };
// The output program may end at its time limit, but it must have written past the cap by then: in a
// loaded CI run Racket had not written its first byte after 15 s. 60 s makes "past the cap" certain
// without waiting for all of it.
const OUTPUT_AMPLE = { ...LIMITS, timeoutMs: 60_000 };
/**
 * How much each language's output program writes: 64 MiB, 16 thousand times the cap, shows its
 * writes counted and dropped. sh writes a gigabyte, which shows the executor streams output it does
 * not keep (1.5 s alone here). A gigabyte in every language took about 35 of the file's 95 CPU-s
 * (4-29 s a language, all of them at once).
 */
const OUTPUT_MIB = 64;
const GIGABYTE_LANGUAGE = 'sh';
const outputMiBOf = (language: string) => (language === GIGABYTE_LANGUAGE ? 1024 : OUTPUT_MIB);

/** Paths a program tries to write: the read-only build dir, system dirs, the root, the host's tmp. */
const TARGETS = ['/build/x', `/etc/${PLANT}`, `/usr/${PLANT}`, `/${PLANT}`, join(tmpdir(), PLANT)];

/** A language whose hostile programs run: its toolchain and its fixtures' programs. */
export interface HostileSubject {
  language: string;
  toolchain: Toolchain;
  hostile: ProcessFixtures['hostile'];
  wellBehaved: string;
}

/** Live processes whose uid is one of the executors' sample uids. */
function sampleProcesses(executors: ReadonlyMap<string, ProcessExecutor>): number[] {
  const ranges = [...executors.values()].map((e) => e.uidRange);
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        const uid = statSync(`/proc/${e}`).uid;
        return ranges.some(([lo, hi]) => uid >= lo && uid <= hi);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Registers the suite for `subjects` in the calling test file: one beforeAll runs every program of every subject at once. */
export function describeHostile(subjects: readonly HostileSubject[]): void {
  describe('hostile programs', () => {
    const executors = new Map<string, ProcessExecutor>();
    const results = new Map<string, ExecutionResult>();
    let connections = 0;
    let server: Server;

    beforeAll(async () => {
      process.env[SECRET_NAME] = SECRET;
      server = createServer((socket) => {
        connections += 1;
        socket.destroy();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as AddressInfo).port;
      // Every language at once: two samples per language at a time, all languages side by side.
      await Promise.all(
        subjects.map(async ({ language, toolchain, hostile }) => {
          const executor = new ProcessExecutor(toolchain, { concurrency: 2, limits: LIMITS });
          executors.set(language, executor);
          await executor.start();
          await Promise.all(
            (Object.entries(hostile({ port, targets: TARGETS, outputMiB: outputMiBOf(language) })) as Array<[HostileKind, string]>).map(
              async ([kind, program]) => {
                const limits =
                  kind === 'loop' || kind === 'spawnBomb'
                    ? LIMITS
                    : kind === 'memoryBomb'
                      ? MEMORY_AMPLE
                      : kind === 'output'
                        ? OUTPUT_AMPLE
                        : AMPLE;
                results.set(`${language}/${kind}`, await executor.run({ id: `${language}/${kind}`, program, limits }));
              },
            ),
          );
        }),
      );
    }, 240_000);

    afterAll(async () => {
      server?.close();
      delete process.env[SECRET_NAME];
      await Promise.all([...executors.values()].map((e) => e.close()));
    });

    function result(language: string, kind: HostileKind): ExecutionResult {
      const r = results.get(`${language}/${kind}`);
      if (!r) throw new Error(`no result for ${language}/${kind}`);
      return r;
    }

    describe.each(subjects.map((s) => s.language))('hostile %s programs are contained', (language) => {
      it('infinite loop: timeout, at the time limit', () => {
        const r = result(language, 'loop');
        expect(r.status, JSON.stringify(r)).toBe('timeout');
        expect(r.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS);
      });

      it('spawn bomb: never a pass, and not one of its processes survives', () => {
        const r = result(language, 'spawnBomb');
        expect(r.status, JSON.stringify(r)).not.toBe('passed');
        expect(r.survivors ?? 0).toBe(0);
      });

      it('memory bomb: stopped at the memory limit (oom), never a pass', () => {
        const r = result(language, 'memoryBomb');
        expect(r.status, `${r.status}: ${r.stderr.slice(0, 600)}`).toBe('oom');
      });

      it(`${outputMiBOf(language)} MiB of output: captured output is capped, the rest counted and dropped`, () => {
        const r = result(language, 'output');
        expect(['passed', 'timeout'], JSON.stringify({ ...r, stdout: undefined })).toContain(r.status);
        const seen = JSON.stringify({ ...r, stdout: r.stdout.length, stderr: r.stderr.slice(0, 300) });
        expect(r.stdout.length, seen).toBe(MAX_OUTPUT);
        expect(r.stdoutBytes, seen).toBeGreaterThan(MAX_OUTPUT);
        // All of it counted (Go's test binary adds its own "PASS" line).
        if (r.status === 'passed') expect(r.stdoutBytes).toBeGreaterThanOrEqual(outputMiBOf(language) * 1024 * 1024);
      });

      it('no network: loopback ports (a listener of this test, Temporal, S3) are unreachable', () => {
        const r = result(language, 'network');
        expect(r.status, JSON.stringify(r)).toBe('passed');
        expect(r.stdout).not.toMatch(/CONNECTED/);
        expect(r.stdout.trim()).not.toBe('');
      });

      it("the worker's environment is invisible", () => {
        const r = result(language, 'environment');
        expect(r.status, JSON.stringify(r)).toBe('passed');
        expect(r.stdout).not.toContain(SECRET);
        expect(r.stdout).not.toContain(SECRET_NAME);
        expect(r.stdout).not.toMatch(/TEMPORAL|AWS_|S3_|HOME=\/root/);
        expect(r.stdout).toContain('PATH');
      });

      it('writing outside its directory fails; the host never sees the file', () => {
        const r = result(language, 'writeOutside');
        expect(r.status, JSON.stringify(r)).toBe('passed');
        for (const target of TARGETS.slice(0, 4)) expect(r.stdout).toContain(`refused ${target}`);
        for (const target of TARGETS) expect(existsSync(target), target).toBe(false);
      });

      it('a child that outlives the program (a new session, sleeping) is killed with it', () => {
        const r = result(language, 'daemon');
        expect(r.status, JSON.stringify(r)).toBe('passed');
        expect(r.stdout).toMatch(/spawned \d+/);
        expect(r.survivors ?? 0).toBe(0);
      });
    });

    describe('after every hostile program', () => {
      it('no process of any sample uid is left, and no connection reached the listener', () => {
        expect(sampleProcesses(executors)).toEqual([]);
        expect(connections).toBe(0);
      });

      it('each executor still runs a well-behaved program', async () => {
        const after = await Promise.all(
          subjects.map((s) => executors.get(s.language)!.run({ id: `${s.language}/ok`, program: s.wellBehaved, limits: AMPLE })),
        );
        for (const r of after) expect(r.status, JSON.stringify(r)).toBe('passed');
      }, 60_000);
    });
  });
}
