/** Dense retrieval's ranking step: cosine similarity of a query vector against doc vectors. */

export interface ScoredIndex {
  /** Position of the doc vector in the array searched. */
  index: number;
  /** Cosine similarity in [-1, 1]; 0 when either vector is all zeros. */
  score: number;
}

function norm(v: readonly number[]): number {
  let s = 0;
  for (const x of v) s += x * x;
  return Math.sqrt(s);
}

/**
 * The k doc vectors most similar to the query, best first; ties go to the earlier doc. Every
 * vector must have the query's length and finite entries (a server that returned something else
 * must not produce a silently wrong ranking).
 */
export function cosineTopK(query: readonly number[], docs: readonly (readonly number[])[], k: number): ScoredIndex[] {
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`k must be a non-negative integer, got ${k}`);
  if (query.length === 0) throw new RangeError('query vector is empty');
  if (!query.every(Number.isFinite)) throw new RangeError('query vector has a non-finite entry');
  const qn = norm(query);
  const scored: ScoredIndex[] = docs.map((d, index) => {
    if (d.length !== query.length) throw new RangeError(`doc vector ${index} has length ${d.length}, the query ${query.length}`);
    if (!d.every(Number.isFinite)) throw new RangeError(`doc vector ${index} has a non-finite entry`);
    const dn = norm(d);
    let dot = 0;
    for (let i = 0; i < d.length; i++) dot += query[i]! * d[i]!;
    return { index, score: qn === 0 || dn === 0 ? 0 : dot / (qn * dn) };
  });
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.slice(0, k);
}
