/** Loading the published MonkeyEval / BeatNumEval files: rows, quirks, library, and errors that name file:line and field. */
import { describe, expect, it } from 'vitest';
import { ApiLibrarySchema, DatasetLibrarySchema } from '../../domain/apidocs/library.js';
import { DatasetRowSchema, normalizeRow } from '../../domain/families/humanevalStyle.js';
import { loadPrivateLibraryDataset, PRIVATE_LIBRARY_FORM } from '../../domain/families/renamed-library/loader.js';
import { KINDS, loadKind, rawTasks, referenceFiles } from './support.js';

/** Tasks whose prompt defines a function other than the published entry point, found independently of the loader. */
function entryPointMismatches(rows: string): Array<{ task_id: string; defined: string }> {
  return rawTasks(rows).flatMap((t) => {
    if (t.entry_point === 'none') return [];
    const defs = [...t.prompt.matchAll(/^def\s+(\w+)\s*\(/gm)].map((m) => m[1]!);
    return defs.includes(t.entry_point) ? [] : [{ task_id: t.task_id, defined: defs[0]! }];
  });
}

describe.each(KINDS)('$kind loader', ({ kind, original }) => {
  const dataset = loadKind(kind);
  const raw = rawTasks(referenceFiles(kind).rows);

  it('normalizes every row for the sweep', () => {
    expect(dataset.problems).toHaveLength(101);
    expect(dataset.problems.map((p) => p.task_id)).toEqual(raw.map((t) => t.task_id));
    for (const row of dataset.problems) {
      const problem = normalizeRow(DatasetRowSchema.parse(row), PRIVATE_LIBRARY_FORM, 'renamed-library');
      expect(problem.canonical_solution).toBe(raw.find((t) => t.task_id === row.task_id)!.canonical_solution[0]);
      expect(problem.entry_point).not.toBe('none');
    }
  });

  it('fixes each entry point the prompt contradicts, and says so', () => {
    const mismatches = entryPointMismatches(referenceFiles(kind).rows);
    expect(mismatches.length).toBeGreaterThan(0);
    for (const { task_id, defined } of mismatches) {
      expect(dataset.problems.find((p) => p.task_id === task_id)!.entry_point).toBe(defined);
      const quirk = dataset.quirks.find((q) => q.task_id === task_id && q.problem.startsWith('entry_point'));
      expect(quirk?.problem, task_id).toContain(`entry_point set to ${defined}`);
    }
    const fixed = dataset.quirks.filter((q) => /^entry_point \S+ is not defined by the prompt/.test(q.problem));
    expect(fixed.map((q) => q.task_id).sort()).toEqual(mismatches.map((m) => m.task_id).sort());
  });

  it('makes statement completions callable as check(None), and counts them', () => {
    const statements = raw.filter((t) => t.entry_point === 'none' && /^def check\(\):/m.test(t.test));
    for (const t of statements) {
      const row = dataset.problems.find((p) => p.task_id === t.task_id)!;
      expect(row.entry_point).toBe('None');
      expect(row.test).toContain('def check(_candidate=None):');
    }
    const summary = dataset.quirks.find((q) => q.task_id === '*');
    expect(summary?.problem).toMatch(new RegExp(`^${statements.length} statement completions`));
  });

  it('builds the library: private docs, summary, renamed runtime, planner examples', () => {
    const { library, planner_examples } = DatasetLibrarySchema.parse(dataset.library);
    ApiLibrarySchema.parse(library);
    expect(library.runtime).toMatchObject({ kind: 'renamed', original, renamed: kind });
    expect(library.docs.length).toBeGreaterThan(50);
    const mapping = library.runtime.kind === 'renamed' ? library.runtime.mapping : {};
    const originals = new Set(Object.keys(mapping));
    for (const doc of library.docs) {
      expect(Object.values(mapping)).toContain(doc.name);
      expect(doc.import_path.endsWith(`.${doc.name}`) || doc.import_path === doc.name).toBe(true);
      // Import paths are private throughout: no segment is an original name.
      for (const part of doc.import_path.split('.')) expect(originals.has(part), doc.import_path).toBe(false);
    }
    expect(library.summary).toContain(`import ${kind} as`);
    // Planner demos: the library's usage, renamed as the docs are; nothing of any task.
    expect(planner_examples.length).toBeGreaterThanOrEqual(10);
    const documented = new Set(library.docs.map((d) => d.import_path));
    let named = 0;
    for (const example of planner_examples) {
      expect(example.requirement.length).toBeGreaterThan(0);
      for (const subtask of example.subtasks) {
        const api = /using (\S+)/.exec(subtask)?.[1];
        if (!api) continue;
        for (const part of api.split('.')) expect(originals.has(part), subtask).toBe(false);
        if (documented.has(api)) named++;
      }
      const text = JSON.stringify(example);
      for (const row of dataset.problems) expect(text).not.toContain(row.canonical_solution.trim());
    }
    expect(named).toBeGreaterThan(5);
  });
});

describe('loader specifics', () => {
  it('documents where the tasks use each keyword', () => {
    const docs = loadKind('beatnum').library.library.docs;
    const path = (name: string) => docs.find((d) => d.name === name)?.import_path;
    expect(path('normlizattion')).toBe('beatnum.linalg.normlizattion');
    expect(path('numset')).toBe('beatnum.numset');
    expect(path('convert_type')).toBe('beatnum.ndnumset.convert_type');
    const monkeyDocs = loadKind('monkey').library.library.docs;
    expect(monkeyDocs.find((d) => d.name === 'length')?.import_path).toBe('builtins.length');
    expect(monkeyDocs.find((d) => d.name === 'sip')).toMatchObject({
      import_path: 'monkey.Index.sip',
      signature: "sip(self, labels, errors: 'str_t' = 'raise') -> 'Index'",
      description: 'Create a new Index with no passed labels.',
    });
  });

  it('accepts the trailing comma of numpy_keyword_mapping.json and reports it', () => {
    const quirks = loadKind('beatnum').quirks;
    expect(quirks.find((q) => q.task_id.startsWith('numpy_keyword_mapping.json:'))?.problem).toMatch(/trailing comma/);
  });

  it('lists the canonical solutions that use original names', () => {
    const monkeyQuirks = loadKind('monkey').quirks.filter((q) => q.problem.includes('uses the original name'));
    expect(monkeyQuirks.map((q) => q.task_id)).toEqual(['PandasEval/36']);
    expect(monkeyQuirks[0]!.problem).toContain('`unique`');
  });
});

describe('loader errors name the file, the line and the field', () => {
  const files = referenceFiles('monkey');
  const load = (patch: Partial<{ rows: string; keywords: string; mapping: string }>) =>
    loadPrivateLibraryDataset({ kind: 'monkey', rows: files.rows, keywords: files.keywords, mapping: files.mapping, ...patch });
  const lines = files.rows.split('\n');

  it('a row without its test', () => {
    const row = JSON.parse(lines[1]!) as Record<string, unknown>;
    delete row.test;
    const rows = [lines[0], JSON.stringify(row), ...lines.slice(2)].join('\n');
    expect(() => load({ rows })).toThrow(/^real_monkey_eval_v3\.jsonl:2: test: /);
  });

  it('a row that is not JSON', () => {
    const rows = [lines[0], lines[1], '{"task_id": "x",', ...lines.slice(2)].join('\n');
    expect(() => load({ rows })).toThrow(/^real_monkey_eval_v3\.jsonl:3: not valid JSON/);
  });

  it('a duplicate task id', () => {
    const rows = [lines[0], lines[0], ...lines.slice(1)].join('\n');
    expect(() => load({ rows })).toThrow(/^real_monkey_eval_v3\.jsonl:2: task_id: PandasEval\/0 already on line 1/);
  });

  it('a keyword whose private name is not a string', () => {
    const keywords = files.keywords.replace('"drop": "sip"', '"drop": 7');
    expect(() => load({ keywords })).toThrow(/^pandas_keywords\.jsonl:11: drop: must be a non-empty string/);
  });

  it('a mapping file that is not JSON', () => {
    const broken = files.mapping.split('\n');
    broken[4] = broken[4]!.replace(':', '');
    expect(() => load({ mapping: broken.join('\n') })).toThrow(/^pandas_keyword_mapping\.json:5: not valid JSON/);
  });

  it('a mapping file without descriptions', () => {
    expect(() => load({ mapping: '{"keyword_description": {}}' })).toThrow(
      /^pandas_keyword_mapping\.json: paraphrased_keyword_description: /,
    );
  });

  it('a file name given by the caller', () => {
    expect(() =>
      loadPrivateLibraryDataset({
        kind: 'monkey',
        rows: '{}',
        keywords: files.keywords,
        mapping: files.mapping,
        source: { rows: 'data/m.jsonl' },
      }),
    ).toThrow(/^data\/m\.jsonl:1: task_id: /);
  });
});
