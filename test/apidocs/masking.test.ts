/**
 * Doc masking (domain/apidocs/masking.ts): usage examples and parameter details are removed, the
 * import path, signature and what the API does stay; on by default for unseen libraries only.
 */
import { describe, expect, it } from 'vitest';
import { formatApiDoc } from '../../domain/apidocs/corpus.js';
import { maskDoc, masksDocs, visibleLibrary } from '../../domain/apidocs/masking.js';
import { pbeDatasetLibrary } from '../../domain/apidocs/pbe.js';
import { generateTask } from '../../domain/pbe/generate.js';
import { resolvePbeParams } from '../../domain/pbe/params.js';
import { MethodOptionsSchema } from '../../domain/methods/options.js';

const PRIVATE = resolvePbeParams({ count: 2, seed: 5, library: 'private' });
const PLAIN = resolvePbeParams({ count: 2, seed: 5 });
const privateDl = pbeDatasetLibrary(
  PRIVATE,
  [0, 1].map((i) => generateTask(PRIVATE, i)),
);
const plainDl = pbeDatasetLibrary(
  PLAIN,
  [0, 1].map((i) => generateTask(PLAIN, i)),
);

describe('doc masking', () => {
  it("removes the private module's examples and parameter details, keeping path, signature and purpose", () => {
    const masked = visibleLibrary(privateDl, 'auto');
    for (const [i, doc] of masked.library.docs.entries()) {
      const original = privateDl.library.docs[i]!;
      expect(original.examples?.length).toBeGreaterThan(0);
      expect(doc.examples).toBeUndefined();
      expect(doc.import_path).toBe(original.import_path);
      expect(doc.signature).toBe(original.signature);
      expect(original.description.startsWith(doc.description)).toBe(true);
      expect(doc.description.split('\n')).toHaveLength(1);
      expect(formatApiDoc(doc)).not.toContain('Example');
    }
    const all = masked.library.docs.map(formatApiDoc).join('\n');
    // The calling conventions are parameter details: gone from the text (the signature still shows them).
    expect(all).not.toMatch(/LAST argument|must be passed by keyword/);
    expect(privateDl.library.docs.map(formatApiDoc).join('\n')).toMatch(/LAST argument/);
  });

  it('cuts parameter sections in the usual docstring styles', () => {
    const doc = {
      import_path: 'lib.f',
      name: 'f',
      signature: 'f(a, b=1)',
      examples: ['f(1)'],
      description: 'Do the thing.\nParameters\n----------\na : int\n    the a',
    };
    expect(maskDoc(doc)).toEqual({ import_path: 'lib.f', name: 'f', signature: 'f(a, b=1)', description: 'Do the thing.' });
    expect(maskDoc({ ...doc, description: 'Open a file.\n\nArgs:\n  path: where' }).description).toBe('Open a file.');
    expect(maskDoc({ ...doc, description: 'Close it.\n:param fd: the descriptor' }).description).toBe('Close it.');
  });

  it('is on by default for unseen libraries only; on/off override', () => {
    const auto = MethodOptionsSchema.parse({}).doc_masking;
    expect(auto).toBe('auto');
    expect(masksDocs(privateDl, auto)).toBe(true);
    expect(masksDocs(plainDl, auto)).toBe(false);
    expect(visibleLibrary(plainDl, auto)).toBe(plainDl);
    expect(masksDocs(plainDl, 'on')).toBe(true);
    expect(masksDocs(privateDl, 'off')).toBe(false);
    // Runs started before the option existed saw whole docs.
    expect(masksDocs(privateDl, undefined)).toBe(false);
  });
});
