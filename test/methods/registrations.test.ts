/**
 * Running sweeps replay by workflow type and activity name: the split of the methods into
 * methods/<kind>/ must register exactly the names it registered before, each once.
 */
import { describe, expect, it } from 'vitest';
import { defineMethodActivities, type MethodActivityDeps } from '../../activities/llm/methodKit.js';
import { llmQueueActivities, METHOD_ACTIVITIES, storageQueueActivities } from '../../workers/methodActivities.js';
import * as bundle from '../../workflows/index.js';
import { methodStepFor } from '../../workflows/methodSteps.js';
import { findMethod, METHOD_NAMES, registerMethodKind } from '../../domain/methods/registry.js';
import { ragMethod } from '../../methods/rag/definition.js';

// The factories only close over their dependencies; nothing is called here.
const deps = { bucket: {}, llm: {}, embeddings: {} } as unknown as MethodActivityDeps;

describe('method registrations', () => {
  it('register the LLM-queue and storage-queue activity names of before the split', () => {
    expect(Object.keys(llmQueueActivities(METHOD_ACTIVITIES, deps)).sort()).toEqual(
      [
        'generateDirect',
        // Batch mode (issue 44): direct's and rag's requests as request sets.
        'prepareDirectBatch',
        'prepareRagBatch',
        'generateRag',
        'planTask',
        'recommendApis',
        'exploreCandidate',
        'exploreCandidates',
        'debugCandidate',
        'generateFinal',
        'generateCapir',
        'repairFeedback',
        'repairFromFeedback',
        'repairSample',
      ].sort(),
    );
    expect(Object.keys(storageQueueActivities(METHOD_ACTIVITIES, deps.bucket)).sort()).toEqual([
      'writeCapirTrace',
      'writeExplorationTrace',
      'writeRepairTrace',
    ]);
  });

  it('export the workflow types of before the split, and the spend ledger, from the bundle entry', () => {
    const types = Object.entries(bundle)
      .filter(([, v]) => typeof v === 'function')
      .map(([k]) => k);
    expect(types.sort()).toEqual(
      [
        'generateDatasetWorkflow',
        'sweepWorkflow',
        'sweepCellWorkflow',
        'sweepShardWorkflow',
        'exploracoderTaskWorkflow',
        'selfRepairTaskWorkflow',
        'capirTaskWorkflow',
        // Budgeted sweeps' spend ledger (2026-11-26): its type name is in their histories too.
        'spendLedgerWorkflow',
        // Batch mode (issue 44): one request set's provider batches.
        'batchAnswersWorkflow',
        // and a multi-round method's cell's round collector.
        'batchRoundsWorkflow',
      ].sort(),
    );
  });

  it('give every registered method name a shard step, and none to unknown names', () => {
    for (const name of METHOD_NAMES) expect(methodStepFor(name), name).toBeTypeOf('function');
    expect(methodStepFor('toString')).toBeUndefined();
    expect(methodStepFor('rag-fusion')).toBeUndefined();
  });

  it('refuse two methods registering one activity name', () => {
    const twin = defineMethodActivities({ kind: 'twin', llm: () => ({ generateRag: async () => null }) });
    expect(() => llmQueueActivities([...METHOD_ACTIVITIES, twin], deps)).toThrow(
      'activity generateRag is registered by both method rag and method twin',
    );
  });

  it('refuse a registered kind whose kind or names are taken, and change nothing then', () => {
    expect(() => registerMethodKind(ragMethod)).toThrow('method kind rag is registered twice');
    expect(() =>
      registerMethodKind({ ...ragMethod, kind: 'rag-again', names: { fresh: ragMethod.names.rag, rag: ragMethod.names.rag } }),
    ).toThrow('method rag is registered by both rag and rag-again');
    expect(findMethod('fresh')).toBeUndefined();
  });
});
