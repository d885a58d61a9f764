/**
 * A sweep's dataset library (API docs, planner examples, runtime) read from S3, and retrieval over
 * it; both kept per worker process, since every step of every task of a cell asks for them.
 */
import { DatasetLibrarySchema, type ApiDoc, type DatasetLibrary } from '../domain/apidocs/library.js';
import { Bm25Retriever } from '../domain/apidocs/bm25.js';
import type { MethodOptions } from '../domain/methods/options.js';
import { denseSearch, type createEmbeddingClient } from './llm/embeddings.js';
import { getText, type Bucket } from './s3.js';

const libraries = new Map<string, Promise<DatasetLibrary>>();
const retrievers = new Map<string, Bm25Retriever>();

export function loadDatasetLibrary(bucket: Bucket, key: string): Promise<DatasetLibrary> {
  const id = `${bucket.name}/${key}`;
  let entry = libraries.get(id);
  if (!entry) {
    entry = (async () => {
      const text = await getText(bucket, key);
      if (text === null) throw new Error(`dataset library ${key} is missing from bucket ${bucket.name}`);
      return DatasetLibrarySchema.parse(JSON.parse(text));
    })();
    entry.catch(() => libraries.delete(id));
    if (libraries.size >= 16) libraries.delete(libraries.keys().next().value as string);
    libraries.set(id, entry);
  }
  return entry;
}

export type EmbeddingClient = ReturnType<typeof createEmbeddingClient>;

/** The top `k` docs for `query` with the configured retriever. */
export async function retrieveDocs(
  library: DatasetLibrary,
  libraryKey: string,
  query: string,
  k: number,
  options: MethodOptions,
  embeddings: EmbeddingClient,
): Promise<ApiDoc[]> {
  if (options.retriever === 'dense') {
    const e = options.embeddings!;
    const endpoint = {
      baseUrl: e.base_url,
      model: e.model,
      requestTimeoutS: e.request_timeout_s,
      ...(e.api_key_env ? { apiKeyEnv: e.api_key_env } : {}),
    };
    return (await denseSearch(embeddings, endpoint, library.library.docs, query, k)).map((r) => r.doc);
  }
  let retriever = retrievers.get(libraryKey);
  if (!retriever) {
    retriever = new Bm25Retriever(library.library.docs);
    if (retrievers.size >= 16) retrievers.delete(retrievers.keys().next().value as string);
    retrievers.set(libraryKey, retriever);
  }
  // BM25 returns only docs sharing a term with the query; the rest score zero and follow in corpus
  // order, so a small library (PBE's private module has four functions) is offered whole.
  // The retriever is kept per library key; its docs may be another view (masked or not) of the same
  // library, whose index texts are the same: the docs returned are the caller's.
  const hits = docsByPath(
    library,
    retriever.search(query, k).map((r) => r.doc.import_path),
  );
  if (hits.length >= k) return hits;
  const taken = new Set(hits.map((d) => d.import_path));
  return [...hits, ...library.library.docs.filter((d) => !taken.has(d.import_path))].slice(0, k);
}

export function docsByPath(library: DatasetLibrary, paths: readonly string[]): ApiDoc[] {
  const index = new Map(library.library.docs.map((d) => [d.import_path, d]));
  return paths.map((p) => index.get(p)).filter((d): d is ApiDoc => d !== undefined);
}
