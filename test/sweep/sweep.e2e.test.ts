import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getText } from '../../infra/s3.js';
import { estimateAtK } from '../../domain/metrics/passAtK.js';
import { cellFileKey, sweepResultsKey } from '../../domain/sweep/keys.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { runTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import {
  expectedCounts,
  humanEvalProblems,
  HUMANEVAL,
  pbeProblems,
  scriptedAnswers,
  scriptedSweepYaml,
  SMALL_PBE,
  SWEEP_SEED,
  type Fault,
} from './support.js';

// Each case runs its commands with task queues of its own (testConfig()'s env): the cases run at
// once, and one case's in-process workers never take another's tasks.
const { config } = testConfig();
const bucket = testBucket(config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-sweep-'));
const N = 4;
// limit 4: the first four HumanEval tests compare with ==, so a wrong answer fails an assertion.
const LIMIT = 4;
const problems = [...humanEvalProblems(LIMIT), ...pbeProblems(SMALL_PBE).slice(0, LIMIT)];
const faults = new Map<string, Fault>([
  ['humaneval#0#1', '429-once'],
  ['humaneval#1#2', '500-once'],
  ['pbe#1#3', 'malformed-once'],
  ['pbe#2#0', 'slow'],
  ['pbe#3#1', '400'],
]);
let server: ScriptedLlmServer;

const RUN = uniqueSuffix();
/**
 * Model names of this run's own: the LLM cache keys a request by its endpoint's URL and body, so an
 * earlier run whose scripted server had the same port would otherwise answer from the cache (and the
 * cases count the requests that reach their server).
 */
const ownModels = (yaml: string) => yaml.replaceAll('    model: scripted-', `    model: scripted-${RUN}-`);

/** `<dir>/<name>.yaml`: the scripted sweep of id `id` on `url` (the file's server unless told). */
function writeConfig(id: string, { url = server.url, name = id }: { url?: string; name?: string } = {}): string {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `id: ${id}
${ownModels(scriptedSweepYaml(url, N, LIMIT))}`,
  );
  return file;
}

/** Settles when the results case is over (whichever way): the changed-config case resumes its sweep. */
let resultsCaseOver: () => void = () => undefined;
const resultsCase = new Promise<void>((resolve) => (resultsCaseOver = resolve));

beforeAll(async () => {
  server = await startScriptedLlmServer(scriptedAnswers(problems, faults));
});
afterAll(async () => {
  await server.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** The sweep id start-sweep announces: `sweep <id>: <Web UI link>`. */
function sweepIdIn(output: string): string {
  const m = /^sweep (\S+): http/m.exec(output);
  if (!m) throw new Error(`no sweep id in the output:\n${output}`);
  return m[1]!;
}

// The cases run at once (their sweeps mostly wait: on the scripted faults' retries, the sandbox,
// their commands' start-ups), each with its own ids, queues and, where it counts requests, server.
describe.concurrent('a sweep end to end on the real stack, against a scripted OpenAI-compatible server', () => {
  const id = `e2e-${uniqueSuffix()}`;

  // First: the longest chain of commands.
  it('--generation-only saves samples without running them; --evaluate-only runs loaded generations', async () => {
    // A server of its own (with the same faults), whose requests only this case's sweeps send.
    const own = await startScriptedLlmServer(scriptedAnswers(problems, faults));
    try {
      await generateThenEvaluate(own);
    } finally {
      await own.close();
    }
  });
  async function generateThenEvaluate(server: ScriptedLlmServer) {
    const { env } = testConfig();
    const genId = `gen-${uniqueSuffix()}`;
    const file = writeConfig(genId, { url: server.url });
    const gen = await runTs('scripts/start-sweep.ts', ['--config', file, '--generation-only', '--no-progress'], env);
    expect(gen.code, gen.output).toBe(0);
    expect(sweepIdIn(gen.output)).toBe(genId);
    const genResults = JSON.parse((await getText(bucket, sweepResultsKey(genId)))!);
    for (const c of genResults.cells) {
      expect(c.cost.sandboxRuns).toBe(0);
      expect(c.statusCounts.not_executed).toBeGreaterThan(0);
      // Nothing executed, nothing scored (not a pass@1 of 0).
      expect(c.tasks).toBe(0);
      expect(c.passAtK).toEqual({});
      expect(c.droppedK.join()).toMatch(/generation-only/);
    }
    // The full run of the same sweep executes what was saved, asking the model nothing again.
    // Meanwhile (on queues of its own), the chat model's saved pbe generations are evaluated, as
    // bigcode's --load_generations_path would: no model is asked anything either.
    const saved = await getText(bucket, cellFileKey(genId, 'pbe.chatty.direct.t0.2', 'generations.json'));
    const genFile = path.join(dir, 'generations.json');
    writeFileSync(genFile, saved!);
    const evalId = `eval-${uniqueSuffix()}`;
    const evalConfig = path.join(dir, `${evalId}.yaml`);
    writeFileSync(
      evalConfig,
      readFileSync(file, 'utf8')
        .replace(`id: ${genId}`, `id: ${evalId}`)
        .replace(/ {2}- name: humaneval\n {4}family: humaneval\n {4}path: .*\n/, ''),
    );
    const asked = server.requests().length;
    const [full, ev] = await Promise.all([
      runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], testConfig().env),
      runTs('scripts/start-sweep.ts', ['--config', evalConfig, '--evaluate-only', '--load-generations', genFile, '--no-progress'], env),
    ]);
    expect(full.code, full.output).toBe(0);
    expect(ev.code, ev.output).toBe(0);
    expect(server.requests().length).toBe(asked);
    for (const c of JSON.parse((await getText(bucket, sweepResultsKey(genId)))!).cells) {
      expect(c.statusCounts.not_executed ?? 0).toBe(0);
      expect(c.tasks).toBe(LIMIT);
    }
    const evalSweep = sweepIdIn(ev.output);
    expect(evalSweep).toMatch(new RegExp(`^${evalId}-eval-[0-9a-f]{10}$`));
    const evResults = JSON.parse((await getText(bucket, sweepResultsKey(evalSweep)))!);
    expect(evResults.cells).toHaveLength(1);
    const detail = JSON.parse((await getText(bucket, evResults.cells[0].resultsKey))!);
    const pbe = problems.filter((p) => p.dataset === 'pbe');
    // The saved generation of the errored call is empty code: it fails to define the function.
    const expected = expectedCounts(pbe, N, new Set(['pbe#3#1']));
    expect(detail.per_task.map((t: { c: number }) => t.c)).toEqual(expected.map((e) => e.c));

    // Other generations under the same config: another sweep, scored afresh (never the first
    // evaluation's records). Meanwhile, naming the first evaluation's id for them is refused, saying why.
    const broken = path.join(dir, 'generations-broken.json');
    writeFileSync(broken, JSON.stringify((JSON.parse(saved!) as string[][]).map((g) => g.map(() => 'raise SystemExit(3)\n'))));
    const [ev2, clash, dryClash] = await Promise.all([
      runTs('scripts/start-sweep.ts', ['--config', evalConfig, '--evaluate-only', '--load-generations', broken, '--no-progress'], env),
      runTs(
        'scripts/start-sweep.ts',
        ['--config', evalConfig, '--evaluate-only', '--load-generations', broken, '--id', evalSweep, '--no-progress'],
        env,
      ),
      runTs(
        'scripts/start-sweep.ts',
        ['--config', evalConfig, '--evaluate-only', '--load-generations', broken, '--id', evalSweep, '--dry-run'],
        env,
      ),
    ]);
    expect(ev2.code, ev2.output).toBe(0);
    expect(sweepIdIn(ev2.output)).not.toBe(evalSweep);
    const ev2Results = JSON.parse((await getText(bucket, sweepResultsKey(sweepIdIn(ev2.output))))!);
    expect(ev2Results.cells[0].passAtK['pass@1']).toBe(0);
    expect(clash.code).not.toBe(0);
    expect(clash.output).toMatch(/was started as evaluate-only on generations .*; this start is evaluate-only on generations/);
    expect(dryClash.code).toBe(1);
    expect(dryClash.output).toMatch(/was started as evaluate-only on generations/);
  }

  it('--dry-run prints the plan; a bad config is refused naming the field', async () => {
    const { env } = testConfig();
    // A sweep of its own, never started (the results case starts `id` meanwhile).
    const file = writeConfig(`e2e-plan-${uniqueSuffix()}`);
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      'datasets: []\nmodels:\n  - id: x\n    base_url: not-a-url\n    model: m\nmethods: [direct]\ntemperatures: [0.2]\nn_samples: 2\nk: [1, 5]\n',
    );
    const [dry, res] = await Promise.all([
      // Not the LLM cache's forecast (dry-run.e2e's): reading a test bucket's busy cache takes seconds.
      runTs('scripts/start-sweep.ts', ['--config', file, '--dry-run', '--no-cache-forecast'], env),
      runTs('scripts/start-sweep.ts', ['--config', bad, '--dry-run'], env),
    ]);
    expect(dry.code, dry.output).toBe(0);
    // 2 datasets x 2 models = 4 cells of LIMIT tasks x N samples.
    expect(dry.output).toMatch(/4 cells/);
    expect(dry.output).toMatch(new RegExp(`total\\s+${4 * LIMIT * N}\\s+${4 * LIMIT * N}\\s+${4 * LIMIT * N}`));
    expect(res.code).not.toBe(0);
    expect(res.output).toMatch(/models\[0\]\.base_url/);
    expect(res.output).toMatch(/datasets/);
    expect(res.output).toMatch(/k/);
  });

  // With stop_cell_on_errors (the default) the refusing cell holds instead: test/sweep/cell-errors.e2e.test.ts.
  it('with stop_cell_on_errors: false, an endpoint refusing the key stops the sweep naming the model and the fix; fixed, the same command finishes it', async () => {
    const { env } = testConfig();
    let refusing = true;
    const answers = scriptedAnswers(problems);
    const gatekeeper = await startScriptedLlmServer((req) =>
      refusing ? { status: 401, message: 'Incorrect API key provided.' } : answers(req),
    );
    try {
      const refusedId = `e2e-401-${uniqueSuffix()}`;
      const file = path.join(dir, `${refusedId}.yaml`);
      writeFileSync(file, `id: ${refusedId}\n${ownModels(scriptedSweepYaml(gatekeeper.url, 4, 2))}stop_cell_on_errors: false\n`);
      const failed = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
      expect(failed.code).toBe(1);
      expect(failed.output).toMatch(
        /sweep failed: model (chatty|plain): http:\/\/127\.0\.0\.1:\d+\/scripted-[0-9a-f]+\/v1 answered 401 .*check the API key/,
      );
      refusing = false;
      const fixed = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
      expect(fixed.code, fixed.output).toBe(0);
      const results = JSON.parse((await getText(bucket, sweepResultsKey(refusedId)))!);
      // No sample kept the refusal as its answer.
      for (const c of results.cells) expect(c.statusCounts.llm_error ?? 0).toBe(0);
    } finally {
      await gatekeeper.close();
    }
  });

  it('bad inputs are refused before anything starts, each naming the problem', async () => {
    const { env } = testConfig();
    const row = {
      task_id: 'T/0',
      prompt: 'def f(x):\n',
      entry_point: 'f',
      canonical_solution: '    return x\n',
      test: 'def check(f):\n    assert f(1) == 1\n',
    };
    const dup = path.join(dir, 'dup.jsonl');
    writeFileSync(dup, `${JSON.stringify(row)}\n${JSON.stringify({ ...row, prompt: 'def f(y):\n' })}\n`);
    const yaml = (datasetPath: string) =>
      `datasets:\n  - name: he\n    family: humaneval\n    path: ${datasetPath}\nmodels:\n  - id: m\n    base_url: http://127.0.0.1:9/v1\n    model: m\nmethods: [direct]\ntemperatures: [0.2]\nn_samples: 1\nk: [1]\n`;
    const write = (name: string, text: string) => {
      const file = path.join(dir, name);
      writeFileSync(file, text);
      return file;
    };
    const refused = async (args: string[], message: RegExp) => {
      const res = await runTs('scripts/start-sweep.ts', [...args, '--dry-run'], env);
      expect(res.code, res.output).toBe(1);
      expect(res.output).toMatch(message);
    };
    const good = write('good.yaml', yaml(HUMANEVAL));
    const generations = write('gens.json', JSON.stringify(Array.from({ length: 164 }, () => ['    return x\n'])));
    // Each command on its own: they start at once.
    const [dry] = await Promise.all([
      // A good evaluate-only plan: one cell of loaded generations, no model asked.
      runTs('scripts/start-sweep.ts', ['--config', good, '--evaluate-only', '--load-generations', generations, '--dry-run'], env),
      refused(['--config', good, '--id', 'BAD_ID!'], /--id: sweep id "BAD_ID!": must be 1-80 of a-z 0-9/),
      refused(['--config', write('syntax.yaml', yaml(HUMANEVAL).replace('n_samples: 1', 'n_samples: [1'))], /line \d+, column \d+/),
      refused(['--config', write('dup.yaml', yaml(dup))], /datasets\[he\] .*dup\.jsonl:2: duplicate task_id T\/0 \(first on line 1\)/),
      refused(
        ['--config', write('s3.yaml', yaml(`s3://no-such-bucket-${uniqueSuffix()}/he.jsonl`))],
        /datasets\[he\]\.path: s3:\/\/no-such-bucket-\S+ does not exist/,
      ),
      refused(
        ['--config', good, '--evaluate-only', '--load-generations', path.join(dir, 'missing.json')],
        /--load-generations .*missing\.json: no such file/,
      ),
      refused(
        ['--config', good, '--evaluate-only', '--load-generations', write('short.json', JSON.stringify([['    return x\n']]))],
        /--load-generations .*short\.json: 1 tasks, but dataset he has 164/,
      ),
    ]);
    expect(dry.code, dry.output).toBe(0);
    expect(dry.output).toMatch(/evaluate-only: the loaded generations of 1 dataset, one cell each; no model is asked/);
    expect(dry.output).toMatch(/he\.loaded\s+164\s+164\s+0\s+164/);
  });

  it('produces the results the script implies, retries 429/500/malformed, records 400s, and sends every request once', async () => {
    try {
      await resultsAndRerun();
    } finally {
      resultsCaseOver();
    }
  });
  async function resultsAndRerun() {
    const { env } = testConfig();
    const file = writeConfig(id);
    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain(`${config.temporal.uiUrl}/namespaces/${config.temporal.namespace}/workflows/explora-sweep%2F${id}`);

    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!);
    expect(results.cells).toHaveLength(4);
    for (const cell of results.cells) {
      const dataset = cell.cell.dataset as string;
      const tasks = problems.filter((p) => p.dataset === dataset);
      expect(cell.tasks).toBe(LIMIT);
      const detail = JSON.parse((await getText(bucket, cell.resultsKey))!);
      const perTask = detail.per_task as Array<{ task_id: string; n: number; c: number; s: number }>;
      const expected = expectedCounts(tasks, N, new Set(['pbe#3#1']));
      for (const [i, e] of expected.entries())
        expect({ id: perTask[i]!.task_id, ...perTask[i]!, pipeline_length: undefined }).toMatchObject({
          id: tasks[i]!.task_id,
          n: e.n,
          c: e.c,
          s: e.s,
        });
      const counted = perTask.map((t) => ({ n: t.n, c: t.c }));
      const want = estimateAtK(counted, [1, 2]);
      expect(cell.passAtK['pass@1']).toBeCloseTo(want.averages['1']!, 12);
      expect(cell.passAtK['pass@2']).toBeCloseTo(want.averages['2']!, 12);
      expect(cell.passAtK['pass@4']).toBeCloseTo(estimateAtK(counted, [4]).averages['4']!, 12);
      expect(detail['success@1']).toBeCloseTo(
        estimateAtK(
          perTask.map((t) => ({ n: t.n, c: t.s })),
          [1],
        ).averages['1']!,
        12,
      );
      if (dataset === 'pbe') {
        expect(cell.statusCounts.llm_error).toBe(1);
        expect(detail.pass_rate_by_pipeline_length).toBeDefined();
      }
      expect(cell.cost.sandboxRuns).toBe(cell.samples - (cell.statusCounts.llm_error ?? 0));

      const cellId = String(cell.cell.cell);
      const generations = JSON.parse((await getText(bucket, cellFileKey(id, cellId, 'generations.json')))!);
      expect(generations).toHaveLength(LIMIT);
      for (const g of generations) expect(g).toHaveLength(N);
      const references = JSON.parse((await getText(bucket, cellFileKey(id, cellId, 'references.json')))!);
      expect(references).toHaveLength(LIMIT);
      const samples = (await getText(bucket, cellFileKey(id, cellId, 'samples.jsonl')))!
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(samples).toHaveLength(LIMIT * N);
      expect(samples.filter((s) => s.passed).length).toBe(perTask.reduce((a, t) => a + t.c, 0));
    }

    // Each distinct request was answered exactly once; faulted ones arrived once more, no more.
    const counts = server.countByKey();
    const retried = [...counts.values()].filter((c) => c === 2).length;
    expect([...counts.values()].every((c) => c === 1 || c === 2)).toBe(true);
    // 429, 500 and malformed faults, each in the two cells of its dataset (chat and completions).
    expect(retried).toBe(6);
    expect(counts.size).toBe(4 * LIMIT * N);
    // The retry after a 429 waited for Retry-After (1 s).
    const byKey = new Map<string, number[]>();
    for (const r of server.requests()) byKey.set(r.key, [...(byKey.get(r.key) ?? []), r.time]);
    const rateLimited = server
      .requests()
      .filter((r) => r.attempt === 2)
      .map((r) => byKey.get(r.key)!);
    expect(rateLimited.some(([a, b]) => b! - a! >= 950)).toBe(true);

    // Run again: nothing is sent, the results are the same. Its status meanwhile, from Temporal and,
    // with Temporal unreachable, from S3.
    const before = server.requests().length;
    const [again, status, offline] = await Promise.all([
      runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env),
      runTs('scripts/sweep-status.ts', [id], env),
      runTs('scripts/sweep-status.ts', [id], { ...env, TEMPORAL_ADDRESS: '127.0.0.1:9' }),
    ]);
    expect(again.code, again.output).toBe(0);
    expect(server.requests().length).toBe(before);
    const results2 = JSON.parse((await getText(bucket, sweepResultsKey(id)))!);
    expect(results2.cells.map((c: { passAtK: unknown }) => c.passAtK)).toEqual(results.cells.map((c: { passAtK: unknown }) => c.passAtK));

    expect(status.code, status.output).toBe(0);
    expect(status.output).toMatch(/COMPLETED/);
    expect(status.output).toMatch(/pbe\.chatty\.direct\.t0\.2/);
    // With Temporal unreachable, a finished sweep's results still show, from S3.
    expect(offline.code, offline.output).toBe(0);
    expect(offline.output).toMatch(/finished \(results from S3; Temporal at 127\.0\.0\.1:9 is unreachable\)/);
    expect(offline.output).toMatch(/pbe\.chatty\.direct\.t0\.2/);
  }

  it('samples_per_request: one request per run of samples, each sample its own answer; the same results; nothing sent again', async () => {
    const { env } = testConfig();
    const batchedServer = await startScriptedLlmServer(scriptedAnswers(problems));
    try {
      const batchedId = `e2e-batched-${uniqueSuffix()}`;
      const file = path.join(dir, `${batchedId}.yaml`);
      // 4 samples, 3 per request: requests of 3 and 1 choices per task.
      writeFileSync(
        file,
        `id: ${batchedId}\ndatasets:\n  - name: humaneval\n    family: humaneval\n    path: ${HUMANEVAL}\n  - name: pbe\n    family: pbe-world\n    pbe_world: { count: ${SMALL_PBE.count}, seed: ${SMALL_PBE.seed} }\n` +
          `models:\n  - id: chatty\n    base_url: ${batchedServer.url}\n    model: scripted-${RUN}-chat\n    api: chat\n    samples_per_request: 3\n` +
          `  - id: plain\n    base_url: ${batchedServer.url}\n    model: scripted-${RUN}-completions\n    api: completions\n    samples_per_request: 3\n` +
          `methods: [direct]\ntemperatures: [0.2]\nn_samples: ${N}\nk: [1, 2, 4]\nlimit: ${LIMIT}\ntimeout_s: 5\nseed: ${SWEEP_SEED}\n`,
      );
      const [dry, run] = await Promise.all([
        runTs('scripts/start-sweep.ts', ['--config', file, '--dry-run', '--no-cache-forecast'], env),
        runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env),
      ]);
      expect(dry.output).toMatch(new RegExp(`total\\s+${4 * LIMIT * N}\\s+${4 * LIMIT * 2}\\s+${4 * LIMIT * N}`));
      expect(run.code, run.output).toBe(0);
      const sent = batchedServer.requests();
      expect(sent).toHaveLength(4 * LIMIT * 2);
      expect(sent.map((r) => r.body.n ?? 1).sort()).toEqual([...Array(4 * LIMIT).fill(1), ...Array(4 * LIMIT).fill(3)]);
      const results = JSON.parse((await getText(bucket, sweepResultsKey(batchedId)))!);
      for (const cell of results.cells) {
        const tasks = problems.filter((p) => p.dataset === cell.cell.dataset);
        const perTask = JSON.parse((await getText(bucket, cell.resultsKey))!).per_task as Array<{ n: number; c: number; s: number }>;
        expect(perTask.map((t) => ({ n: t.n, c: t.c, s: t.s }))).toEqual(expectedCounts(tasks, N));
        expect(cell.cost.calls).toBe(LIMIT * 2);
      }
      const again = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
      expect(again.code, again.output).toBe(0);
      expect(batchedServer.requests()).toHaveLength(4 * LIMIT * 2);
    } finally {
      await batchedServer.close();
    }
  });

  it('refuses to resume a sweep id with a changed config, naming the change', async () => {
    // The results case's sweep, once that case is over.
    await resultsCase;
    const { env } = testConfig();
    const file = path.join(dir, `${id}-changed.yaml`);
    writeFileSync(file, readFileSync(writeConfig(id, { name: `${id}-unchanged` }), 'utf8').replace('n_samples: 4', 'n_samples: 3'));
    const res = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
    expect(res.code).not.toBe(0);
    expect(res.output).toMatch(/n_samples/);
  });
});
