/** Provenance differences compare.ts warns about: those the compared factors do not explain. */
import { describe, expect, it } from 'vitest';
import { compareCells, type ComparedCell } from '../../domain/compare/compare.js';
import { provenanceFields, unexplainedDifferences, type CellProvenance } from '../../domain/sweep/provenance.js';

const base: CellProvenance = {
  explora: { version: '0.1.0', commit: 'a'.repeat(40) },
  config_sha256: 'c'.repeat(64),
  dataset_sha256: 'd'.repeat(64),
  model: { endpoint: 'http://x/v1', name: 'm1' },
  prompt_template_sha256: 'e'.repeat(64),
  runtime: { node: 'v22.0.0', python: 'Python 3.11.7' },
};

describe('unexplainedDifferences', () => {
  it('none between equal provenances, nor for the config hash (two sweeps always differ there)', () => {
    expect(unexplainedDifferences(base, { ...base }, [])).toEqual([]);
    expect(unexplainedDifferences(base, { ...base, config_sha256: 'f'.repeat(64) }, ['method'])).toEqual([]);
  });
  it('the commit, a runtime version, the dataset file: named with both values', () => {
    const b = { ...base, explora: { version: '0.1.0', commit: 'b'.repeat(40) }, runtime: { node: 'v22.0.0', python: 'Python 3.12.1' } };
    expect(unexplainedDifferences(base, b, ['method'])).toEqual([
      { field: 'explora.commit', a: 'a'.repeat(40), b: 'b'.repeat(40) },
      { field: 'runtime.python', a: 'Python 3.11.7', b: 'Python 3.12.1' },
    ]);
    expect(unexplainedDifferences(base, { ...base, dataset_sha256: '0'.repeat(64) }, ['method']).map((d) => d.field)).toEqual([
      'dataset_sha256',
    ]);
    // A compiler present on one worker only.
    expect(unexplainedDifferences(base, { ...base, runtime: { ...base.runtime, go: 'go1.22' } }, [])).toEqual([
      { field: 'runtime.go', a: '-', b: 'go1.22' },
    ]);
  });
  it('the model factor explains the endpoint, the name and the template; the prompt factor the template', () => {
    const other = { ...base, model: { endpoint: 'http://y/v1', name: 'm2' }, prompt_template_sha256: 'f'.repeat(64) };
    expect(unexplainedDifferences(base, other, ['model'])).toEqual([]);
    expect(unexplainedDifferences(base, other, ['method']).map((d) => d.field)).toEqual([
      'model.endpoint',
      'model.name',
      'prompt_template_sha256',
    ]);
    expect(unexplainedDifferences(base, { ...base, prompt_template_sha256: 'f'.repeat(64) }, ['prompt'])).toEqual([]);
  });
  it('nothing to say when a cell has none (stored before provenance was recorded)', () => {
    expect(unexplainedDifferences(base, undefined, [])).toEqual([]);
  });
  it('flattens to named fields', () => {
    expect(Object.keys(provenanceFields(base))).toEqual([
      'explora.version',
      'explora.commit',
      'config_sha256',
      'dataset_sha256',
      'model.endpoint',
      'model.name',
      'prompt_template_sha256',
      'runtime.node',
      'runtime.python',
    ]);
  });
});

describe('compareCells with provenance', () => {
  const cell = (ref: string, method: string, provenance: CellProvenance): ComparedCell => ({
    ref,
    dataset: 'd',
    model: 'm',
    method,
    temperature: 0,
    nSamples: 1,
    k: [1],
    tasks: [
      { task_id: 't0', n: 1, c: 1 },
      { task_id: 't1', n: 1, c: 0 },
    ],
    provenance,
  });
  it('each pair lists what differs beyond its factors', () => {
    const cmp = compareCells([
      cell('s/a', 'direct', base),
      cell('s/b', 'rag', { ...base, runtime: { node: 'v20.1.0', python: 'Python 3.11.7' } }),
    ]);
    expect(cmp.pairs[0]!.provenance).toEqual([{ field: 'runtime.node', a: 'v22.0.0', b: 'v20.1.0' }]);
  });
});
