/**
 * MBPP end to end: the dataset's own solutions through the sandbox (every one of both files passes,
 * and a wrong one is reported by its task id), and a sweep over both files against a scripted
 * OpenAI-compatible server, a completions model and a chat model, whose pass@1 is what the script
 * implies and whose requests carry MBPP's stop words.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAMILIES } from '../../domain/families/registry.js';
import { MBPP_BIGCODE_STOP_WORDS, type MbppEntry } from '../../domain/families/mbpp/index.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { SandboxPool } from '../../infra/sandbox/pool.js';
import { checkReferences } from '../../infra/sandbox/referenceCheck.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { expectCellFilesAsStored, outputJson, scriptedModelsYaml, sweepWithOutputDir } from '../support/sweep-output.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/reference/mbpp');
const FILES = { full: path.join(DIR, 'mbpp.jsonl'), sanitized: path.join(DIR, 'sanitized-mbpp.json') };

function problemsOf(file: string, extra: Partial<MbppEntry> = {}): SweepProblem[] {
  const entry: MbppEntry = { name: 'mbpp', family: 'mbpp', path: file, prompt: 'bigcode', ...extra };
  return FAMILIES.mbpp.load({ entry, texts: { rows: readFileSync(file, 'utf8') }, sources: { rows: file } }).problems;
}

describe("MBPP's reference solutions, run as samples are", () => {
  const pool = new SandboxPool();
  afterAll(() => pool.close());

  it('every reference of both files passes its tests (a generous time limit: task 123 needs ~4 s)', async () => {
    for (const [file, extra] of [
      [FILES.full, { split: 'all' as const }],
      [FILES.sanitized, {}],
    ] as const) {
      const problems = problemsOf(file, extra);
      const check = await checkReferences(problems, undefined, pool, { timeoutS: 30 });
      expect(check.failures, file).toEqual([]);
      expect(check.checked).toBe(problems.length);
      expect(check.passed).toBe(problems.length);
    }
  });

  it('a reference that fails is named by its task id, with why', async () => {
    const problems = problemsOf(FILES.full).slice(0, 3);
    problems[1] = { ...problems[1]!, canonical_solution: `def ${problems[1]!.entry_point}(*args):\n    return None\n` };
    const check = await checkReferences(problems, undefined, pool, { timeoutS: 10 });
    expect(check.passed).toBe(2);
    expect(check.failures).toEqual([
      { task_id: problems[1]!.task_id, status: 'failed', message: expect.stringMatching(/^AssertionError/) },
    ]);
  });
});

describe('a sweep over both MBPP files, against a scripted server', () => {
  const { config, env } = testConfig();
  const bucket = testBucket(config);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-mbpp-'));
  const LIMIT = 6;
  // The code for each prompt; tasks with an odd id are answered wrongly.
  const answers = new Map<string, { code: string; right: boolean }>();
  for (const file of [FILES.full, FILES.sanitized]) {
    for (const p of problemsOf(file).slice(0, LIMIT)) {
      const right = Number(p.task_id) % 2 === 0;
      answers.set(p.prompt, { code: right ? p.canonical_solution! : `def ${p.entry_point}(*args):\n    return None\n`, right });
    }
  }
  let server: ScriptedLlmServer;
  const stops: unknown[] = [];

  beforeAll(async () => {
    server = await startScriptedLlmServer((req) => {
      if (req.api === 'completions') {
        stops.push(req.body.stop);
        const answer = answers.get(String(req.body.prompt));
        return { content: answer ? `${answer.code}\nassert False, "after a stop word"\n` : 'pass\n' };
      }
      const user = (req.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'user')!.content;
      const answer = [...answers.entries()].find(([prompt]) => user.includes(prompt))?.[1];
      return { content: answer ? `Here it is:\n\`\`\`python\n${answer.code}\n\`\`\`\n` : 'no idea' };
    });
  });
  afterAll(async () => {
    await server.close();
    bucket.s3.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('pass@1 is the share of tasks answered right, for both files and both APIs; completions stop at MBPP stop words', async () => {
    const id = `mbpp-${uniqueSuffix()}`;
    const { output, outDir, results } = await sweepWithOutputDir({
      dir,
      id,
      env,
      bucket,
      flags: ['--check-references'],
      yaml: `id: ${id}
datasets:
  - name: mbpp
    family: mbpp
    path: ${FILES.full}
  - name: mbpp-sanitized
    family: mbpp
    path: ${FILES.sanitized}
${scriptedModelsYaml(server.url)}methods: [direct]
temperatures: [0]
n_samples: 1
k: [1]
limit: ${LIMIT}
timeout_s: 10
`,
    });
    // The references of the selected tasks ran first, and every one passed.
    expect(output).toContain(`mbpp: ${LIMIT} of ${LIMIT} references pass`);
    expect(output).toContain(`mbpp-sanitized: ${LIMIT} of ${LIMIT} references pass`);
    // --output-dir: each cell's four files on disk, byte for byte those in S3.
    for (const cell of results.cells) {
      const cellId = String(cell.cell.cell);
      await expectCellFilesAsStored(bucket, id, outDir, cellId);
      // bigcode's metric file beside them: the cell's pass@k under its dataset's name, and its settings.
      const metrics = outputJson(outDir, cellId, 'evaluation_results.json') as Record<string, Record<string, unknown>>;
      expect(Object.keys(metrics)).toEqual([cell.cell.dataset, 'config']);
      expect(metrics[cell.cell.dataset as string]).toEqual(cell.passAtK);
      expect(metrics.config).toMatchObject({
        model: cell.cell.model,
        tasks: cell.cell.dataset,
        temperature: 0,
        n_samples: 1,
        method: 'direct',
      });
      expect(existsSync(path.join(outDir, cellId, 'eval_results.json'))).toBe(false); // evalplus's file is for evalplus cells
    }
    expect(results.cells).toHaveLength(4);
    for (const cell of results.cells) {
      const dataset = cell.cell.dataset as string;
      const expected = problemsOf(dataset === 'mbpp' ? FILES.full : FILES.sanitized).slice(0, LIMIT);
      const right = expected.filter((p) => answers.get(p.prompt)!.right).length;
      expect(cell.tasks).toBe(LIMIT);
      expect(cell.passAtK['pass@1']).toBeCloseTo(right / LIMIT, 10);
      expect(right).toBeGreaterThan(0);
      expect(right).toBeLessThan(LIMIT);
    }
    expect(stops.length).toBe(2 * LIMIT);
    for (const s of stops) expect(s).toEqual(MBPP_BIGCODE_STOP_WORDS.slice(0, 4));
  });
});
