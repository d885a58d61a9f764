/**
 * Each method kind declares the `method_options` it reads (the report shows only those): every
 * option its own folder's code reads must be declared.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MethodOptionsSchema } from '../../domain/methods/options.js';
import { METHOD_KINDS, optionsReadBy } from '../../domain/methods/registry.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OPTION_NAMES = Object.keys(MethodOptionsSchema.shape);

function optionsReadIn(folder: string): Set<string> {
  const read = new Set<string>();
  for (const file of readdirSync(folder).filter((f) => f.endsWith('.ts'))) {
    for (const m of readFileSync(path.join(folder, file), 'utf8').matchAll(/options\.([a-z_]+)/g))
      if (OPTION_NAMES.includes(m[1]!)) read.add(m[1]!);
  }
  return read;
}

describe('optionsRead', () => {
  for (const [kind, def] of Object.entries(METHOD_KINDS)) {
    it(`${kind} declares every option its code reads`, () => {
      const declared = new Set<string>(def.optionsRead);
      for (const option of optionsReadIn(path.join(ROOT, 'methods', kind)))
        expect(declared, `methods/${kind} reads ${option}`).toContain(option);
      for (const option of def.optionsRead) expect(OPTION_NAMES).toContain(option);
    });
  }

  it('optionsReadBy: the union over names, in the options order; direct and unknown names read none', () => {
    expect(optionsReadBy(['direct', 'no-such-method'])).toEqual([]);
    expect(optionsReadBy(['rag'])).toEqual(OPTION_NAMES.filter((o) => ['rag_k', 'retriever', 'embeddings', 'doc_masking'].includes(o)));
    expect(new Set(optionsReadBy(['rag', 'exploracoder']))).toEqual(
      new Set([...optionsReadBy(['rag']), ...optionsReadBy(['exploracoder'])]),
    );
  });
});
