import { describe, expect, it } from 'vitest';
import { parseSweepConfig, type SweepConfig } from '../../domain/sweep/config.js';
import { cellId, expandGrid, formatPlan, formatTemperature, loadedCellId, planSweep, SweepPlanError } from '../../domain/sweep/plan.js';
import { METHODS } from '../../domain/methods/registry.js';

function config(overrides: Record<string, unknown> = {}): SweepConfig {
  return parseSweepConfig({
    id: 'grid',
    datasets: [
      { name: 'pbe-small', family: 'pbe-world', pbe_world: { count: 20 } },
      { name: 'humaneval', family: 'humaneval', path: 'HumanEval.jsonl.gz' },
    ],
    models: [
      { id: 'gpt-x', base_url: 'http://127.0.0.1:8080/v1', model: 'a', requests_per_second: 10, max_tokens: 256 },
      { id: 'qwen2.5-coder', base_url: 'http://127.0.0.1:8081/v1', model: 'b', api: 'completions', concurrency: 8 },
    ],
    methods: ['direct'],
    temperatures: [0.2, 0.8],
    n_samples: 10,
    k: [1, 10],
    ...overrides,
  });
}

const S3_SAFE = /^[a-z0-9._-]+$/;

describe('cell ids', () => {
  it('follow <dataset>.<model>.<method>.t<temperature>', () => {
    expect(cellId('humaneval', 'gpt-x', 'direct', 0.8)).toBe('humaneval.gpt-x.direct.t0.8');
    expect(cellId('humaneval', 'gpt-x', 'direct', 0)).toBe('humaneval.gpt-x.direct.t0');
    expect(cellId('humaneval', 'gpt-x', 'direct', -0)).toBe('humaneval.gpt-x.direct.t0');
    expect(cellId('humaneval', 'gpt-x', 'direct', 1)).toBe('humaneval.gpt-x.direct.t1');
  });

  it('temperatures written differently in the file agree; distinct temperatures never collide', () => {
    const a = parseSweepConfig({ ...JSON.parse(JSON.stringify(config())), temperatures: [0.8] });
    const fromYamlText = config({ temperatures: [0.8] });
    expect(expandGrid(a).map((c) => c.id)).toEqual(expandGrid(fromYamlText).map((c) => c.id));
    expect(formatTemperature(0.8)).toBe(formatTemperature(0.8));
    expect(formatTemperature(Number('8e-1'))).toBe('0.8');
    const temps = [0, 0.1, 0.10000000000000002, 0.2, 0.7, 0.7000001, 1, 1.5, 2, 1e-7, 5e-324];
    const ids = temps.map(formatTemperature);
    expect(new Set(ids).size).toBe(temps.length);
    for (const id of ids) expect(id).toMatch(/^[0-9.e-]+$/);
    expect(() => formatTemperature(Number.NaN)).toThrow(RangeError);
  });
});

describe('expandGrid', () => {
  it('one cell per dataset x model x method x temperature, datasets outermost, in config order', () => {
    const cells = expandGrid(config());
    expect(cells.map((c) => c.id)).toEqual([
      'pbe-small.gpt-x.direct.t0.2',
      'pbe-small.gpt-x.direct.t0.8',
      'pbe-small.qwen2.5-coder.direct.t0.2',
      'pbe-small.qwen2.5-coder.direct.t0.8',
      'humaneval.gpt-x.direct.t0.2',
      'humaneval.gpt-x.direct.t0.8',
      'humaneval.qwen2.5-coder.direct.t0.2',
      'humaneval.qwen2.5-coder.direct.t0.8',
    ]);
    expect(cells.map((c) => c.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const c = cells[6]!;
    expect(c.dataset.name).toBe('humaneval');
    expect(c.model.id).toBe('qwen2.5-coder');
    expect(c.model.api).toBe('completions');
    expect(c.method).toBe('direct');
    expect(c.temperature).toBe(0.2);
    for (const cell of cells) expect(cell.id).toMatch(S3_SAFE);
  });

  it('is stable: the same config gives the same cells; ids are unique in every valid grid', () => {
    expect(expandGrid(config())).toEqual(expandGrid(config()));
    const big = config({
      datasets: [
        { name: 'a', family: 'humaneval', path: 'a.jsonl' },
        { name: 'a.b', family: 'humaneval', path: 'b.jsonl' },
        { name: 'b', family: 'humaneval', path: 'c.jsonl' },
      ],
      models: [
        { id: 'b', base_url: 'http://x', model: 'm' },
        { id: 'c', base_url: 'http://x', model: 'm' },
        { id: 'b.d', base_url: 'http://x', model: 'm' },
      ],
      temperatures: [0, 0.1, 0.2, 1, 1.1, 2],
    });
    const ids = expandGrid(big).map((c) => c.id);
    expect(ids).toHaveLength(3 * 3 * 6);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('planSweep', () => {
  it('per-cell tasks, samples, requests and runs, and totals', () => {
    const plan = planSweep(config({ limit: 100 }), { 'pbe-small': 20, humaneval: 164 });
    expect(plan.sweepId).toBe('grid');
    expect(plan.axes).toEqual({ datasets: 2, models: 2, methods: 1, prompts: 0, temperatures: 2 });
    expect(plan.datasets).toEqual([
      { name: 'pbe-small', available: 20, tasks: 20 },
      { name: 'humaneval', available: 164, tasks: 100 },
    ]);
    const byId = new Map(plan.cells.map((c) => [c.id, c]));
    expect(byId.get('pbe-small.gpt-x.direct.t0.2')).toEqual({
      id: 'pbe-small.gpt-x.direct.t0.2',
      dataset: 'pbe-small',
      model: 'gpt-x',
      method: 'direct',
      temperature: 0.2,
      tasks: 20,
      samples: 200,
      llmRequests: 200,
      sandboxRuns: 200,
      maxCompletionTokens: 200 * 256,
      estimate: false,
      shared: [],
    });
    expect(byId.get('humaneval.qwen2.5-coder.direct.t0.8')).toMatchObject({
      tasks: 100,
      samples: 1000,
      llmRequests: 1000,
      sandboxRuns: 1000,
      maxCompletionTokens: 1000 * 512,
    });
    expect(plan.totals).toEqual({
      cells: 8,
      samples: 2 * 2 * (200 + 1000),
      llmRequests: 4800,
      sandboxRuns: 4800,
      maxCompletionTokens: 2 * (200 + 1000) * 256 + 2 * (200 + 1000) * 512,
    });
    expect(plan.models).toEqual([
      { id: 'gpt-x', llmRequests: 2400, maxCompletionTokens: 2400 * 256, concurrency: 4, requestsPerSecond: 10, minSeconds: 240 },
      { id: 'qwen2.5-coder', llmRequests: 2400, maxCompletionTokens: 2400 * 512, concurrency: 8 },
    ]);
    expect(plan.estimate).toBe(false);
  });

  it("generation-only: the same requests, no final executions (a method's own sandbox runs stay)", () => {
    const grid = config({
      methods: ['direct', 'exploracoder'],
      models: [{ id: 'gpt-x', base_url: 'http://127.0.0.1:8080/v1', model: 'a' }],
      datasets: [{ name: 'pbe-small', family: 'pbe-world', pbe_world: { count: 20 } }],
    });
    const full = planSweep(grid, { 'pbe-small': 20 });
    const gen = planSweep(grid, { 'pbe-small': 20 }, 'generation-only');
    expect(gen.mode).toBe('generation-only');
    expect(gen.cells.map((c) => c.llmRequests)).toEqual(full.cells.map((c) => c.llmRequests));
    expect(gen.cells.map((c) => c.sandboxRuns)).toEqual(full.cells.map((c) => c.sandboxRuns - c.samples));
    expect(gen.cells.filter((c) => c.method === 'direct').every((c) => c.sandboxRuns === 0)).toBe(true);
    expect(gen.cells.filter((c) => c.method === 'exploracoder').every((c) => c.sandboxRuns > 0)).toBe(true);
    expect(formatPlan(gen)).toMatch(/^sweep grid, generation-only/);
  });

  it('evaluate-only: one cell per dataset, named as the sweep names it, with no requests and a run per sample', () => {
    const plan = planSweep(config({ limit: 100 }), { 'pbe-small': 20, humaneval: 164 }, 'evaluate-only');
    expect(plan.cells.map((c) => [c.id, c.llmRequests, c.sandboxRuns, c.samples])).toEqual([
      [loadedCellId('pbe-small'), 0, 200, 200],
      [loadedCellId('humaneval'), 0, 1000, 1000],
    ]);
    expect(plan.models).toEqual([]);
    expect(plan.totals).toEqual({ cells: 2, samples: 1200, llmRequests: 0, sandboxRuns: 1200, maxCompletionTokens: 0 });
    const text = formatPlan(plan);
    expect(text).toMatch(/^sweep grid, evaluate-only: the loaded generations of 2 datasets, one cell each; no model is asked/);
    expect(text).not.toMatch(/gpt-x/);
  });

  it('without a limit every task is used; with one, at most limit per dataset', () => {
    expect(planSweep(config(), { 'pbe-small': 20, humaneval: 164 }).datasets.map((d) => d.tasks)).toEqual([20, 164]);
    expect(planSweep(config({ limit: 5 }), { 'pbe-small': 20, humaneval: 164 }).datasets.map((d) => d.tasks)).toEqual([5, 5]);
    expect(planSweep(config({ limit: 5 }), { 'pbe-small': 0, humaneval: 3 }).cells.map((c) => c.samples)).toEqual([
      0, 0, 0, 0, 30, 30, 30, 30,
    ]);
  });

  it('direct costs exactly one request and one sandbox run per sample', () => {
    expect(METHODS.direct.kind).toBe('direct');
    const plan = planSweep(config({ n_samples: 3, k: [1, 3] }), { 'pbe-small': 7, humaneval: 1 });
    for (const cell of plan.cells) {
      expect(cell.samples).toBe(cell.tasks * 3);
      expect(cell.llmRequests).toBe(cell.samples);
      expect(cell.sandboxRuns).toBe(cell.samples);
      expect(cell.estimate).toBe(false);
    }
  });

  it('samples_per_request: one-prompt steps send ceil(n / it) requests per task, answers (and the token bound) stay one per sample', () => {
    const models = [{ id: 'batched', base_url: 'http://127.0.0.1:8080/v1', model: 'a', max_tokens: 100, samples_per_request: 4 }];
    const methods = ['direct', 'rag', 'exploracoder', 'self-repair'];
    const plan = planSweep(
      config({
        n_samples: 10,
        k: [1],
        temperatures: [0.2],
        methods,
        models,
        datasets: [{ name: 'pbe-small', family: 'pbe-world', pbe_world: { count: 20 } }],
      }),
      { 'pbe-small': 7 },
    );
    const cell = (method: string) => plan.cells.find((c) => c.method === method)!;
    expect(cell('direct')).toMatchObject({ samples: 70, llmRequests: 7 * 3, sandboxRuns: 70, maxCompletionTokens: 70 * 100 });
    expect(cell('rag')).toMatchObject({ samples: 70, llmRequests: 7 * 3, sandboxRuns: 70, maxCompletionTokens: 70 * 100 });
    // ExploraCoder's plan and reranks are one request each; a subtask's 5 candidates share a prompt
    // (2 requests of up to 4), and so do its 10 final solutions (3 requests).
    const steps = 7 * (1 + 4 + 1 + 4 * 2);
    const stepAnswers = 7 * (1 + 4 + 1 + 20);
    expect(cell('exploracoder')).toMatchObject({ llmRequests: steps + 7 * 3, maxCompletionTokens: (stepAnswers + 70) * 100 });
    // Self-repair: the plan, rag's first answers (3 requests for 10), and 2 repairs per sample.
    expect(cell('self-repair')).toMatchObject({ llmRequests: 7 + 7 * 3 + 70 * 2, maxCompletionTokens: (7 + 70 + 140) * 100 });
    // Self-repair's plan and first answers are the ones ExploraCoder and rag send.
    expect(plan.models[0]!.llmRequests).toBe(21 + 21 + (steps + 21) + 140);
    expect(plan.models[0]!.maxCompletionTokens).toBe((70 + 70 + stepAnswers + 70 + 140) * 100);
  });

  it('exploring methods are estimated per task: plan, reranks, m snippets per subtask, n finals', () => {
    const plan = planSweep(
      config({
        n_samples: 3,
        k: [1],
        methods: ['exploracoder', 'rag'],
        temperatures: [0.2],
        models: [{ id: 'gpt-x', base_url: 'http://127.0.0.1:8080/v1', model: 'a' }],
        datasets: [{ name: 'pbe-small', family: 'pbe-world', pbe_world: { count: 20 } }],
      }),
      { 'pbe-small': 7 },
    );
    const explora = plan.cells.find((c) => c.method === 'exploracoder')!;
    // 7 tasks x (1 plan + 4 reranks + 1 global + 4 subtasks x 5 candidates + 3 finals)
    expect(explora.llmRequests).toBe(7 * (1 + 4 + 1 + 20 + 3));
    expect(explora.sandboxRuns).toBe(7 * (20 + 3));
    expect(explora.estimate).toBe(true);
    const rag = plan.cells.find((c) => c.method === 'rag')!;
    expect(rag.llmRequests).toBe(21);
    expect(plan.estimate).toBe(true);
  });

  it('requests several cells send (the ExploraCoder chain across temperatures and variants, plans with self-repair, rag answers with self-repair) count once in the totals', () => {
    const models = [
      { id: 'gpt-x', base_url: 'http://127.0.0.1:8080/v1', model: 'a', max_tokens: 100 },
      { id: 'other', base_url: 'http://127.0.0.1:8081/v1', model: 'b', max_tokens: 10 },
    ];
    const methods = ['exploracoder', 'exploracoder-debug', 'exploracoder-debug-no-summary', 'self-repair', 'rag', 'direct'];
    const plan = planSweep(
      config({
        n_samples: 3,
        k: [1],
        methods,
        temperatures: [0.2, 0.8],
        models,
        datasets: [{ name: 'pbe-small', family: 'pbe-world', pbe_world: { count: 20 } }],
      }),
      { 'pbe-small': 7 },
    );
    const t = 7;
    const plans = t;
    const reranks = t * 5;
    const explore = t * 20;
    const finals = t * 3;
    const rag = t * 3;
    const selfRepairOwn = t * 3 * 2; // 3 samples x 2 repair rounds (half the 4-subtask budget)
    const debug = t * 2; // ceil(4 subtasks x the paper's 0.32 debug rate), one request each (sequential)
    // Per model: each temperature pays its own finals; the summary variants share one chain, the
    // no-summary variant its own; self-repair shares the plan and rag's answers.
    const perModel =
      2 * (plans + reranks + explore) + // with and without the summary
      2 * debug + // ExploraCoder*'s debugging, with and without the summary (at debug_temperature: both temperatures share it)
      2 * 3 * finals + // three ExploraCoder variants at two temperatures
      2 * (rag + selfRepairOwn) + // rag (shared with self-repair) and self-repair's repairs, per temperature
      2 * t * 3; // direct
    expect(plan.models.map((m) => m.llmRequests)).toEqual([perModel, perModel]);
    expect(plan.totals.llmRequests).toBe(2 * perModel);
    expect(plan.models.map((m) => m.maxCompletionTokens)).toEqual([perModel * 100, perModel * 10]);
    expect(plan.totals.maxCompletionTokens).toBe(perModel * 110);
    // Each cell alone still shows what it would send by itself.
    const one = plan.cells.find((c) => c.id === 'pbe-small.gpt-x.exploracoder.t0.8')!;
    expect(one.llmRequests).toBe(plans + reranks + explore + finals);
    expect(sum(plan.cells.map((c) => c.llmRequests))).toBeGreaterThan(plan.totals.llmRequests);
    const alone = sum(plan.cells.map((c) => c.llmRequests));
    expect(formatPlan(plan)).toContain(
      `add up to ${alone.toLocaleString('en-US')}; ${(alone - plan.totals.llmRequests).toLocaleString('en-US')} of them are requests another cell sends too`,
    );
  });

  it("the CAPIR family shares ExploraCoder's plan and per-subtask reranks, and CAPIR + Self-Repair CAPIR's answers", () => {
    const models = [{ id: 'gpt-x', base_url: 'http://127.0.0.1:8080/v1', model: 'a', max_tokens: 100 }];
    const methods = ['exploracoder', 'capir', 'capir-self-repair', 'epigen'];
    const plan = planSweep(
      config({
        n_samples: 3,
        k: [1],
        methods,
        temperatures: [0.8],
        models,
        datasets: [{ name: 'pbe-small', family: 'pbe-world', pbe_world: { count: 20 } }],
      }),
      { 'pbe-small': 7 },
    );
    const t = 7;
    const exploracoder = t * (1 + 4 + 1 + 20 + 3);
    const capirAnswers = t * 3;
    const epigenAnswers = t * 3;
    const repairs = t * 3 * 2 * 2; // 3 samples x 2 assumed repairs x (feedback + code)
    expect(plan.totals.llmRequests).toBe(exploracoder + capirAnswers + epigenAnswers + repairs);
    expect(plan.cells.find((c) => c.method === 'capir')!.llmRequests).toBe(t * (1 + 4) + capirAnswers);
  });

  it('refuses missing or invalid task counts, naming the dataset', () => {
    expect(() => planSweep(config(), { 'pbe-small': 20 })).toThrow(SweepPlanError);
    expect(() => planSweep(config(), { 'pbe-small': 20 })).toThrow(/"humaneval"/);
    expect(() => planSweep(config(), { 'pbe-small': 20, humaneval: -1 })).toThrow(/"humaneval".*-1/);
    expect(() => planSweep(config(), { 'pbe-small': 2.5, humaneval: 1 })).toThrow(/"pbe-small"/);
    expect(() => planSweep(config({ datasets: [{ name: 'constructor', family: 'humaneval', path: 'a.jsonl' }] }), {})).toThrow(
      /"constructor"/,
    );
  });

  it('is pure: the config is not modified', () => {
    const c = config();
    const before = JSON.stringify(c);
    planSweep(c, { 'pbe-small': 20, humaneval: 164 });
    expect(JSON.stringify(c)).toBe(before);
  });
});

describe('formatPlan', () => {
  it('a readable table with every cell, totals and per-model figures', () => {
    const text = formatPlan(planSweep(config({ limit: 100 }), { 'pbe-small': 20, humaneval: 164 }));
    const lines = text.split('\n');
    expect(lines[0]).toBe('sweep grid: 2 datasets x 2 models x 1 method x 2 temperatures = 8 cells');
    expect(lines[1]).toBe('n_samples 10, k [1, 10], top_p 0.95, seed 0, limit 100, sandbox timeout 3 s');
    expect(text).toMatch(/^humaneval\s+164\s+100$/m);
    expect(text).toMatch(/^cell\s+tasks\s+samples\s+llm requests\s+sandbox runs$/m);
    expect(text).toMatch(/^humaneval\.qwen2\.5-coder\.direct\.t0\.8\s+100\s+1,000\s+1,000\s+1,000$/m);
    expect(text).toMatch(/^pbe-small\.gpt-x\.direct\.t0\.2\s+20\s+200\s+200\s+200$/m);
    expect(text).toMatch(/^total\s+4,800\s+4,800\s+4,800$/m);
    expect(text).toMatch(/^gpt-x\s+2,400\s+614,400\s+4\s+10\/s \(>= 4 min\)$/m);
    expect(text).toMatch(/^qwen2\.5-coder\s+2,400\s+1,228,800\s+8\s+none$/m);
    // columns line up: every row of the cell table is as wide as its header rule or narrower
    const header = lines.findIndex((l) => l.startsWith('cell '));
    const rule = lines[header + 1]!;
    for (const row of lines.slice(header + 2, header + 2 + 8)) {
      expect(row.length).toBe(rule.length);
    }
  });
});

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
