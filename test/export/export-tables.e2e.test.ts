/**
 * Results as tables: two real sweeps (real Temporal, SeaweedFS and sandbox; a scripted server whose
 * two models pass at known, different rates, one of them priced) exported by
 * scripts/export-tables.ts as a process, and the two Parquet files read back by DuckDB in the tests'
 * Python (.tools/test-python): every sample's row, its scores, tokens and cost, each cell's row, the
 * schema's types and version; a sweep that cannot be exported is named and nothing is written.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CELL_COLUMNS, SAMPLE_COLUMNS, TABLES_SCHEMA_VERSION } from '../../domain/export/tables.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { runTs } from '../support/processes.js';
import { startScriptedLlmServer, type Reply, type ScriptedLlmServer, type ScriptedRequest } from '../support/scripted-llm-server.js';
import { HUMANEVAL_DATASETS_YAML, humanEvalProblems, identify, scriptedModelYaml, SWEEP_SEED } from '../sweep/support.js';

const { env } = testConfig();
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-export-'));
const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const TASKS = 3;
const SAMPLES = 2;
const problems = humanEvalProblems(TASKS);
const sweeps = [`export-a-${uniqueSuffix()}`, `export-b-${uniqueSuffix()}`];

/** strong answers every sample right; weak gets only task 0's first sample right. */
function answers(req: ScriptedRequest): Reply {
  const { problem, sample } = identify(req, problems);
  const right = req.body.model !== 'scripted-weak' || (problem.index === 0 && sample === 0);
  const body = right ? problem.canonical_solution : '    return None\n';
  return { content: `\`\`\`python\n${problem.prompt}${body}\`\`\`\n` };
}

let server: ScriptedLlmServer;

function sweepYaml(id: string, models: string[]): string {
  const priced = (m: string) =>
    scriptedModelYaml(m, server.url, `scripted-${m}`, 'chat') +
    (m === 'strong' ? '    price: { input_per_mtok: 2, output_per_mtok: 8, currency: USD }\n' : '');
  return `id: ${id}
${HUMANEVAL_DATASETS_YAML}models:
${models.map(priced).join('')}methods: [direct]
temperatures: [0.2]
n_samples: ${SAMPLES}
k: [1]
limit: ${TASKS}
timeout_s: 5
seed: ${SWEEP_SEED}
`;
}

/** DuckDB over the files: each query's rows as JSON objects. */
function duckdb(queries: Record<string, string>): Record<string, Array<Record<string, unknown>>> {
  const script = `
import duckdb, json, sys
queries = json.load(sys.stdin)
out = {}
for name, sql in queries.items():
    rel = duckdb.sql(sql)
    out[name] = [dict(zip(rel.columns, [v if not isinstance(v, (bytes,)) else v.decode() for v in row])) for row in rel.fetchall()]
json.dump(out, sys.stdout, default=str)
`;
  return JSON.parse(execFileSync(PYTHON, ['-c', script], { input: JSON.stringify(queries), cwd: dir }).toString()) as Record<
    string,
    Array<Record<string, unknown>>
  >;
}

beforeAll(async () => {
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'inherit' });
  server = await startScriptedLlmServer(answers);
  for (const [i, id] of sweeps.entries()) {
    const file = path.join(dir, `${id}.yaml`);
    writeFileSync(file, sweepYaml(id, i === 0 ? ['strong', 'weak'] : ['weak']));
    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
    if (run.code !== 0) throw new Error(`sweep ${id} failed:\n${run.output}`);
  }
}, 600_000);

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('export-tables', () => {
  it('writes a row per sample and per cell of every sweep named, read back by DuckDB with the documented columns', async () => {
    const out = path.join(dir, 'tables');
    const run = await runTs('scripts/export-tables.ts', [...sweeps, '--out', out], env);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain(`${3 * TASKS * SAMPLES} samples -> ${path.join(out, 'samples.parquet')}`);
    const samples = path.join(out, 'samples.parquet');
    const cells = path.join(out, 'cells.parquet');
    const got = duckdb({
      sampleColumns: `DESCRIBE SELECT * FROM '${samples}'`,
      cellColumns: `DESCRIBE SELECT * FROM '${cells}'`,
      perCell:
        `SELECT sweep, model, count(*) AS n, sum(passed::INT) AS passed, count(DISTINCT task_id) AS tasks, ` +
        `sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens, sum(cost) AS cost, ` +
        `min(currency) AS currency, min(status) AS some_status FROM '${samples}' GROUP BY ALL ORDER BY sweep, model`,
      cells: `SELECT sweep, model, n_samples, tasks, samples, pass_at_1, pass_at_k, prompt_tokens, completion_tokens, cost FROM '${cells}' ORDER BY sweep, model`,
      metadata: `SELECT decode(key) AS key, decode(value) AS value FROM parquet_kv_metadata('${samples}')`,
      first: `SELECT task_id, task_index, sample_index, passed, solution FROM '${samples}' WHERE model = 'weak' AND sweep = '${sweeps[0]}' ORDER BY task_index, sample_index LIMIT 2`,
    });
    // The schema as documented: every column, in order, with its type.
    const duckType = { STRING: 'VARCHAR', JSON: 'VARCHAR', INT64: 'BIGINT', DOUBLE: 'DOUBLE', BOOLEAN: 'BOOLEAN' };
    expect(got.sampleColumns!.map((c) => [c.column_name, c.column_type])).toEqual(SAMPLE_COLUMNS.map((c) => [c.name, duckType[c.type]]));
    expect(got.cellColumns!.map((c) => [c.column_name, c.column_type])).toEqual(CELL_COLUMNS.map((c) => [c.name, duckType[c.type]]));
    expect(got.metadata).toContainEqual({ key: 'explora.tables_schema_version', value: String(TABLES_SCHEMA_VERSION) });

    // Every sample of each cell, its passes as the scripted models imply; cost only where priced.
    const per = got.perCell!;
    expect(per.map((r) => [r.sweep, r.model, Number(r.n), Number(r.passed), Number(r.tasks)])).toEqual([
      [sweeps[0], 'strong', TASKS * SAMPLES, TASKS * SAMPLES, TASKS],
      [sweeps[0], 'weak', TASKS * SAMPLES, 1, TASKS],
      [sweeps[1], 'weak', TASKS * SAMPLES, 1, TASKS],
    ]);
    const strong = per[0]!;
    expect(Number(strong.prompt_tokens)).toBeGreaterThan(0);
    expect(Number(strong.cost)).toBeCloseTo((Number(strong.prompt_tokens) * 2 + Number(strong.completion_tokens) * 8) / 1e6, 12);
    expect(strong.currency).toBe('USD');
    expect(per[1]!.cost).toBeNull();
    expect(got.first!.map((r) => [r.task_index, r.sample_index, r.passed])).toEqual([
      [0, 0, true],
      [0, 1, false],
    ]);
    expect(String(got.first![0]!.solution)).toContain(problems[0]!.canonical_solution.trim());

    // A row per cell: its counts, pass@1 and tokens as the samples' rows sum them.
    const cellRows = got.cells!;
    expect(cellRows.map((r) => [r.sweep, r.model, Number(r.n_samples), Number(r.tasks), Number(r.samples)])).toEqual([
      [sweeps[0], 'strong', SAMPLES, TASKS, TASKS * SAMPLES],
      [sweeps[0], 'weak', SAMPLES, TASKS, TASKS * SAMPLES],
      [sweeps[1], 'weak', SAMPLES, TASKS, TASKS * SAMPLES],
    ]);
    expect(cellRows[0]!.pass_at_1).toBe(1);
    expect(cellRows[1]!.pass_at_1).toBeCloseTo(1 / 2 / TASKS, 12);
    expect(JSON.parse(String(cellRows[1]!.pass_at_k))).toEqual({ 'pass@1': cellRows[1]!.pass_at_1 });
    cellRows.forEach((c, i) => {
      expect(Number(c.prompt_tokens)).toBe(Number(per[i]!.prompt_tokens));
      expect(Number(c.completion_tokens)).toBe(Number(per[i]!.completion_tokens));
    });
    expect(Number(cellRows[0]!.cost)).toBeCloseTo(Number(strong.cost), 12);
  }, 300_000);

  it('a sweep that has not finished (or does not exist) is named, and nothing is written', async () => {
    const out = path.join(dir, 'refused');
    const run = await runTs('scripts/export-tables.ts', [sweeps[0]!, 'no-such-sweep', '--out', out], env);
    expect(run.code).toBe(1);
    expect(run.output).toMatch(/export-tables: sweep no-such-sweep: s3:\/\/.*\/sweeps\/no-such-sweep\/results\.json does not exist/);
    expect(existsSync(path.join(out, 'samples.parquet'))).toBe(false);
    expect(existsSync(path.join(out, 'cells.parquet'))).toBe(false);
  }, 120_000);
});
