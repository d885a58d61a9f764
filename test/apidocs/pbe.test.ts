/**
 * The library and planner demos of PBE World datasets (domain/apidocs/pbe.ts): docs and runtime of
 * both libraries, demos of the library's own usage that carry nothing of any task, and errors that
 * name the bad row and field.
 */
import { describe, expect, it } from 'vitest';
import { DatasetLibrarySchema, type DatasetLibrary } from '../../domain/apidocs/library.js';
import { pbeDatasetLibrary } from '../../domain/apidocs/pbe.js';
import { PYTHON_STR_LIBRARY } from '../../domain/apidocs/pythonStr.js';
import { generateTask } from '../../domain/pbe/generate.js';
import { PbeParamsError, resolvePbeParams, type PbeParams } from '../../domain/pbe/params.js';
import { privateLibrary } from '../../domain/pbe/privateLibrary.js';
import type { PbeTask } from '../../domain/pbe/render.js';

const COUNT = 120;
// Mixed-case alphabet and long pipelines: every operation occurs, with every argument shape.
const SHAPE = {
  alphabet: 'abcXY',
  l_min: 4,
  l_max: 10,
  pipeline_L_min: 1,
  pipeline_L_max: 6,
  n_inputs_for_examples: 20,
  num_examples: 4,
  num_tests: 4,
  count: COUNT,
  seed: 11,
};
const PLAIN = resolvePbeParams(SHAPE);
const PRIVATE = resolvePbeParams({ ...SHAPE, library: 'private' });

const rowsOf = (params: PbeParams): PbeTask[] => Array.from({ length: params.count }, (_, i) => generateTask(params, i));

describe('pbeDatasetLibrary: python_str', () => {
  const rows = rowsOf(PLAIN);
  const dl = pbeDatasetLibrary(PLAIN, rows);

  it("is Python's str library, with planner demos of its own usage that name documented APIs", () => {
    expect(DatasetLibrarySchema.parse(dl)).toEqual(dl);
    expect(dl.library).toEqual(PYTHON_STR_LIBRARY);
    expect(dl.planner_examples.length).toBeGreaterThanOrEqual(8);
    const known = new Set(PYTHON_STR_LIBRARY.docs.map((d) => d.import_path));
    for (const demo of dl.planner_examples) {
      for (const subtask of demo.subtasks) {
        const api = /using (str\.\w+)/.exec(subtask)?.[1];
        expect(known.has(api!), subtask).toBe(true);
      }
    }
    expectNoTaskKnowledge(dl, rows);
  });
});

/**
 * The demos carry nothing of any task: no quoted literal at all (so no argument of a pipeline), no
 * canonical solution line, and they do not change with the rows.
 */
function expectNoTaskKnowledge(dl: DatasetLibrary, rows: PbeTask[]): void {
  const text = JSON.stringify(dl.planner_examples);
  expect(text).not.toMatch(/'|\\"/);
  for (const row of rows) {
    for (const line of row.canonical_solution.split('\n').filter((l) => l.trim().startsWith('s = ')))
      expect(text).not.toContain(line.trim());
  }
  const params = dl.library.runtime.kind === 'module' ? PRIVATE : PLAIN;
  expect(pbeDatasetLibrary(params, rows.slice(0, 1)).planner_examples).toEqual(dl.planner_examples);
}

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

  it('planner demos name the module functions, never str, and carry nothing of any task', () => {
    const apis = new Set(dl.library.docs.map((d) => d.import_path));
    for (const demo of dl.planner_examples) {
      for (const subtask of demo.subtasks) {
        const api = /using (\S+)$/.exec(subtask)?.[1];
        expect(apis.has(api!), subtask).toBe(true);
        expect(subtask).not.toMatch(/\bstr\.|\.(replace|upper|lower|strip)\(/);
      }
    }
    // Every function is shown in use by some demo.
    expect(new Set(dl.planner_examples.flatMap((d) => d.subtasks.map((s) => /using (\S+)$/.exec(s)![1])))).toEqual(apis);
    expectNoTaskKnowledge(dl, rows);
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
    expect(messageOf(PLAIN, [{ ...plainRows[0]!, canonical_pipeline: [{ method: 'replace', args: ['a'] }] }])).toMatch(
      /rows\[0\].*replace takes 2 argument\(s\), got 1/,
    );
    expect(messageOf(PLAIN, [42])).toMatch(/rows\[0\]: \(row\): /);
  });

  it('rows of another library or another seed', () => {
    expect(messageOf(PLAIN, privateRows)).toMatch(
      /rows\[0\] \(pbe-world\/000000\): metadata\.library: the row uses module \w+, but the parameters say library python_str/,
    );
    expect(messageOf(PRIVATE, plainRows)).toMatch(/metadata\.library: missing; the parameters say library private/);
    expect(messageOf({ ...PRIVATE, seed: PRIVATE.seed + 1 }, privateRows)).toMatch(/different seed or generator version/);
  });

  it('invalid parameters', () => {
    expect(() => pbeDatasetLibrary({ ...PLAIN, library: 'numpy' as never }, plainRows)).toThrow(PbeParamsError);
  });
});
