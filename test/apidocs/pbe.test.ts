/**
 * The library and planner examples of PBE World datasets (domain/apidocs/pbe.ts): docs and runtime
 * of both libraries, subtasks whose calls really compute the rows' outputs (checked by real Python),
 * requirements drawn from examples only, and errors that name the bad row and field.
 */
import { describe, expect, it } from 'vitest';
import { DatasetLibrarySchema, type DatasetLibrary } from '../../domain/apidocs/library.js';
import { prepareModuleProgram } from '../../domain/apidocs/moduleRuntime.js';
import { pbeDatasetLibrary, pbeRequirement } from '../../domain/apidocs/pbe.js';
import { PYTHON_STR_LIBRARY } from '../../domain/apidocs/pythonStr.js';
import { generateTask } from '../../domain/pbe/generate.js';
import { OPERATION_NAMES } from '../../domain/pbe/operations.js';
import { PbeParamsError, resolvePbeParams, type PbeParams } from '../../domain/pbe/params.js';
import { privateLibrary } from '../../domain/pbe/privateLibrary.js';
import type { PbeTask } from '../../domain/pbe/render.js';
import { runPythonJson } from '../pbe/support.js';

const COUNT = 120;
// Mixed-case alphabet and long pipelines: every operation occurs, with every argument shape.
const SHAPE = { alphabet: 'abcXY', l_min: 4, l_max: 10, pipeline_L_min: 1, pipeline_L_max: 6, n_inputs_for_examples: 20, num_examples: 4, num_tests: 4, count: COUNT, seed: 11 };
const PLAIN = resolvePbeParams(SHAPE);
const PRIVATE = resolvePbeParams({ ...SHAPE, library: 'private' });

const rowsOf = (params: PbeParams): PbeTask[] => Array.from({ length: params.count }, (_, i) => generateTask(params, i));

/** `<statement>` of a subtask sentence `... by calling <api>: <statement>.` */
const statementOf = (subtask: string) => subtask.slice(subtask.indexOf(': ') + 2, -1);

/**
 * Per row, a program that applies the subtasks' statements in order and asserts the row's outputs:
 * the planner examples are exact, and name calls that work as the docs say.
 */
function subtaskProgram(dl: DatasetLibrary, row: PbeTask): string {
  const example = dl.planner_examples.find((e) => e.task_id === row.task_id)!;
  const body = example.subtasks.map((s) => `    ${statementOf(s)}`).join('\n');
  const asserts = [...row.examples, ...row.tests].map((p) => `assert f(${JSON.stringify(p.input)}) == ${JSON.stringify(p.output)}`).join('\n');
  const imports = dl.library.runtime.kind === 'module' ? `import ${dl.library.runtime.module}\n` : '';
  const program = `${imports}def f(s):\n${body}\n    return s\n${asserts}\n`;
  if (dl.library.runtime.kind !== 'module') return program;
  const prepared = prepareModuleProgram(dl.library.runtime, program);
  if (!prepared.ok) throw new Error(prepared.error.message);
  return prepared.program;
}

const moduleOf = (dl: DatasetLibrary) => (dl.library.runtime.kind === 'module' ? dl.library.runtime.module : null);

const RUN_PROGRAMS_PY = String.raw`
import json, sys
failures = []
for p in json.load(sys.stdin):
    # Each program's import must be served by its own preamble.
    if p['module']:
        sys.modules.pop(p['module'], None)
    try:
        exec(compile(p['program'], p['id'], 'exec'), {})
    except Exception as e:
        failures.append(f"{p['id']}: {type(e).__name__}: {e}")
print(json.dumps(failures))
`;

describe('pbeDatasetLibrary: python_str', () => {
  const rows = rowsOf(PLAIN);
  const dl = pbeDatasetLibrary(PLAIN, rows);

  it('the rows exercise every operation and every subtask wording', () => {
    const steps = rows.flatMap((r) => r.canonical_pipeline);
    expect(new Set(steps.map((s) => s.method))).toEqual(new Set(OPERATION_NAMES));
    const subtasks = dl.planner_examples.flatMap((e) => e.subtasks);
    for (const start of ['Replace every', 'Delete every', 'Convert every letter of s to upper', 'Convert every letter of s to lower', 'Remove the character ', 'Remove the characters of ']) {
      expect(subtasks.some((s) => s.startsWith(start)), start).toBe(true);
    }
  });

  it("is Python's str library with one planner example per row, in row order", () => {
    expect(DatasetLibrarySchema.parse(dl)).toEqual(dl);
    expect(dl.library).toEqual(PYTHON_STR_LIBRARY);
    expect(dl.planner_examples.map((e) => e.task_id)).toEqual(rows.map((r) => r.task_id));
    const known = new Set(PYTHON_STR_LIBRARY.docs.map((d) => d.import_path));
    rows.forEach((row, i) => {
      const example = dl.planner_examples[i]!;
      expect(example.subtasks).toHaveLength(row.canonical_pipeline.length);
      example.subtasks.forEach((subtask, j) => {
        const api = `str.${row.canonical_pipeline[j]!.method}`;
        expect(known.has(api), api).toBe(true);
        expect(subtask).toContain(`by calling ${api}: `);
      });
    });
  });

  it('subtask statements, run in Python, compute every output of their row', () => {
    const programs = rows.map((row) => ({ id: row.task_id, module: moduleOf(dl), program: subtaskProgram(dl, row) }));
    expect(runPythonJson<string[]>(RUN_PROGRAMS_PY, programs)).toEqual([]);
    // The harness can fail: a wrong statement is caught.
    const wrong = { ...dl, planner_examples: dl.planner_examples.map((e) => ({ ...e, subtasks: ['Nothing by calling str.upper: s = s.upper() + "!".'] })) };
    expect(runPythonJson<string[]>(RUN_PROGRAMS_PY, [{ id: 'wrong', module: null, program: subtaskProgram(wrong, rows[0]!) }])[0]).toMatch(/AssertionError/);
  });
});

describe('pbeDatasetLibrary: private', () => {
  const rows = rowsOf(PRIVATE);
  const dl = pbeDatasetLibrary(PRIVATE, rows);
  const lib = privateLibrary(PRIVATE.seed);

  it("documents the module's functions under <module>.<fn> and runs it as a module", () => {
    expect(DatasetLibrarySchema.parse(dl)).toEqual(dl);
    expect(dl.library.name).toBe('pbe-private');
    expect(dl.library.runtime).toEqual({ kind: 'module', module: lib.module, source: lib.source });
    expect(dl.library.summary).toContain(`import ${lib.module}`);
    expect(dl.library.docs.map((d) => d.import_path)).toEqual(lib.functions.map((f) => `${lib.module}.${f.name}`));
    for (const doc of dl.library.docs) {
      expect(doc.signature.startsWith(`${doc.import_path}(`)).toBe(true);
      expect(doc.description.length).toBeGreaterThan(20);
      // Its own words: not the str method names, not Python's docstrings.
      expect(doc.description).not.toMatch(/\b(str\.)?(replace|upper|lower|strip)\(/);
    }
    expect(dl.library.docs.find((d) => d.signature.includes('*, '))).toBeDefined();
  });

  it('subtasks name the module functions; run in Python, they compute every output of their row', () => {
    const apis = new Set(dl.library.docs.map((d) => d.import_path));
    for (const example of dl.planner_examples) {
      for (const subtask of example.subtasks) {
        const api = /by calling (\S+): /.exec(subtask)?.[1];
        expect(apis.has(api!), subtask).toBe(true);
        expect(subtask).not.toMatch(/\bstr\.|\.(replace|upper|lower|strip)\(/);
      }
    }
    const programs = rows.map((row) => ({ id: row.task_id, module: moduleOf(dl), program: subtaskProgram(dl, row) }));
    expect(runPythonJson<string[]>(RUN_PROGRAMS_PY, programs)).toEqual([]);
  });

  it('requirements come from the examples, not the pipeline', () => {
    rows.forEach((row, i) => {
      const requirement = dl.planner_examples[i]!.requirement;
      expect(requirement).toBe(pbeRequirement(row.examples, lib));
      for (const fn of lib.functions) expect(requirement).not.toContain(fn.name);
      expect(requirement).toContain(`Use the ${lib.module} module.`);
    });
    // Another pipeline with the same examples: the same requirement.
    const row = rows[0]!;
    const other = pbeDatasetLibrary(PRIVATE, [{ ...row, canonical_pipeline: [{ method: 'upper', args: [] }] }]);
    expect(other.planner_examples[0]!.requirement).toBe(dl.planner_examples[0]!.requirement);
    expect(pbeRequirement([{ input: "it's", output: 'a\\b' }])).toContain(`"it's" becomes 'a\\\\b'`);
  });

  it('is a pure function of its input', () => {
    expect(JSON.stringify(pbeDatasetLibrary(PRIVATE, rows))).toBe(JSON.stringify(dl));
  });
});

describe('pbeDatasetLibrary: bad input is named', () => {
  const plainRows = rowsOf({ ...PLAIN, count: 3 });
  const privateRows = rowsOf({ ...PRIVATE, count: 3 });

  const messageOf = (params: PbeParams, rows: unknown[]): string => {
    try {
      pbeDatasetLibrary(params, rows as never);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('accepted');
  };

  it('a row without examples, with an unknown method or a wrong arity', () => {
    const { examples: _examples, ...noExamples } = plainRows[1]!;
    const message = messageOf(PLAIN, [plainRows[0], noExamples, { ...plainRows[2]!, canonical_pipeline: [{ method: 'title', args: [] }] }]);
    expect(message).toMatch(/rows\[1\] \(pbe-world\/000001\): examples: /);
    expect(message).toMatch(/rows\[2\] \(pbe-world\/000002\): canonical_pipeline\[0\]\.method: unknown PBE operation "title"/);
    expect(messageOf(PLAIN, [{ ...plainRows[0]!, canonical_pipeline: [{ method: 'replace', args: ['a'] }] }])).toMatch(/rows\[0\].*replace takes 2 argument\(s\), got 1/);
    expect(messageOf(PLAIN, [42])).toMatch(/rows\[0\]: \(row\): /);
  });

  it('rows of another library or another seed', () => {
    expect(messageOf(PLAIN, privateRows)).toMatch(/rows\[0\] \(pbe-world\/000000\): metadata\.library: the row uses module \w+, but the parameters say library python_str/);
    expect(messageOf(PRIVATE, plainRows)).toMatch(/metadata\.library: missing; the parameters say library private/);
    expect(messageOf({ ...PRIVATE, seed: PRIVATE.seed + 1 }, privateRows)).toMatch(/different seed or generator version/);
  });

  it('invalid parameters', () => {
    expect(() => pbeDatasetLibrary({ ...PLAIN, library: 'numpy' as never }, plainRows)).toThrow(PbeParamsError);
  });
});
