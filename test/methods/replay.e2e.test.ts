/**
 * Running sweeps must carry on across this refactoring: histories the method workflows recorded
 * before they moved into methods/<kind>/ (commit 9d2f934; sweeps of methods.e2e.test.ts, each
 * fetched with the client's fetchHistory() and stored as the encoded History protobuf, gzipped) replay against today's workflow bundle with the
 * same commands — same workflow types, activity names, child ids and patches. A change of what a
 * workflow does without `patched()` fails here with Temporal's nondeterminism error. The bundle
 * is the one the workers run (kept per version of the code, infra/temporal/workflowBundle.ts), not
 * one webpack builds again for this file alone (~20 s of CPU).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { installRuntime } from '../../workers/runWorkers.js';
import { workflowBundle } from '../support/workflow-env.js';

const dir = new URL('./replay-histories/', import.meta.url);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.history.gz'))
  .sort();

describe('method workflows recorded before the move to methods/', () => {
  it('replay against the workflow bundle (task chains of ExploraCoder*, CAPIR, self-repair; shards of direct, rag, ExploraCoder)', async () => {
    installRuntime('WARN');
    expect(files).toHaveLength(6);
    const histories = files.map((f) => ({
      workflowId: f,
      history: proto.temporal.api.history.v1.History.decode(gunzipSync(readFileSync(new URL(f, dir)))),
    }));
    const failures: string[] = [];
    for await (const result of Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, histories)) {
      if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
  }, 180_000);
});
