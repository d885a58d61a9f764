'use strict';
/**
 * Runs several MultiPL-E JavaScript programs in this one Node process, each in a V8 context of its
 * own, and reports each one's end as a JSON line on stdout as soon as it is known. Started by the
 * JavaScript toolchain's shared-process run (jsSharedProcess.ts says when and why), inside the
 * run step's sandbox:
 *
 *   node [the lone run's flags] sharedProcess.cjs DIR COUNT TIMEOUT_MS OUTPUT_BYTES < NONCE
 *
 * DIR holds p0.js ... p<COUNT-1>.js. Each line is {"n": NONCE, "i": k, "kind": "done", ...} with the end
 * a lone `node program.js` would have had, or {"i": k, "kind": "alone", "why": ...} when this
 * process cannot be sure of it: the runner then runs that program alone. A program whose line
 * never comes (this process died: a memory bomb, a kill) is run alone too.
 *
 * What a program here sees as it would alone, and how the rest is kept from deciding an outcome:
 *   - its own context: its own globals and builtins (Object.prototype, Array.prototype ...), so no
 *     program sees what another changed there;
 *   - CommonJS as Node's loader gives it: the same parameters (exports, require, module,
 *     __filename = /build/program.js, __dirname = /build), compiled by vm.compileFunction as
 *     Node's loader compiles a module (the same parse, the same SyntaxError);
 *   - `require('assert')` / `require('node:assert')` (and their /strict forms): Node's own module,
 *     the one object programs share; any change to it (or to this process's own globals and
 *     builtins) is looked for after each program: if one is found, that program and every later
 *     one go alone;
 *   - Node's globals that a bare V8 context lacks (process, Buffer, timers, fetch ...), and
 *     Promise, WebAssembly, Atomics, WeakRef, FinalizationRegistry: getters that mark the program
 *     `alone` the moment it touches one (whatever it then does with the error they throw);
 *   - console.log/info/debug (stdout) and console.error/warn (stderr), formatted by util.format as
 *     Node's console does for a pipe; any other console member marks the program `alone`;
 *   - the end: `returned` (a lone run's exit 0) or `threw` with the stderr Node prints of an uncaught
 *     error (its source excerpt, util.inspect of the error, its version line), which the runner
 *     classifies as a lone run's (classifyNode); only Node's AssertionError and Errors of the
 *     program's own context are reported so; a stack overflow (its depth differs by this runner's
 *     frames), a timeout, a runtime SyntaxError, output past the cap, a thrown non-Error or an
 *     object of another realm: `alone`.
 */
const vm = require('node:vm');
const fs = require('node:fs');
const util = require('node:util');
const assertModule = require('node:assert');

const [dir, countArg, timeoutArg, outputArg] = process.argv.slice(2);
// Read before any program runs and kept in this module's scope only: a line without it is not this
// runner's (a program that reached this process's own objects could write lines of its own).
const NONCE = fs.readFileSync(0, 'utf8').trim();
if (!/^[0-9a-f]{32}$/.test(NONCE)) throw new Error('sharedProcess.cjs: expected a nonce on stdin');
const COUNT = Number(countArg);
const TIMEOUT_MS = Number(timeoutArg);
const OUTPUT_BYTES = Number(outputArg);
const FILENAME = '/build/program.js';
const DIRNAME = '/build';
const PARAMS = ['exports', 'require', 'module', '__filename', '__dirname'];
const ASSERT_IDS = new Set(['assert', 'node:assert', 'assert/strict', 'node:assert/strict']);

/** Names a program may not touch here: Node's globals a bare context lacks, and what runs later than the program. */
const bareNames = new Set(vm.runInContext('Object.getOwnPropertyNames(globalThis)', vm.createContext()));
const GUARDED = [
  ...Object.getOwnPropertyNames(globalThis).filter((name) => !bareNames.has(name)),
  'Promise',
  'WebAssembly',
  'Atomics',
  'WeakRef',
  'FinalizationRegistry',
];

/** Objects of this process that a program could change: their own properties are compared after each program. */
function watched() {
  const objects = new Set([globalThis, assertModule, assertModule.strict, assertModule.AssertionError.prototype]);
  for (const value of Object.values(assertModule)) if (typeof value === 'function') objects.add(value);
  for (const name of Object.getOwnPropertyNames(globalThis)) {
    const d = Object.getOwnPropertyDescriptor(globalThis, name);
    if (d && 'value' in d && typeof d.value === 'function') {
      objects.add(d.value);
      if (d.value.prototype && typeof d.value.prototype === 'object') objects.add(d.value.prototype);
    }
  }
  return [...objects];
}

function snapshot(objects) {
  return objects.map((o) => {
    const keys = Reflect.ownKeys(o);
    return {
      extensible: Object.isExtensible(o),
      proto: Object.getPrototypeOf(o),
      props: keys.map((k) => [k, Object.getOwnPropertyDescriptor(o, k)]),
    };
  });
}

function sameSnapshot(a, b) {
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x.extensible !== y.extensible || x.proto !== y.proto || x.props.length !== y.props.length) return false;
    for (let j = 0; j < x.props.length; j++) {
      const [kx, dx] = x.props[j];
      const [ky, dy] = y.props[j];
      if (
        kx !== ky ||
        !Object.is(dx.value, dy.value) ||
        dx.get !== dy.get ||
        dx.set !== dy.set ||
        dx.writable !== dy.writable ||
        dx.enumerable !== dy.enumerable ||
        dx.configurable !== dy.configurable
      )
        return false;
    }
  }
  return true;
}

// Touched once before the snapshot: some of Node's globals replace their getter on first use.
void performance.now();
const WATCHED = watched();
const BEFORE = snapshot(WATCHED);

function report(line) {
  fs.writeSync(1, JSON.stringify({ n: NONCE, ...line }) + '\n');
}

function runOne(i) {
  const source = fs.readFileSync(`${dir}/p${i}.js`, 'utf8');
  const state = { touched: null, stdout: '', stderr: '', stdoutBytes: 0, stderrBytes: 0 };
  const context = vm.createContext({}, { microtaskMode: 'afterEvaluate' });
  const mark = (name) => {
    state.touched ??= name;
  };
  // The program's require, module and console are objects of its own context.
  const makeRequire = vm.runInContext('(load) => function require(id) { return load(id); }', context);
  const require = makeRequire((id) => {
    if (typeof id === 'string' && ASSERT_IDS.has(id)) return id.endsWith('strict') ? assertModule.strict : assertModule;
    mark(`require(${JSON.stringify(String(id))})`);
    throw new Error(`not here: require(${String(id)})`);
  });
  const module = vm.runInContext('({ exports: {} })', context);
  const write =
    (stream) =>
    (...args) => {
      // Past the cap the program goes alone anyway: nothing more is kept.
      if (state.touched) return;
      const text = util.format(...args) + '\n';
      state[stream] += text;
      state[`${stream}Bytes`] += Buffer.byteLength(text);
      if (state[`${stream}Bytes`] > OUTPUT_BYTES) mark('output past the cap');
    };
  const consoleMethods = {
    log: write('stdout'),
    info: write('stdout'),
    debug: write('stdout'),
    error: write('stderr'),
    warn: write('stderr'),
  };
  const makeConsole = vm.runInContext(
    '(methods, mark) => new Proxy({}, { get(_, key) { if (Object.prototype.hasOwnProperty.call(methods, key)) return (...args) => methods[key](...args); mark("console." + String(key)); return undefined; } })',
    context,
  );
  const guard = vm.runInContext(
    '(name, mark) => ({ configurable: true, enumerable: false, get() { mark(name); throw new ReferenceError(name + " is not here"); }, set() { mark(name); } })',
    context,
  );
  const global = vm.runInContext('globalThis', context);
  for (const name of GUARDED) Object.defineProperty(global, name, guard(name, mark));
  Object.defineProperty(global, 'console', {
    configurable: true,
    enumerable: false,
    writable: true,
    value: makeConsole(consoleMethods, mark),
  });

  let fn;
  try {
    fn = vm.compileFunction(source, PARAMS, { filename: FILENAME, parsingContext: context });
  } catch (error) {
    const text = error && error.name === 'SyntaxError' ? uncaught(error) : null;
    if (text !== null) return { kind: 'done', ended: 'threw', ms: 0, stdout: '', stdoutBytes: 0, ...withStderr(state, text) };
    return { kind: 'alone', why: 'the compile threw something else than a SyntaxError' };
  }
  // Called from a script of the context's own, so that its time limit and its microtasks apply.
  Object.defineProperty(global, '__explora_start', {
    configurable: true,
    value: vm.runInContext('(fn, args) => () => fn.apply(args[0], args)', context)(fn, [
      module.exports,
      require,
      module,
      FILENAME,
      DIRNAME,
    ]),
  });
  const start = performance.now();
  let thrown = null;
  let threw = false;
  try {
    new vm.Script('(() => { const start = globalThis.__explora_start; delete globalThis.__explora_start; start(); })()').runInContext(
      context,
      { timeout: TIMEOUT_MS },
    );
  } catch (error) {
    threw = true;
    thrown = error;
  }
  const ms = performance.now() - start;
  if (state.touched) return { kind: 'alone', why: state.touched };
  const out = { ms, stdout: state.stdout, stdoutBytes: state.stdoutBytes };
  if (!threw) return { kind: 'done', ended: 'returned', ...out, stderr: state.stderr, stderrBytes: state.stderrBytes };
  if (thrown === null || typeof thrown !== 'object') return { kind: 'alone', why: 'threw a non-Error' };
  if (thrown.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT' || thrown.code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED')
    return { kind: 'alone', why: 'out of time' };
  // Node's AssertionError (the shared module's), or an Error of the program's own context.
  if (!(thrown instanceof assertModule.AssertionError) && !(thrown instanceof vm.runInContext('Error', context)))
    return { kind: 'alone', why: 'threw an object of another realm' };
  if (thrown.name === 'RangeError' && /call stack/.test(String(thrown.message))) return { kind: 'alone', why: 'a stack overflow' };
  if (thrown.name === 'SyntaxError') return { kind: 'alone', why: 'a SyntaxError at run time' };
  const text = uncaught(thrown);
  return text === null
    ? { kind: 'alone', why: 'an error util.inspect could not print' }
    : { kind: 'done', ended: 'threw', ...out, ...withStderr(state, text) };
}

/** What Node prints of an uncaught error: the source excerpt it decorated the error with, util.inspect, its version; this runner's frames left out. */
function uncaught(error) {
  let text;
  try {
    text = util.inspect(error);
  } catch {
    return null;
  }
  const lines = text
    .split('\n')
    .filter((line) => !(/^\s+at /.test(line) && /evalmachine\.<anonymous>|sharedProcess\.cjs|node:vm:/.test(line)));
  return `${lines.join('\n')}\n\nNode.js ${process.version}\n`;
}

/** stderr as a lone run's capture keeps it: the first OUTPUT_BYTES bytes, and the count of all. */
function withStderr(state, text) {
  const bytes = Buffer.from(state.stderr + text);
  return { stderr: bytes.subarray(0, OUTPUT_BYTES).toString('utf8'), stderrBytes: bytes.length };
}

for (let i = 0; i < COUNT; i++) {
  let outcome;
  try {
    outcome = runOne(i);
  } catch (error) {
    outcome = { kind: 'alone', why: `the runner failed: ${String(error && error.message)}` };
  }
  if (!sameSnapshot(BEFORE, snapshot(WATCHED))) {
    // This program changed what every later one shares: it and the rest go alone.
    for (let k = i; k < COUNT; k++) report({ i: k, kind: 'alone', why: 'a program changed what programs share' });
    break;
  }
  report({ i, ...outcome });
}
