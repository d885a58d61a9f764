import { describe, expect, it } from 'vitest';
import { Bm25Retriever, bm25Terms } from '../../domain/apidocs/bm25.js';
import { cosineTopK } from '../../domain/apidocs/dense.js';
import type { ApiDoc } from '../../domain/apidocs/library.js';
import { PYTHON_STR_LIBRARY } from '../../domain/apidocs/pythonStr.js';

const doc = (import_path: string, description: string): ApiDoc => ({
  import_path,
  name: import_path.split('.').pop()!,
  signature: '',
  description,
});

describe('bm25Terms', () => {
  it('splits dotted paths, snake_case and camelCase, drops stop words and stems', () => {
    expect(bm25Terms('str.rstrip')).toEqual(['str', 'rstrip']);
    expect(bm25Terms('format_map')).toEqual(['format_map', 'format', 'map']);
    expect(bm25Terms('KnowledgeFrame.dropNA')).toEqual(['knowledgeframe', 'knowledg', 'frame', 'dropna', 'drop', 'na']);
    expect(bm25Terms('XMLHttpRequest2')).toEqual(['xmlhttprequest2', 'xml', 'http', 'request', '2']);
    expect(bm25Terms('Strip the trailing characters on the right')).toEqual(['strip', 'trail', 'charact', 'right']);
    expect(bm25Terms('the of a ...')).toEqual([]);
  });
});

describe('Bm25Retriever over Python str', () => {
  const retriever = new Bm25Retriever(PYTHON_STR_LIBRARY.docs);
  const cases: Array<[string, string]> = [
    ['replace every occurrence of a substring with another', 'str.replace'],
    ['convert to upper case', 'str.upper'],
    ['convert all characters to lower case', 'str.lower'],
    ['remove leading and trailing characters', 'str.strip'],
    ['strip trailing characters on the right', 'str.rstrip'],
    ['split a string into a list of words using a separator', 'str.split'],
    ['split the string into lines', 'str.splitlines'],
    ['check whether the string starts with a prefix', 'str.startswith'],
    ['pad the string with zeros on the left', 'str.zfill'],
    ['find the lowest index of a substring', 'str.find'],
    ['count non-overlapping occurrences of a substring', 'str.count'],
    ['remove a prefix from the beginning', 'str.removeprefix'],
    ['make the first character upper case and the rest lower case', 'str.capitalize'],
    ['right justify with padding', 'str.rjust'],
    ['str.format_map', 'str.format_map'],
  ];

  it.each(cases)('%s -> %s first', (query, expected) => {
    const hits = retriever.search(query, 5);
    expect(hits[0]?.doc.import_path, hits.map((h) => `${h.doc.import_path} ${h.score.toFixed(2)}`).join(', ')).toBe(expected);
  });

  it('ranks are 1-based and scores descend', () => {
    const hits = retriever.search('remove characters from the end of the string', 10);
    expect(hits.map((h) => h.rank)).toEqual(hits.map((_, i) => i + 1));
    for (let i = 1; i < hits.length; i++) expect(hits[i]!.score).toBeLessThanOrEqual(hits[i - 1]!.score);
  });

  it('is deterministic: a new retriever over the same corpus gives identical results', () => {
    const query = 'return a copy of the string';
    const again = new Bm25Retriever(PYTHON_STR_LIBRARY.docs).search(query, 47);
    expect(again).toEqual(retriever.search(query, 47));
    expect(again.length).toBeGreaterThan(20);
  });

  it('k larger than the corpus returns every matching doc once; k = 0 returns none; bad k is refused', () => {
    // Every import path starts with `str`, so every doc matches.
    const all = retriever.search('str', 1000);
    expect(all).toHaveLength(PYTHON_STR_LIBRARY.docs.length);
    expect(new Set(all.map((h) => h.doc.import_path)).size).toBe(all.length);
    expect(retriever.search('string', 0)).toEqual([]);
    expect(() => retriever.search('string', -1)).toThrow(/k must be a non-negative integer/);
    expect(() => retriever.search('string', 1.5)).toThrow(/k must be a non-negative integer/);
  });

  it('a query sharing no term with any doc, or only stop words, returns []', () => {
    expect(retriever.search('zebra quantum', 5)).toEqual([]);
    expect(retriever.search('the of a', 5)).toEqual([]);
    expect(retriever.search('', 5)).toEqual([]);
  });
});

describe('Bm25Retriever on tiny corpora', () => {
  it('works with one and two docs and with none', () => {
    const one = new Bm25Retriever([doc('lib.swap_all', 'Swap every pair of letters.')]);
    expect(one.search('swap letters', 3).map((h) => [h.doc.import_path, h.rank])).toEqual([['lib.swap_all', 1]]);
    expect(one.search('unrelated', 3)).toEqual([]);
    const two = new Bm25Retriever([doc('lib.a', 'Reverse the text.'), doc('lib.b', 'Shout the text loudly.')]);
    expect(two.search('shout', 5).map((h) => h.doc.import_path)).toEqual(['lib.b']);
    expect(new Bm25Retriever([]).search('anything', 5)).toEqual([]);
  });

  it('breaks ties by corpus order', () => {
    const docs = [doc('lib.zeta', 'Same words here.'), doc('lib.alpha', 'Same words here.'), doc('lib.mu', 'Same words here.')];
    const hits = new Bm25Retriever(docs).search('same words', 3);
    expect(hits.map((h) => h.doc.import_path)).toEqual(['lib.zeta', 'lib.alpha', 'lib.mu']);
    expect(new Set(hits.map((h) => h.score)).size).toBe(1);
    const reversed = new Bm25Retriever([...docs].reverse()).search('same words', 3);
    expect(reversed.map((h) => h.doc.import_path)).toEqual(['lib.mu', 'lib.alpha', 'lib.zeta']);
  });

  it('indexes only the import path and first sentence', () => {
    const r = new Bm25Retriever([doc('lib.a', 'Reverse the text. Mentions penguins later.'), doc('lib.b', 'Penguins everywhere.')]);
    expect(r.search('penguins', 5).map((h) => h.doc.import_path)).toEqual(['lib.b']);
  });
});

describe('cosineTopK', () => {
  it('ranks by cosine similarity, ties to the earlier vector, k capped by the corpus', () => {
    const docs = [
      [1, 0, 0],
      [0, 2, 0],
      [3, 3, 0],
      [0, 5, 0],
      [0, 0, 0],
    ];
    expect(cosineTopK([0, 1, 0], docs, 10)).toEqual([
      { index: 1, score: 1 },
      { index: 3, score: 1 },
      { index: 2, score: expect.closeTo(Math.SQRT1_2, 12) },
      { index: 0, score: 0 },
      { index: 4, score: 0 },
    ]);
    expect(cosineTopK([0, 1, 0], docs, 2).map((h) => h.index)).toEqual([1, 3]);
    expect(cosineTopK([0, 1, 0], docs, 0)).toEqual([]);
    expect(cosineTopK([-1, 0, 0], docs, 1)).toEqual([{ index: 1, score: 0 }]);
  });

  it('refuses vectors of the wrong length or with non-finite entries', () => {
    expect(() => cosineTopK([1, 0], [[1, 0, 0]], 1)).toThrow(/doc vector 0 has length 3, the query 2/);
    expect(() => cosineTopK([1, 0], [[1, NaN]], 1)).toThrow(/doc vector 0 has a non-finite entry/);
    expect(() => cosineTopK([], [], 1)).toThrow(/query vector is empty/);
    expect(() => cosineTopK([1], [[1]], -2)).toThrow(/k must be a non-negative integer/);
  });
});
