/**
 * A model's `sanitize: evalplus` through a whole sweep (Temporal, S3, the sandbox) against the
 * scripted server: the same chat answers (the function, then an example run that fails) score 0
 * read by the fenced-block rule and 1 read by evalplus's sanitizer, which keeps only the entry
 * point and what it uses. A dataset in another language than the sanitizer's is refused before
 * anything is sent.
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
import { HUMANEVAL, humanEvalProblems, identify, oneSampleDirectYaml, scriptedModelYaml } from './support.js';
import { addRow, jsonl } from '../support/multiple-rows.js';

const F = '```';
const TASKS = 3;
const { config, env } = testConfig();
const bucket = testBucket(config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-sanitize-'));
const problems = humanEvalProblems(TASKS);
let server: ScriptedLlmServer;

beforeAll(async () => {
  server = await startScriptedLlmServer((req) => {
    const { problem } = identify(req, problems);
    return {
      content: `Here is the function:\n\n${F}python\n${problem.prompt}${problem.canonical_solution}\n\nassert False, "an example run"\n${F}\n\nThe assert shows a call.`,
    };
  });
});
afterAll(async () => {
  await server.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe('sanitize: evalplus in a sweep', () => {
  it("scores the model's chat answers as evalplus's sanitizer reads them", async () => {
    const id = `sanitize-${uniqueSuffix()}`;
    const file = path.join(dir, `${id}.yaml`);
    writeFileSync(
      file,
      `id: ${id}\ndatasets:\n  - name: he\n    family: humaneval\n    path: ${HUMANEVAL}\nmodels:\n` +
        scriptedModelYaml('plain', server.url, 'scripted', 'chat') +
        `${scriptedModelYaml('sane', server.url, 'scripted', 'chat')}    sanitize: evalplus\n` +
        oneSampleDirectYaml(TASKS),
    );
    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
    expect(run.code, run.output).toBe(0);
    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!) as {
      cells: Array<{ cell: { model: string }; tasks: number; passAtK: Record<string, number> }>;
    };
    const byModel = new Map(results.cells.map((c) => [c.cell.model, c]));
    expect(byModel.get('plain')!.tasks).toBe(TASKS);
    expect(byModel.get('plain')!.passAtK['pass@1']).toBe(0);
    expect(byModel.get('sane')!.tasks).toBe(TASKS);
    expect(byModel.get('sane')!.passAtK['pass@1']).toBe(1);
  });

  it('refuses a dataset in another language, naming the model and the dataset, before sending anything', async () => {
    const id = `sanitize-js-${uniqueSuffix()}`;
    writeFileSync(path.join(dir, 'humaneval-js.jsonl'), jsonl([addRow('js')]));
    const file = path.join(dir, `${id}.yaml`);
    writeFileSync(
      file,
      `id: ${id}\ndatasets:\n  - name: he\n    family: humaneval\n    path: ${HUMANEVAL}\n  - name: js\n    family: multipl-e\n    path: humaneval-js.jsonl\n    language: js\nmodels:\n` +
        `${scriptedModelYaml('sane', server.url, 'scripted', 'chat')}    sanitize: evalplus\n` +
        oneSampleDirectYaml(1),
    );
    const sent = server.requests().length;
    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
    expect(run.code, run.output).not.toBe(0);
    expect(run.output).toContain('models[0].sanitize (sane): evalplus reads python answers, but datasets[js] has js problems');
    expect(server.requests().length).toBe(sent);
  });
});
