/**
 * Lexical API retrieval: BM25 over each doc's `indexText` (import path + first sentence).
 *
 * Scoring is MiniSearch's BM25+ (k1 = 1.2, b = 0.7, delta = 0.5) with its coordination factor: a
 * doc's summed term scores are multiplied by how many distinct query terms it matched. Only docs
 * sharing at least one term with the query are returned, so a query with no match gives [] and
 * `search` may return fewer than k results. Pure and deterministic: no I/O, ties go to the doc
 * earlier in the corpus.
 */
import MiniSearch from 'minisearch';
import { stemmer } from 'stemmer';
import { indexText } from './corpus.js';
import type { ApiDoc } from './library.js';

export interface RetrievedApi {
  doc: ApiDoc;
  score: number;
  /** 1-based position in the result list. */
  rank: number;
}

/** Function words that carry no meaning in an API query ("remove the spaces from a string"). */
const STOP_WORDS = new Set(
  'a an and are as at be but by for from has have if in into is it its of on or so such than that the their then there these this to was were will with'.split(
    ' ',
  ),
);

/** `rstripChars` -> [r, strip, chars]; `XMLHttp2` -> [xml, http, 2]; `format_map` -> [format, map]. */
function identifierParts(word: string): string[] {
  return word
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{L})(\p{N})|(\p{N})(\p{L})/gu, (_m, a, b, c, d) => (a ? `${a} ${b}` : `${c} ${d}`))
    .split(/[\s_]+/)
    .filter((p) => p !== '');
}

/**
 * The terms BM25 sees, for docs and queries alike: words and identifiers split at dots,
 * underscores and camelCase humps, lower-cased, stop words dropped, Porter-stemmed. A compound
 * identifier also keeps its whole lower-cased form, so a query naming `format_map` favours it.
 */
export function bm25Terms(text: string): string[] {
  const out: string[] = [];
  for (const word of text.match(/[\p{L}\p{N}_]+/gu) ?? []) {
    const parts = identifierParts(word).map((p) => p.toLowerCase());
    if (parts.length > 1) out.push(word.toLowerCase().replace(/^_+|_+$/g, ''));
    for (const p of parts) if (!STOP_WORDS.has(p)) out.push(stemmer(p));
  }
  return out;
}

export class Bm25Retriever {
  private readonly index: MiniSearch<{ id: number; text: string }>;

  constructor(private readonly docs: readonly ApiDoc[]) {
    this.index = new MiniSearch<{ id: number; text: string }>({
      fields: ['text'],
      tokenize: bm25Terms,
      // bm25Terms already normalises; MiniSearch's default would lower-case again and could not drop stop words.
      processTerm: (t) => t,
    });
    this.index.addAll(docs.map((doc, id) => ({ id, text: indexText(doc) })));
  }

  /** The k best docs for the query (fewer when fewer share a term with it), best first. */
  search(query: string, k: number): RetrievedApi[] {
    if (!Number.isInteger(k) || k < 0) throw new RangeError(`k must be a non-negative integer, got ${k}`);
    if (k === 0 || this.docs.length === 0) return [];
    const hits = this.index.search(query).map((r) => ({ id: r.id as number, score: r.score }));
    hits.sort((a, b) => b.score - a.score || a.id - b.id);
    return hits.slice(0, k).map((h, i) => ({ doc: this.docs[h.id]!, score: h.score, rank: i + 1 }));
  }
}

/**
 * Positions of the k texts most similar to the query by the same BM25 (best first, ties to the
 * earlier text; texts sharing no term with the query come last, in their order): how the planner's
 * demos are chosen for a task.
 */
export function rankTexts(texts: readonly string[], query: string, k: number): number[] {
  const index = new MiniSearch<{ id: number; text: string }>({ fields: ['text'], tokenize: bm25Terms, processTerm: (t) => t });
  index.addAll(texts.map((text, id) => ({ id, text })));
  const hits = index.search(query).map((r) => ({ id: r.id as number, score: r.score }));
  hits.sort((a, b) => b.score - a.score || a.id - b.id);
  const order = hits.map((h) => h.id);
  for (let i = 0; i < texts.length; i++) if (!order.includes(i)) order.push(i);
  return order.slice(0, Math.max(0, k));
}
