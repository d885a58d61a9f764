/**
 * Task selection through a real sweep: `tasks:` picks ids from each dataset (MBPP's integers and
 * HumanEval's names), `limit_start` skips the first selected ones; the cells hold exactly those
 * tasks. A selection that names an unknown id, or leaves a dataset empty, is refused before
 * anything starts, naming it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepResultsKey } from '../../domain/sweep/keys.js';
import { getText } from '../../infra/s3.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { runTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { HUMANEVAL } from './support.js';

const MBPP = path.resolve(HUMANEVAL, '../../mbpp/mbpp.jsonl');
const { config, env } = testConfig();
const bucket = testBucket(config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-selection-'));
let server: ScriptedLlmServer;

beforeAll(async () => {
  server = await startScriptedLlmServer(() => ({ content: '    return None\n' }));
});
afterAll(async () => {
  await server.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

function write(id: string, selection: string): string {
  const file = path.join(dir, `${id}.yaml`);
  writeFileSync(
    file,
    `id: ${id}
datasets:
  - name: he
    family: humaneval
    path: ${HUMANEVAL}
  - name: mbpp
    family: mbpp
    path: ${MBPP}
models:
  - id: base
    base_url: ${server.url}
    model: scripted
    api: completions
methods: [direct]
temperatures: [0]
n_samples: 1
k: [1]
${selection}
`,
  );
  return file;
}

describe('tasks and limit_start', () => {
  it('a sweep runs exactly the selected tasks of each dataset', async () => {
    const id = `select-${uniqueSuffix()}`;
    const file = write(id, 'tasks: [HumanEval/2, HumanEval/5, HumanEval/7, 13, 15]\nlimit_start: 1');
    const dry = await runTs('scripts/start-sweep.ts', ['--config', file, '--dry-run', '--no-cache-forecast'], env);
    expect(dry.code, dry.output).toBe(0);
    expect(dry.output).toMatch(/tasks: 5 listed ids, limit_start 1, limit none/);
    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
    expect(run.code, run.output).toBe(0);
    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!);
    const taskIds: Record<string, string[]> = {};
    for (const cell of results.cells) {
      const detail = JSON.parse((await getText(bucket, cell.resultsKey))!);
      taskIds[cell.cell.dataset] = (detail.per_task as Array<{ task_id: string }>).map((t) => t.task_id);
    }
    expect(taskIds).toEqual({ he: ['HumanEval/5', 'HumanEval/7'], mbpp: ['15'] });
  });

  it('an unknown id, a dataset left empty, a start past the end: refused before anything starts, named', async () => {
    const cases: Array<[string, RegExp]> = [
      ['tasks: [HumanEval/2, 13, HumanEval/999]', /tasks: "HumanEval\/999" in no dataset of the sweep/],
      ['tasks: [HumanEval/2]', /dataset mbpp: tasks selects none of its tasks/],
      ['tasks: [HumanEval/2, 13]\nlimit_start: 1', /limit_start: 1 is past the last of the 1 selected tasks of dataset he/],
    ];
    const sent = server.requests().length;
    for (const [selection, message] of cases) {
      const id = `refused-${uniqueSuffix()}`;
      const res = await runTs('scripts/start-sweep.ts', ['--config', write(id, selection), '--no-progress'], env);
      expect(res.code, res.output).not.toBe(0);
      expect(res.output).toMatch(message);
      expect(await getText(bucket, sweepResultsKey(id))).toBeNull();
      expect(server.requests().length).toBe(sent);
    }
  });
});
