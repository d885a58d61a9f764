/**
 * `retriever: dense` through a whole sweep on the real stack: the workers embed the library's docs
 * and each task's query at the configured embeddings endpoint (a real HTTP server here), rag's
 * prompt carries exactly the top rag_k docs by cosine similarity of those vectors, and a second
 * sweep finds every vector in the S3 cache and embeds nothing.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getText } from '../../infra/s3.js';
import { Bm25Retriever } from '../../domain/apidocs/bm25.js';
import { formatApiDoc, indexText } from '../../domain/apidocs/corpus.js';
import { cosineTopK } from '../../domain/apidocs/dense.js';
import { DatasetLibrarySchema } from '../../domain/apidocs/library.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { ragQuery } from '../../methods/rag/request.js';
import { resolvePbeParams } from '../../domain/pbe/params.js';
import { sweepLibraryKey, sweepResultsKey } from '../../domain/sweep/keys.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { startEmbeddingServer, type EmbeddingServer } from '../support/embedding-server.js';
import { runTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { pbeProblems } from '../sweep/support.js';
import { exploraScript, writeScriptedSweep } from './support.js';

const { env } = testConfig();
const bucket = testBucket(testConfig().config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-dense-'));
const PARAMS = resolvePbeParams({ count: 3, seed: 61 });
const problems = pbeProblems(PARAMS);
const RAG_K = 3;

/**
 * Vectors with nothing to do with the words: a ranking by them is unlike BM25's, so the prompts
 * show which retriever chose their docs.
 */
function scrambled(text: string): number[] {
  return [...createHash('sha256').update(text).digest()].slice(0, 16).map((b) => b - 127.5);
}

let llm: ScriptedLlmServer;
let embeddings: EmbeddingServer;
beforeAll(async () => {
  llm = await startScriptedLlmServer(exploraScript(problems));
  embeddings = await startEmbeddingServer(scrambled);
});
afterAll(async () => {
  await llm.close();
  await embeddings.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

function writeSweep(file: string, id: string, embeddingModel: string): void {
  writeScriptedSweep(file, {
    id,
    datasets: [{ name: 'pbe', pbe: { count: PARAMS.count, seed: PARAMS.seed } }],
    baseUrl: llm.url,
    model: 'scripted-dense',
    methods: ['rag'],
    methodOptions: { rag_k: RAG_K, retriever: 'dense', embeddings: { base_url: embeddings.url, model: embeddingModel } },
    nSamples: 2,
    k: [1],
  });
}

describe('retriever: dense in a sweep', () => {
  it("puts the top rag_k docs by the endpoint's vectors into rag's prompts, and embeds each text once across sweeps", async () => {
    const embeddingModel = `scrambled-${uniqueSuffix()}`;
    const id = `dense-${uniqueSuffix()}`;
    const file = path.join(dir, 'sweep.yaml');
    writeSweep(file, id, embeddingModel);
    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
    expect(run.code, run.output).toBe(0);

    const library = DatasetLibrarySchema.parse(JSON.parse((await getText(bucket, sweepLibraryKey(id, 'pbe')))!));
    const docs = library.library.docs;
    expect(docs.length).toBeGreaterThan(RAG_K);
    const docVectors = docs.map((d) => scrambled(indexText(d)));
    const requests = llm.requests().filter((r) => r.body.model === 'scripted-dense');
    let differsFromBm25 = 0;
    for (const p of problems) {
      const query = ragQuery({ prompt: p.prompt } as SweepProblem);
      const expected = cosineTopK(scrambled(query), docVectors, RAG_K).map((h) => docs[h.index]!);
      const bm25 = new Bm25Retriever(docs).search(query, RAG_K).map((r) => r.doc.import_path);
      if (bm25.join() !== expected.map((d) => d.import_path).join()) differsFromBm25++;
      const mine = requests.filter((r) => (r.body.messages as Array<{ content: string }>)[1]!.content.includes(p.prompt.trim()));
      expect(mine, p.task_id).toHaveLength(2); // n_samples
      for (const r of mine) {
        const user = (r.body.messages as Array<{ content: string }>)[1]!.content;
        expect(user.slice(user.indexOf('Documentation:\n')), p.task_id).toBe(
          `Documentation:\n${expected.map(formatApiDoc).join('\n\n')}\n`,
        );
      }
    }
    // The vectors really decided: BM25 would have chosen other docs (or another order) somewhere.
    expect(differsFromBm25).toBeGreaterThan(0);
    // Every doc and every query was embedded, each once.
    const embedded = embeddings.received.filter((r) => r.body.model === embeddingModel).flatMap((r) => r.inputs);
    expect(new Set(embedded)).toEqual(
      new Set([...docs.map(indexText), ...problems.map((p) => ragQuery({ prompt: p.prompt } as SweepProblem))]),
    );
    expect(embedded).toHaveLength(new Set(embedded).size);

    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!);
    // The script's first sample is wrong and its second right.
    expect(results.cells[0].passAtK['pass@1']).toBeCloseTo(0.5, 12);

    // Another sweep over the same library and tasks: every vector is in the S3 cache.
    const before = embeddings.received.length;
    const again = path.join(dir, 'again.yaml');
    writeSweep(again, `dense-again-${uniqueSuffix()}`, embeddingModel);
    const rerun = await runTs('scripts/start-sweep.ts', ['--config', again, '--no-progress'], env);
    expect(rerun.code, rerun.output).toBe(0);
    expect(embeddings.received.slice(before)).toEqual([]);
  });
});
