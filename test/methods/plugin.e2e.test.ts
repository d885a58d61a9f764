/**
 * A method is its folder plus its registration: `second-look` (test/methods/plugin/, defined only
 * here) runs end to end through a real sweep, registered the way the tree's methods are — its
 * definition in the method registry (registerMethodKind), its activities on the worker
 * (createWorkers' `methods`, the list workers/methodActivities.ts builds from methods/activities.ts),
 * its workflows in the bundle (plugin/bundle.ts re-exports workflows/index.ts and adds its step).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerMethodKind } from '../../domain/methods/registry.js';
import { resolvePbeParams } from '../../domain/pbe/params.js';
import { ExplorationTraceSchema } from '../../domain/report/trace.js';
import { loadSweepConfig } from '../../domain/sweep/config.js';
import { cellTraceKey, sweepResultsKey, sweepWorkflowId } from '../../domain/sweep/keys.js';
import { getText } from '../../infra/s3.js';
import { buildSweepInput, queuesOf, writeSweepRecord } from '../../scripts/lib/sweep-input.js';
import { METHOD_ACTIVITIES } from '../../workers/methodActivities.js';
import { createWorkers, installRuntime } from '../../workers/runWorkers.js';
import type { sweepWorkflow } from '../../workflows/sweep.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type ScriptedLlmServer, type ScriptedRequest } from '../support/scripted-llm-server.js';
import { connectClient } from '../support/temporal.js';
import { pbeProblems } from '../sweep/support.js';
import { secondLookActivities } from './plugin/activities.js';
import { LOOK_AGAIN, secondLookMethod } from './plugin/definition.js';
import { identifyTask, writeScriptedSweep } from './support.js';

const { config } = testConfig();
const bucket = testBucket(config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-plugin-e2e-'));
const PBE = resolvePbeParams({ count: 2, seed: 61 });
const problems = pbeProblems(PBE, 'plain');
const N = 2;
let server: ScriptedLlmServer;

/** First looks are wrong (they return the input with a '#'), second looks canonical. */
function script(req: ScriptedRequest) {
  const messages = req.body.messages as Array<{ role: string; content: string }>;
  const problem = identifyTask(messages.map((m) => m.content).join('\n'), problems);
  if (messages[messages.length - 1]!.content === LOOK_AGAIN) return { content: `\`\`\`python\n${problem.canonical_solution}\`\`\`\n` };
  const lines = problem.canonical_solution.split('\n');
  const def = lines.findIndex((l) => l.startsWith('def '));
  return { content: `\`\`\`python\n${lines.slice(0, def + 1).join('\n')}\n    return s + '#'\n\`\`\`\n` };
}

beforeAll(async () => {
  installRuntime('WARN');
  server = await startScriptedLlmServer(script);
  // The config loader (this process) and the report activity (this process's worker) know it now.
  registerMethodKind(secondLookMethod);
});
afterAll(async () => {
  await server.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe('a method defined outside the tree', () => {
  it('runs through a real sweep: its workflow, its activities and its trace writer', async () => {
    const id = `plugin-${uniqueSuffix()}`;
    const file = path.join(dir, 'sweep.yaml');
    writeScriptedSweep(file, {
      id,
      datasets: [{ name: 'plain', pbe: { count: PBE.count, seed: PBE.seed } }],
      baseUrl: server.url,
      modelOptions: { concurrency: 4 },
      methods: ['second-look'],
      nSamples: N,
      k: [1],
    });
    const sweep = loadSweepConfig(readFileSync(file, 'utf8'), file);
    const input = await buildSweepInput(sweep, bucket, {
      sweepId: id,
      configFile: file,
      mode: 'full',
      generations: {},
      queues: queuesOf(config),
    });
    await writeSweepRecord(bucket, id, sweep, { mode: 'full' });

    const { workers, close } = await createWorkers(config, {
      roles: ['workflows', 'storage', 'sandbox', 'llm'],
      llmModels: [{ id: 'chat', concurrency: 4 }],
      methods: [...METHOD_ACTIVITIES, secondLookActivities],
      workflowsPath: fileURLToPath(new URL('./plugin/bundle.ts', import.meta.url)),
    });
    const running = Promise.all(workers.map((w) => w.run()));
    const { client, close: disconnect } = await connectClient(config);
    try {
      await client.workflow.start<typeof sweepWorkflow>('sweepWorkflow', {
        taskQueue: config.taskQueues.workflows,
        workflowId: sweepWorkflowId(id),
        args: [input],
      });
      await client.workflow.getHandle<typeof sweepWorkflow>(sweepWorkflowId(id)).result();
    } finally {
      await disconnect();
      for (const w of workers) w.shutdown();
      await running;
      await close();
    }

    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!) as {
      cells: Array<{
        cell: { cell: string; method: string };
        tasks: number;
        passAtK: Record<string, number>;
        cost: { calls: number; sandboxRuns: number };
      }>;
    };
    expect(results.cells).toHaveLength(1);
    const [cell] = results.cells;
    expect(cell!.cell.method).toBe('second-look');
    expect(cell!.tasks).toBe(PBE.count);
    // Every first look is wrong and every second canonical: only the second looks were run.
    expect(cell!.passAtK['pass@1']).toBe(1);
    expect(cell!.cost.calls).toBe(2 * PBE.count * N);
    expect(cell!.cost.sandboxRuns).toBe(PBE.count * N);

    const mine = server.requests().filter((r) => r.body.model === 'scripted');
    expect(mine).toHaveLength(2 * PBE.count * N);
    // Each second look carries its sample's first answer.
    for (const r of mine.filter((r) => (r.body.messages as Array<{ content: string }>).at(-1)!.content === LOOK_AGAIN)) {
      expect((r.body.messages as Array<{ role: string; content: string }>)[2]!.content).toContain("return s + '#'");
    }

    // The method's own trace writer stored each task's trace where the cell's traces go.
    const cellId = input.cells[0]!.id;
    for (const p of problems) {
      const trace = ExplorationTraceSchema.parse(JSON.parse((await getText(bucket, cellTraceKey(id, cellId, p.index)))!));
      expect(trace.method).toBe('second-look');
      expect(trace.task_id).toBe(p.task_id);
      expect(trace.finals!.map((f) => f.code.trim())).toEqual(Array.from({ length: N }, () => p.canonical_solution.trim()));
    }
  });
});
