/**
 * JavaScript's shared-process runs (infra/sandbox/warm/jsSharedProcess.ts, opt-in): on the real
 * sandbox and the real Node, every program of a varied set is run twice, in shared processes and
 * each alone, and must end the same way (status, exception, output, exit code); programs that
 * reach what is not their own, end the shared process, run out of time or change what programs
 * share are sent to lone runs, and no other program's outcome moves because of them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../domain/execution/types.js';
import { ProcessExecutor } from '../../infra/sandbox/process/processExecutor.js';
import { plainToolchainFor, toolchainFor } from '../../infra/sandbox/toolchainRegistry.js';
import { sharedRefusal } from '../../infra/sandbox/warm/jsSharedProcess.js';

const LIMITS = { timeoutMs: 1_500, maxOutputBytes: 4096, memoryBytes: 512 * 1024 * 1024 };
const TESTS = "const assert = require('node:assert');\n";

/** Programs that a shared process decides: the same outcome as alone, and marked shared. */
const SHARED: Record<string, string> = {
  passes: `function add(a, b) { return a + b; }\n${TESTS}assert.deepEqual(add(1, 2), 3);\nassert.deepEqual([1, [2]], [1, [2]]);`,
  strictPasses: `'use strict';\nfunction f(s) { return s.split('').reverse().join(''); }\nconst assert = require('node:assert/strict');\nassert.equal(f('abc'), 'cba');`,
  assertionFails: `function add(a, b) { return a - b; }\n${TESTS}assert.deepEqual(add(1, 2), 3);`,
  deepFails: `${TESTS}assert.deepStrictEqual({ a: [1, 2, { b: 'x' }] }, { a: [1, 2, { b: 'y' }] });`,
  typeError: `function f(x) { return x.foo.bar; }\n${TESTS}assert.deepEqual(f({}), 1);`,
  referenceError: `${TESTS}assert.deepEqual(undefinedFunction(1), 1);`,
  rangeError: `${TESTS}assert.deepEqual(new Array(-1).length, 0);`,
  thrownError: `function f() { throw new Error('nope: ' + 42); }\nf();`,
  customErrorClass: `class ValidationError extends Error {}\nfunction f() { const e = new ValidationError('bad input'); e.name = 'ValidationError'; throw e; }\nf();`,
  syntaxError: `function f(x) { return x +; }\n${TESTS}assert.deepEqual(f(1), 2);`,
  unterminated: `function f(x) {\n  return x;\n${TESTS}`,
  logs: `console.log('hello', [1, 2], { a: 1 }, 3.5, 'x%sy', 'z');\nconsole.error('to stderr');\nconsole.info(null, undefined, true);\n${TESTS}assert.deepEqual(1, 1);`,
  logsThenFails: `console.log('before');\n${TESTS}assert.deepEqual(1, 2);`,
  pollutesOwnPrototypes: `Array.prototype.sum = function () { return this.reduce((a, b) => a + b, 0); };\nObject.prototype.extra = 1;\n${TESTS}assert.deepEqual([1, 2, 3].sum(), 6);`,
  seesCleanPrototypes: `${TESTS}assert.deepEqual([].sum, undefined);\nassert.deepEqual(({}).extra, undefined);`,
  topLevelThis: `${TESTS}assert.deepEqual(this, module.exports);\nassert.deepEqual(typeof exports, 'object');\nassert.deepEqual(__filename, '/build/program.js');\nassert.deepEqual(__dirname, '/build');`,
  topLevelReturn: `${TESTS}assert.deepEqual(1, 1);\nreturn;\nassert.deepEqual(1, 2);`,
  bigOutputButUnderCap: `for (let i = 0; i < 20; i++) console.log('line ' + i);`,
  evalAndFunction: `${TESTS}assert.deepEqual(eval('1 + 2'), 3);\nassert.deepEqual(new Function('a', 'return a * 2')(4), 8);`,
  mathAndDates: `${TESTS}assert.deepEqual(Math.max(...[3, 9, 2]), 9);\nassert.deepEqual(new Date(0).toISOString(), '1970-01-01T00:00:00.000Z');\nassert.deepEqual(JSON.stringify({ a: [1] }), '{"a":[1]}');`,
};

/** Programs a shared process sends back to lone runs (the screen, or what they do); same outcome as alone. */
const ALONE: Record<string, string> = {
  requiresFs: `const fs = require('fs');\nconsole.log(typeof fs.readFileSync);`,
  processExitZero: `${TESTS}assert.deepEqual(1, 1);\nprocess.exit(0);`,
  processExitThree: `process.exit(3);`,
  touchesBuffer: `const b = Buffer.from('abc');\nconsole.log(b.length);`,
  dynamicGlobal: `const g = Function('return this')();\nconsole.log(typeof g['proc' + 'ess']);`,
  catchesAssertion: `${TESTS}try { assert.deepEqual(1, 2); } catch (e) { console.log(e instanceof Error); }`,
  usesPromise: `async function f() { return 1; }\nf().then((v) => console.log(v));`,
  stackOverflow: `function f(n) { return f(n + 1) + 1; }\nf(0);`,
  throwsString: `throw 'a string';`,
  runtimeSyntaxError: `JSON.parse('{bad');`,
  loop: `while (true) {}`,
  outputPastCap: `for (let i = 0; i < 2000; i++) console.log('line number ' + i);`,
  otherConsoleMember: `console.table([1, 2]);`,
  // Node 20.19+ detects module syntax and runs the file as an ES module: it passes alone.
  moduleSyntax: `export function f() { return 1; }`,
};

/** Run in a shared process after a program that changed what programs share: must still fail. */
const SABOTAGE = `const assert = require('node:assert');\nassert.deepEqual = () => {};\nassert.strictEqual = () => {};`;
const ESCAPE_AND_SABOTAGE = `const assert = require('node:assert');\nconst host = assert.ok['constr' + 'uctor']('return this')();\nhost.Array.prototype.hijacked = true;`;
const WRONG = `${TESTS}assert.deepEqual(1 + 1, 3);`;
const ESCAPE_AND_EXIT = `const assert = require('node:assert');\nassert.ok['constr' + 'uctor']('return process')().exit(0);`;
/** Reaches this process's own `process`, prints lines in the runner's format claiming every program passed, and exits. */
const ESCAPE_AND_FORGE = `const assert = require('node:assert');\nconst p = assert.ok['constr' + 'uctor']('return process')();\nfor (let i = 0; i < 4; i++) p.stdout.write(JSON.stringify({ n: '0'.repeat(32), i, kind: 'done', ended: 'returned', ms: 0, stdout: '', stdoutBytes: 0, stderr: '', stderrBytes: 0 }) + '\\n');\np.exit(0);`;
const MEMORY_BOMB = `const a = [];\nfor (;;) a.push(new Array(1e6).fill(1.5));`;

let shared: ProcessExecutor;
let lone: ProcessExecutor;
const byName = new Map<string, { shared: ExecutionResult; lone: ExecutionResult }>();

async function both(programs: Record<string, string>): Promise<void> {
  const entries = Object.entries(programs);
  const requests = entries.map(([name, program]) => ({ id: name, program, limits: LIMITS }));
  const [a, b] = await Promise.all([shared.runMany(requests), Promise.all(requests.map((r) => lone.run(r)))]);
  entries.forEach(([name], i) => byName.set(name, { shared: a[i]!, lone: b[i]! }));
}

/** What must be the same whichever way a program ran (tracebacks name other frames; times differ). */
function outcome(r: ExecutionResult) {
  return {
    status: r.status,
    type: r.exception?.type,
    message: r.exception?.message,
    stdout: r.stdout,
    stdoutBytes: r.stdoutBytes,
    exitCode: r.exitCode,
    signal: r.signal,
  };
}

beforeAll(async () => {
  // One shared executor: its batches hold every program given to one runMany call.
  shared = new ProcessExecutor(toolchainFor('js'), { concurrency: 1, shareProcess: true, limits: LIMITS });
  lone = new ProcessExecutor(plainToolchainFor('js'), { concurrency: 2, limits: LIMITS });
  await Promise.all([shared.start(), lone.start()]);
  await both({ ...SHARED, ...ALONE });
}, 120_000);

afterAll(async () => {
  await Promise.all([shared?.close(), lone?.close()]);
});

describe('a shared process ends each program as its lone run does', () => {
  it.each(Object.keys(SHARED))('%s: decided in the shared process, as alone', (name) => {
    const r = byName.get(name)!;
    expect(outcome(r.shared)).toEqual(outcome(r.lone));
    expect(r.shared.sharedProcess, JSON.stringify(r.shared)).toBe(true);
    expect(r.lone.sharedProcess).toBeUndefined();
  });

  it.each(Object.keys(ALONE))('%s: sent to a lone run, same outcome', (name) => {
    const r = byName.get(name)!;
    expect(outcome(r.shared)).toEqual(outcome(r.lone));
    expect(r.shared.sharedProcess, JSON.stringify(r.shared)).toBeUndefined();
  });

  it('the set covers every status a JavaScript program can end with here', () => {
    const statuses = new Set([...byName.values()].map((r) => r.shared.status));
    expect([...statuses].sort()).toEqual(['compile_error', 'error', 'failed', 'passed', 'timeout']);
  });

  it("run() calls, as a sweep's shard makes them: those made together share a process, with the lone outcomes", async () => {
    const names = Object.keys(SHARED);
    const results = await Promise.all(names.map((name) => shared.run({ id: name, program: SHARED[name]!, limits: LIMITS })));
    results.forEach((r, i) => expect(outcome(r), names[i]).toEqual(outcome(byName.get(names[i]!)!.lone)));
    // Made in one turn, they queue together and share one process.
    expect(results.filter((r) => r.sharedProcess).length).toBe(names.length);
  }, 60_000);

  it('a failing shared program keeps the text Node prints of its error', () => {
    const r = byName.get('assertionFails')!.shared;
    expect(r.exception?.message).toMatch(/^AssertionError \[ERR_ASSERTION\]: Expected values to be loosely deep-equal/);
    expect(r.stderr).toContain('(/build/program.js:3:8)');
    expect(r.stderr).toContain(`Node.js ${process.version}`);
    expect(r.stderr).not.toMatch(/sharedProcess\.cjs|evalmachine/);
  });
});

describe("what one program does cannot move another one's outcome", () => {
  it('changing the shared assert module: the later programs of its process run alone, and a wrong one still fails', async () => {
    const [sabotage, wrong] = await shared.runMany([
      { id: 'sabotage', program: SABOTAGE, limits: LIMITS },
      { id: 'wrong', program: WRONG, limits: LIMITS },
    ]);
    expect(sabotage!.status).toBe('passed');
    expect(wrong!.status, JSON.stringify(wrong)).toBe('failed');
    expect(wrong!.sharedProcess).toBeUndefined();
  }, 30_000);

  it("reaching this process's own builtins past the screen: seen, and the rest run alone", async () => {
    const [escape, wrong, ok] = await shared.runMany([
      { id: 'escape', program: ESCAPE_AND_SABOTAGE, limits: LIMITS },
      { id: 'wrong', program: WRONG, limits: LIMITS },
      { id: 'ok', program: SHARED.seesCleanPrototypes!, limits: LIMITS },
    ]);
    expect(escape!.status).toBe('passed');
    expect(escape!.sharedProcess).toBeUndefined();
    expect(wrong!.status).toBe('failed');
    expect(ok!.status).toBe('passed');
    expect(ok!.sharedProcess).toBeUndefined();
  }, 30_000);

  it('a program that ends the shared process (exit through an escape, a memory bomb): it and the rest run alone', async () => {
    // Time enough for the lone memory bomb to reach its memory limit on a loaded machine.
    const ample = { ...LIMITS, timeoutMs: 10_000 };
    const results = await shared.runMany(
      ['first', 'exit', 'after-exit', 'bomb', 'after-bomb'].map((id, k) => ({
        id,
        program: [SHARED.passes!, ESCAPE_AND_EXIT, WRONG, MEMORY_BOMB, SHARED.passes!][k]!,
        limits: ample,
      })),
    );
    const [first, exit, afterExit, bomb, afterBomb] = results;
    expect(first!.status).toBe('passed');
    expect(first!.sharedProcess).toBe(true);
    // Alone, process.exit(0) is exit 0: passed.
    expect(exit!.status).toBe('passed');
    expect(exit!.sharedProcess).toBeUndefined();
    expect(afterExit!.status).toBe('failed');
    expect(bomb!.status, bomb!.stderr.slice(0, 300)).toBe('oom');
    expect(afterBomb!.status).toBe('passed');
  }, 60_000);

  it("lines printed by a program in the runner's format are not taken for the runner's", async () => {
    const [before, forge, wrong, ok] = await shared.runMany([
      { id: 'before', program: WRONG, limits: LIMITS },
      { id: 'forge', program: ESCAPE_AND_FORGE, limits: LIMITS },
      { id: 'wrong', program: WRONG, limits: LIMITS },
      { id: 'ok', program: SHARED.passes!, limits: LIMITS },
    ]);
    expect(before!.status).toBe('failed');
    expect(before!.sharedProcess).toBe(true);
    expect(forge!.sharedProcess).toBeUndefined();
    expect(wrong!.status, JSON.stringify(wrong)).toBe('failed');
    expect(wrong!.sharedProcess).toBeUndefined();
    expect(ok!.status).toBe('passed');
  }, 30_000);

  it('the screen refuses what could see the process is shared, and lets MultiPL-E-shaped programs through', () => {
    expect(sharedRefusal(SHARED.passes!)).toBeNull();
    expect(sharedRefusal("const assert = require('assert');\nmodule.exports = 1;")).toBeNull();
    // A prompt's comment lines are not code; the same words in code are.
    expect(sharedRefusal('// If the list is empty then return the global maximum.\nfunction f(a) { return a; }')).toBeNull();
    expect(sharedRefusal('function f(a) { return a; } // then')).toMatch(/asynchronous/);
    expect(sharedRefusal("const fs = require('fs');")).toMatch(/require/);
    expect(sharedRefusal('const r = require;')).toMatch(/require/);
    expect(sharedRefusal('try { f(); } catch (e) {}')).toMatch(/realm/);
    expect(sharedRefusal('Object.getPrototypeOf(x)')).toMatch(/realm/);
    expect(sharedRefusal('await f();')).toMatch(/asynchronous/);
    expect(sharedRefusal('export const x = 1;')).toMatch(/module syntax/);
    expect(sharedRefusal('console.log(Object.keys(globalThis));')).toMatch(/global/);
    expect(sharedRefusal('console.log(module.id);')).toMatch(/module/);
    expect(sharedRefusal('TypeError = 1;')).toMatch(/error name/);
  });
});
