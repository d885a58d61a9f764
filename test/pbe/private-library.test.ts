/**
 * PBE World over the private library (`library: 'private'`): the generated module, the rows that use
 * it, and programs made runnable with prepareModuleProgram, checked by real Python and by the real
 * sandbox.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PythonExecutor } from '../../infra/sandbox/pythonExecutor.js';
import { prepareModuleProgram, type ModuleRuntime } from '../../domain/apidocs/moduleRuntime.js';
import { generateLines, generateTask } from '../../domain/pbe/generate.js';
import { OPERATION_NAMES } from '../../domain/pbe/operations.js';
import { resolvePbeParams, type PbeParams } from '../../domain/pbe/params.js';
import { privateLibrary, privateSourceHash, PRIVATE_LIBRARY_VERSION } from '../../domain/pbe/privateLibrary.js';
import { isNonsenseName, nonsenseNames } from '../../domain/pbe/privateNames.js';
import type { PbeTask } from '../../domain/pbe/render.js';
import { compileTaskSchema, PARAM_SETS, runPythonJson } from './support.js';

const TASKS_PER_SET = 40;
const PRIVATE_SETS: [string, PbeParams][] = PARAM_SETS.map(([name, params]) => [name, { ...params, library: 'private' }]);

const runtimeOf = (seed: number): ModuleRuntime => {
  const lib = privateLibrary(seed);
  return { kind: 'module', module: lib.module, source: lib.source };
};

const prepare = (seed: number, program: string): string => {
  const prepared = prepareModuleProgram(runtimeOf(seed), program);
  if (!prepared.ok) throw new Error(`refused: ${prepared.error.message}`);
  return prepared.program;
};

const fullProgram = (task: PbeTask) => `${task.canonical_solution}\n${task.test}\ncheck(${task.entry_point})\n`;

/**
 * Each task's prepared program and prepared prompt, run in one interpreter: the module is removed
 * from sys.modules before every run, so each import must be served by that program's own preamble.
 */
const CHECK_PRIVATE_PY = String.raw`
import ast, json, sys, warnings
warnings.simplefilter('error')
STR_METHODS = set(dir(str))
failures = []
for t in json.load(sys.stdin):
    tid, module = t['task_id'], t['module']
    try:
        sys.modules.pop(module, None)
        exec(compile(t['program'], 'program.py', 'exec', dont_inherit=True), {})

        # The solution calls the module's functions and nothing else; no str method anywhere.
        for node in ast.walk(ast.parse(t['canonical_solution'])):
            if isinstance(node, ast.Call):
                f = node.func
                if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == module):
                    failures.append(f'{tid}: call {ast.unparse(node)} is not a {module} function')
            if isinstance(node, ast.Attribute) and node.attr in STR_METHODS:
                failures.append(f'{tid}: uses str method {node.attr}')

        # The prompt runs once prepared, its stub raises, and its examples are exact literals.
        sys.modules.pop(module, None)
        ns = {}
        exec(compile(t['prompt'], 'prompt.py', 'exec', dont_inherit=True), ns)
        try:
            ns[t['entry_point']]('x')
            failures.append(f'{tid}: prompt stub did not raise')
        except NotImplementedError:
            pass
        shown = []
        for line in t['raw_prompt'].split('\n'):
            if line.strip().startswith('>>> '):
                expr = ast.parse(line.strip()[4:], mode='eval').body
                shown.append({'input': ast.literal_eval(expr.left.args[0]), 'output': ast.literal_eval(expr.comparators[0])})
        if shown != t['examples']:
            failures.append(f'{tid}: prompt examples {shown!r} != {t["examples"]!r}')
    except Exception as e:
        failures.append(f'{tid}: {type(e).__name__}: {e}')
print(json.dumps(failures))
`;

function privateTasks(): (PbeTask & { seed: number })[] {
  const tasks: (PbeTask & { seed: number })[] = [];
  for (const [name, params] of PRIVATE_SETS) {
    for (let index = 0; index < TASKS_PER_SET; index++) {
      const task = generateTask(params, index);
      tasks.push({ ...task, task_id: `${name}/${task.task_id}`, seed: params.seed });
    }
  }
  return tasks;
}

describe('private tasks under real Python', () => {
  it('every canonical solution, prepared, passes its tests; calls only the module; prompts run', () => {
    const tasks = privateTasks();
    expect(tasks.length).toBeGreaterThanOrEqual(300);
    // Both conventions that differ from str occur: the text last (replace) and a keyword (strip).
    expect(tasks.some((t) => /, s\)$/m.test(t.canonical_solution))).toBe(true);
    expect(tasks.some((t) => t.canonical_solution.includes('edge_chars='))).toBe(true);
    const input = tasks.map((t) => ({
      task_id: t.task_id,
      module: t.metadata.library!.module,
      entry_point: t.entry_point,
      canonical_solution: t.canonical_solution,
      program: prepare(t.seed, fullProgram(t)),
      prompt: prepare(t.seed, t.prompt),
      raw_prompt: t.prompt,
      examples: t.examples,
    }));
    expect(runPythonJson<string[]>(CHECK_PRIVATE_PY, input)).toEqual([]);
  });

  it('the harness can fail: without the preamble the import fails, a wrong call fails its test', () => {
    const task = generateTask(PRIVATE_SETS[0]![1], 2);
    const lib = privateLibrary(0);
    const base = {
      task_id: 't',
      module: lib.module,
      entry_point: task.entry_point,
      canonical_solution: task.canonical_solution,
      prompt: prepare(0, task.prompt),
      raw_prompt: task.prompt,
      examples: task.examples,
    };
    const unprepared = { ...base, program: fullProgram(task) };
    const wrong = {
      ...base,
      program: prepare(
        0,
        fullProgram({ ...task, canonical_solution: task.canonical_solution.replace('    return s', '    return s + "!"') }),
      ),
    };
    const failures = runPythonJson<string[]>(CHECK_PRIVATE_PY, [unprepared, wrong]);
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatch(/ModuleNotFoundError/);
    expect(failures[1]).toMatch(/AssertionError/);
  });

  it('the module: documented examples hold; names are not Python names; calls that ignore the docs fail', () => {
    const seeds = [0, 1, 7, 123456, 2 ** 32 - 1];
    const libs = seeds.map((seed) => privateLibrary(seed));
    const result = runPythonJson<string[]>(
      String.raw`
import ast, json, sys, types
failures = []
for lib in json.load(sys.stdin):
    m = types.ModuleType(lib['module'])
    exec(compile(lib['source'], lib['module'], 'exec'), m.__dict__)
    if sorted(m.__all__) != sorted(f['name'] for f in lib['functions']):
        failures.append(f"{lib['module']}: __all__ {m.__all__}")
    ns = {lib['module']: m}
    for f in lib['functions']:
        expr, _, value = f['example'].partition('  # ')
        if eval(expr, ns) != ast.literal_eval(value):
            failures.append(f"{f['name']}: {f['example']}")
        if not (getattr(m, f['name']).__doc__ or '').strip():
            failures.append(f"{f['name']}: no docstring")
    fns = {f['operation']: getattr(m, f['name']) for f in lib['functions']}
    names = {f['operation']: f['name'] for f in lib['functions']}
    # Called the way str is called, the functions fail or do something else.
    try:
        fns['strip']('xax', 'x')
        failures.append('strip: characters accepted by position')
    except TypeError as e:
        if 'positional argument' not in str(e):
            failures.append(f'strip: {e}')
    if fns['replace']('banana', 'an', 'AN') != 'AN':
        failures.append('replace: the text is not the last argument')
    for call, message in [
        (lambda: fns['upper'](3), f"{names['upper']}() argument 'text' must be str, not int"),
        (lambda: fns['replace']('a', 1, 'b'), f"{names['replace']}() argument 'replacement' must be str, not int"),
        (lambda: fns['strip']('a', edge_chars=None), f"{names['strip']}() argument 'edge_chars' must be str, not NoneType"),
    ]:
        try:
            call()
            failures.append(f'no error for {message}')
        except TypeError as e:
            if str(e) != message:
                failures.append(f'{e} != {message}')
print(json.dumps(failures))
`,
      libs,
    );
    expect(result).toEqual([]);
  });

  it('names are pronounceable nonsense, never a str method, keyword, builtin or standard module', () => {
    const seeds = [...Array.from({ length: 1500 }, (_, i) => i), 2 ** 31, 2 ** 32 - 1];
    const names = seeds.map((seed) => {
      const lib = privateLibrary(seed);
      return [lib.module, ...lib.functions.map((f) => f.name)];
    });
    for (const group of names) {
      expect(new Set(group).size).toBe(group.length);
      for (const name of group) expect(isNonsenseName(name), name).toBe(true);
    }
    const flat = [...new Set(names.flat())];
    // Many distinct names: the seed really drives them.
    expect(flat.length).toBeGreaterThan(0.9 * names.flat().length);
    const clashes = runPythonJson<string[]>(
      String.raw`
import builtins, json, keyword, sys
taken = set(dir(str)) | set(keyword.kwlist) | set(keyword.softkwlist) | set(dir(builtins)) | set(sys.stdlib_module_names) | set(sys.builtin_module_names)
names = json.load(sys.stdin)
print(json.dumps([n for n in names if n in taken or not n.isidentifier() or not n.isascii()]))
`,
      flat,
    );
    expect(clashes).toEqual([]);
    expect(nonsenseNames(5, 0, 6)).toEqual(nonsenseNames(5, 0, 6));
    expect(nonsenseNames(5, 0, 6)).not.toEqual(nonsenseNames(5, 1, 6));
  });
});

describe('private rows', () => {
  it.each(PRIVATE_SETS)('%s: the same task as with python_str, rendered against the module', (_name, privateParams) => {
    const plainParams: PbeParams = { ...privateParams, library: 'python_str' };
    const lib = privateLibrary(privateParams.seed);
    for (let index = 0; index < 30; index++) {
      const plain = generateTask(plainParams, index);
      const priv = generateTask(privateParams, index);
      const { library, ...metadata } = priv.metadata;
      expect(library).toEqual({
        name: 'pbe-private',
        module: lib.module,
        version: PRIVATE_LIBRARY_VERSION,
        source_hash: privateSourceHash(lib.source),
      });
      expect(metadata).toEqual(plain.metadata);
      expect(Object.keys(priv)).toEqual(Object.keys(plain));
      for (const key of ['task_id', 'entry_point', 'canonical_pipeline', 'test', 'num_tests', 'examples', 'tests'] as const) {
        expect(priv[key]).toEqual(plain[key]);
      }
      expect(priv.prompt).toContain(`import ${lib.module}\n`);
      expect(priv.prompt).toContain(`The documentation of \`${lib.module}\` is provided`);
      expect(priv.prompt).not.toMatch(/s\.(replace|upper|lower|strip)\(/);
      expect(priv.canonical_solution.startsWith(`import ${lib.module}\n`)).toBe(true);
      expect(priv.canonical_solution).not.toMatch(/\.(replace|upper|lower|strip)\(/);
    }
  });

  it('conform to the shipped JSON Schema, metadata.library included', () => {
    const validate = compileTaskSchema();
    for (const [, params] of PRIVATE_SETS) {
      for (let index = 0; index < 10; index++) {
        const row = generateTask(params, index);
        expect(row.metadata.library).toBeDefined();
        expect(validate(row), JSON.stringify(validate.errors)).toBe(true);
        const broken = { ...row, metadata: { ...row.metadata, library: { ...row.metadata.library!, source_hash: 'not-hex' } } };
        expect(validate(broken)).toBe(false);
      }
    }
  });

  it('are reproducible: same params and index give the same bytes, alone or in any slice', () => {
    const params = PRIVATE_SETS[1]![1];
    const lines = [...generateLines(params, 0, 40)];
    expect([...generateLines({ ...params, alphabet: [...params.alphabet] }, 0, 40)]).toEqual(lines);
    expect([...generateLines(params, 0, 13), ...generateLines(params, 13, 40)]).toEqual(lines);
    // Another seed's library interleaved: no state leaks from one library into the other's rows.
    for (let i = 39; i >= 0; i -= 5) {
      generateTask({ ...params, seed: params.seed + 1 }, i);
      expect(JSON.stringify(generateTask(params, i)) + '\n').toBe(lines[i]);
    }
  });

  it('the default (python_str) datasets are byte for byte those of the generator before the library option', () => {
    // sha256 of the first 300 JSONL lines, computed with the generator as it was before `library` existed.
    const digest = (params: PbeParams) =>
      createHash('sha256')
        .update([...generateLines(params, 0, 300)].join(''))
        .digest('hex');
    expect(digest(resolvePbeParams({ count: 300 }))).toBe('df9d904777cb17211ec6ab535ac156d0b7a8226084cbd180ff096465c1e36968');
    const long = {
      seed: 5,
      alphabet: 'abcXY',
      l_min: 4,
      l_max: 10,
      pipeline_L_min: 5,
      pipeline_L_max: 8,
      n_inputs_for_examples: 20,
      num_examples: 5,
      num_tests: 5,
      count: 300,
    };
    expect(digest(resolvePbeParams(long))).toBe('3543be81e3a4d03401acc64d7505958bf597f39a73c9ba6ca683f6a91dd3a81a');
    expect(digest(resolvePbeParams({ ...long, library: 'python_str' }))).toBe(
      '3543be81e3a4d03401acc64d7505958bf597f39a73c9ba6ca683f6a91dd3a81a',
    );
    expect(generateTask(resolvePbeParams({}), 0).metadata).not.toHaveProperty('library');
  });

  it('library is validated like any parameter', () => {
    expect(resolvePbeParams({ library: 'private' }).library).toBe('private');
    expect(resolvePbeParams({}).library).toBe('python_str');
    expect(() => resolvePbeParams({ library: 'numpy' as never })).toThrow(/library/);
  });
});

describe('module source', () => {
  it('is byte-stable for a fixed seed and changes with the seed', () => {
    const a = privateLibrary(0);
    expect(privateLibrary(1).source).not.toBe(a.source);
    expect(privateLibrary(0).source).toBe(a.source);
    // The source hash is over the source bytes: any change to them changes it.
    expect(a.source_hash).toBe(privateSourceHash(a.source));
    expect(privateSourceHash(a.source + ' ')).not.toBe(a.source_hash);
    expect(privateSourceHash(a.source.replace('text', 'texT'))).not.toBe(a.source_hash);
    // Snapshot: the seed-0 library of this generator version (a change here is a dataset change).
    expect(a.module).toBe('qiglazol');
    expect(a.source_hash).toBe('79765984cc02b6ec20ad750eb2ca63c2');
    // Distinct seeds, distinct modules (names and hence sources), with rare coincidences at most.
    const modules = new Set(Array.from({ length: 200 }, (_, seed) => privateLibrary(seed).module));
    expect(modules.size).toBeGreaterThan(195);
  });

  it('has one function per pipeline operation', () => {
    expect(privateLibrary(3).functions.map((f) => f.operation)).toEqual([...OPERATION_NAMES]);
  });
});

describe('prepareModuleProgram in the real sandbox', () => {
  let executor: PythonExecutor;
  const seed = 0;
  const lib = privateLibrary(seed);
  const fn = (op: string) => `${lib.module}.${lib.functions.find((f) => f.operation === op)!.name}`;

  beforeAll(async () => {
    executor = new PythonExecutor({ concurrency: 2, limits: { timeoutMs: 20_000, maxOutputBytes: 64 * 1024 } });
    await executor.start();
  });
  afterAll(async () => {
    await executor.close();
  });

  const run = (id: string, program: string) => executor.run({ id, program });
  const programLines = (traceback: string | undefined) =>
    [...(traceback ?? '').matchAll(/File "program\.py", line (\d+)/g)].map((m) => Number(m[1]));

  it('canonical solutions pass', async () => {
    const tasks = Array.from({ length: 40 }, (_, i) => generateTask(PRIVATE_SETS[2]![1], i));
    const results = await Promise.all(tasks.map((t) => run(t.task_id, prepare(seed, fullProgram(t)))));
    expect(results.map((r) => `${r.id}: ${r.status} ${r.exception?.message ?? ''}`)).toEqual(results.map((r) => `${r.id}: passed `));
  });

  it('traceback line numbers of the program move by exactly one', async () => {
    const program = [`import ${lib.module}`, '', 'def f(s):', `    s = ${fn('upper')}(s)`, '    return s[100]', '', "f('ab')", ''].join(
      '\n',
    );
    // The same lines with str in place of the module, unprepared: its line numbers are the source's.
    const reference = await run('raw', program.replace(`import ${lib.module}`, 'pass').replace(`${fn('upper')}(s)`, 's.upper()'));
    const prepared = await run('prepared', prepare(seed, program));
    expect(reference.exception?.type).toBe('IndexError');
    expect(prepared.exception?.type).toBe('IndexError');
    expect(programLines(reference.exception?.traceback)).toEqual([7, 5]);
    expect(programLines(prepared.exception?.traceback)).toEqual([8, 6]);
  });

  it('an error raised inside the module names the function and shows no module source', async () => {
    const program = `import ${lib.module}\n\n${fn('replace')}('a', 'b', 42)\n`;
    const result = await run('module-error', prepare(seed, program));
    expect(result.exception?.type).toBe('TypeError');
    expect(result.exception?.message).toBe(`${fn('replace').split('.')[1]}() argument 'text' must be str, not int`);
    expect(programLines(result.exception?.traceback)).toEqual([4]);
    expect(result.exception?.traceback).toContain(`File "<${lib.module}>"`);
    expect(result.exception?.traceback).not.toContain('.replace(');
  });

  it("the program's globals are its own", async () => {
    const probe = "print(sorted(k for k in globals() if k != '__builtins__'))\n";
    const raw = await run('globals-raw', probe);
    const prepared = await run('globals-prepared', prepare(seed, probe));
    expect(prepared.status).toBe('passed');
    expect(prepared.stdout).toBe(raw.stdout);
    expect(prepared.stdout).not.toContain('explora');
  });

  it('programs opening with __future__ imports still run, later lines moved by one', async () => {
    const program = `# a comment\nfrom __future__ import annotations\n\nimport ${lib.module}\nx: NotDefinedAnywhere = ${fn('lower')}('AB')\nassert x == 'ab'\n1 / 0\n`;
    const result = await run('future', prepare(seed, program));
    expect(result.exception?.type).toBe('ZeroDivisionError');
    expect(programLines(result.exception?.traceback)).toEqual([8]);
  });
});
