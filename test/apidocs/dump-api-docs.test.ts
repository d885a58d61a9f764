/**
 * scripts/lib/dump_api_docs.py, which install-torchdata.sh runs on torchdata, run here on the real
 * numpy and pandas of the sandbox's venv (CI has no torch): its rows are an API-doc corpus explora
 * reads, with the library's own signatures, docstrings and examples, and mask as the paper masks.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseApiDocsJsonl } from '../../domain/apidocs/corpus.js';
import { maskDoc } from '../../domain/apidocs/masking.js';
import { resolveSandboxPython } from '../../infra/sandbox/python.js';

const DUMPER = join(dirname(fileURLToPath(import.meta.url)), '../../scripts/lib/dump_api_docs.py');

function dump(args: string[]): { stdout: string } {
  return {
    stdout: execFileSync(resolveSandboxPython(), [DUMPER, '--out', '-', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
  };
}

describe('dump_api_docs.py on the sandbox venv', () => {
  it('numpy: introspected and docstring signatures, the description without examples, the examples apart', () => {
    const docs = parseApiDocsJsonl(dump(['numpy', '--names', 'mean,add,ndarray,pi']).stdout, 'numpy dump');
    // Sorted by import path; the constant pi is no API.
    expect(docs.map((d) => d.import_path)).toEqual(['numpy.add', 'numpy.mean', 'numpy.ndarray']);
    const [add, mean, ndarray] = docs as [(typeof docs)[0], (typeof docs)[0], (typeof docs)[0]];
    expect(mean.signature).toMatch(/^mean\(a, axis=None, dtype=None, out=None, keepdims=/);
    expect(mean.description.split('\n')[0]).toBe('Compute the arithmetic mean along the specified axis.');
    expect(mean.description).toContain('Parameters\n----------');
    expect(mean.description).not.toContain('>>> ');
    expect(mean.examples).toHaveLength(1);
    expect(mean.examples![0]).toMatch(/^>>> a = np\.array\(\[\[1, 2\], \[3, 4\]\]\)\n>>> np\.mean\(a\)\n2\.5/);
    // A ufunc and a C class: the signature is the docstring's first paragraph, taken out of the description.
    expect(add.signature).toMatch(/^add\(x1, x2, \/, out=None, \*, where=True/);
    expect(add.description.split('\n')[0]).toBe('Add arguments element-wise.');
    expect(ndarray.signature).toBe('ndarray(shape, dtype=float, buffer=None, offset=0, strides=None, order=None)');
    // Masked as the paper masks unseen libraries: what it does, no parameters, no examples.
    expect(maskDoc(mean)).toEqual({
      import_path: 'numpy.mean',
      name: 'mean',
      signature: mean.signature,
      description: 'Compute the arithmetic mean along the specified axis.',
    });
  });

  it('pandas: classes lose self from their signature; the same input gives the same bytes', () => {
    const first = dump(['pandas', '--names', 'DataFrame,merge,concat']).stdout;
    const docs = parseApiDocsJsonl(first, 'pandas dump');
    expect(docs.map((d) => d.name)).toEqual(['DataFrame', 'concat', 'merge']);
    expect(docs[0]!.signature).toBe(
      "DataFrame(data=None, index: 'Axes | None' = None, columns: 'Axes | None' = None, dtype: 'Dtype | None' = None, copy: 'bool | None' = None)",
    );
    expect(docs[0]!.description.split('\n')[0]).toBe('Two-dimensional, size-mutable, potentially heterogeneous tabular data.');
    expect(docs[0]!.examples![0]).toContain('>>> df = pd.DataFrame(data=d)');
    expect(dump(['pandas', '--names', 'DataFrame,merge,concat']).stdout).toBe(first);
  });

  it('a module with nothing documented is an error', () => {
    expect(() =>
      execFileSync(resolveSandboxPython(), [DUMPER, '--out', '-', 'numpy', '--names', 'pi'], { encoding: 'utf8', stdio: 'pipe' }),
    ).toThrow(/no documented class or function in numpy/);
  });
});
