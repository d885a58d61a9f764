/**
 * Synthetic sweep report data: two datasets (one PBE World with pipeline lengths), a `direct` and an
 * `exploracoder` method whose samples carry exploration traces, and hostile text in prompts and
 * responses to prove everything is escaped.
 */
import { estimateAtK } from '../../domain/metrics/passAtK.js';
import type { PerTaskCounts, ReportCell, ReportSample, SweepReportData } from '../../domain/report/model.js';
import type { ExplorationTrace } from '../../domain/report/trace.js';
import { namedIntervals } from '../../domain/sweep/results.js';

export const HOSTILE = `</script><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">`;

export function synthCell(opts: {
  dataset: string;
  model: string;
  method: string;
  temperature?: number;
  perTask: PerTaskCounts[];
  ks?: number[];
  byLength?: boolean;
}): ReportCell {
  const ks = opts.ks ?? [1, 2, 4];
  const pass = estimateAtK(
    opts.perTask.map((t) => ({ n: t.n, c: t.c })),
    ks,
  );
  const success = estimateAtK(
    opts.perTask.map((t) => ({ n: t.n, c: t.s })),
    ks,
  );
  const samples = opts.perTask.reduce((a, t) => a + t.n, 0);
  const passed = opts.perTask.reduce((a, t) => a + t.c, 0);
  const succeeded = opts.perTask.reduce((a, t) => a + t.s, 0);
  const temperature = opts.temperature ?? 0.2;
  const explore = opts.method === 'exploracoder';
  let byLength: ReportCell['passRateByPipelineLength'];
  if (opts.byLength) {
    byLength = {};
    for (const t of opts.perTask) {
      const b = (byLength[String(t.pipeline_length)] ??= { tasks: 0, pass_rate: 0 });
      b.pass_rate = (b.pass_rate * b.tasks + t.c / t.n) / (b.tasks + 1);
      b.tasks++;
    }
  }
  return {
    id: `${opts.dataset}.${opts.model}.${opts.method}.t${temperature}`,
    dataset: opts.dataset,
    model: opts.model,
    method: opts.method,
    temperature,
    nSamples: opts.perTask[0]?.n ?? 0,
    tasks: opts.perTask.length,
    samples,
    passAtK: Object.fromEntries(Object.entries(pass.averages).map(([k, v]) => [`pass@${k}`, v])),
    successAtK: Object.fromEntries(Object.entries(success.averages).map(([k, v]) => [`success@${k}`, v])),
    passAtKCI: namedIntervals('pass', pass.intervals),
    successAtKCI: namedIntervals('success', success.intervals),
    droppedK: pass.dropped,
    statusCounts: { passed, failed: succeeded - passed, error: samples - succeeded },
    cost: {
      calls: samples * (explore ? 7 : 1),
      promptTokens: samples * (explore ? 2400 : 300),
      completionTokens: samples * (explore ? 900 : 120),
      sandboxRuns: samples * (explore ? 9 : 1),
      wallSeconds: explore ? 81.5 : 12.25,
    },
    perTask: opts.perTask,
    ...(byLength ? { passRateByPipelineLength: byLength } : {}),
  };
}

export function synthTrace(taskId: string): ExplorationTrace {
  return {
    method: 'exploracoder',
    plan: `1. split the input for ${taskId}\n2. transform each part\n3. join the parts`,
    subtasks: [
      {
        index: 0,
        description: 'split the input into words',
        apis: ['str.split'],
        attempts: [
          { code: 'print("a b".split())', status: 'passed', stdout: "['a', 'b']\n", selected: true, duration_ms: 31 },
          {
            code: 'print("a b".partition(1))',
            status: 'error',
            exception: { type: 'TypeError', message: 'must be str, not int' },
            duration_ms: 29,
          },
        ],
        outcome: 'solved',
        experience: 'words = s.split()',
        calls: 2,
        prompt_tokens: 800,
        completion_tokens: 200,
      },
      {
        index: 1,
        description: 'upper-case every other word (TRACE-SUBTASK-MARKER)',
        apis: ['str.upper', 'enumerate'],
        attempts: [{ code: `w = [x.upper() for x in words]  # ${HOSTILE}`, status: 'failed', stderr: 'AssertionError\n', duration_ms: 40 }],
        outcome: 'unsolved',
      },
      { index: 2, description: 'join the words back', attempts: [], outcome: 'skipped' },
    ],
    final_prompt: 'Using what worked: words = s.split() ...',
  };
}

function sample(
  taskId: string,
  taskIndex: number,
  sampleIndex: number,
  passed: boolean,
  succeeded: boolean,
  trace?: ExplorationTrace,
): ReportSample {
  const status = passed ? 'passed' : succeeded ? 'failed' : 'error';
  return {
    task_id: taskId,
    task_index: taskIndex,
    sample_index: sampleIndex,
    raw: `RAW-${taskId}-${sampleIndex}: here is the code\n\`\`\`python\ndef f(s):\n    return s  # ${HOSTILE}\n\`\`\``,
    code: `def f(s):\n    return s  # CODE-${taskId}-${sampleIndex}`,
    solution: 'def f(s):\n    return s',
    status,
    passed,
    success: succeeded,
    ...(status === 'error' ? { exception: { type: 'ValueError', message: `bad value ${HOSTILE}` } } : {}),
    ...(status === 'failed' ? { exception: { type: 'AssertionError', message: '' } } : {}),
    duration_ms: 12 + sampleIndex,
    prompt_tokens: 300,
    completion_tokens: 120,
    calls: 1,
    ...(trace ? { trace } : {}),
  };
}

/** Per-task counts with n samples: c passed, s succeeded, for each task. */
export function counts(prefix: string, cs: Array<[number, number]>, n = 4, lengths?: number[]): PerTaskCounts[] {
  return cs.map(([c, s], i) => ({ task_id: `${prefix}/${i}`, n, c, s, ...(lengths ? { pipeline_length: lengths[i]! } : {}) }));
}

/** A small two-dataset sweep with every drill-down task shown. */
export function synthReport(): SweepReportData {
  const lengths = [1, 2, 2, 3, 4, 4];
  const cells = [
    synthCell({
      dataset: 'mini',
      model: 'alpha',
      method: 'direct',
      perTask: counts('Mini', [
        [4, 4],
        [0, 2],
        [2, 3],
        [0, 0],
      ]),
    }),
    synthCell({
      dataset: 'mini',
      model: 'beta',
      method: 'direct',
      perTask: counts('Mini', [
        [3, 4],
        [1, 1],
        [0, 4],
        [0, 1],
      ]),
    }),
    synthCell({
      dataset: 'pbe',
      model: 'alpha',
      method: 'direct',
      perTask: counts(
        'PBE',
        [
          [4, 4],
          [3, 4],
          [1, 3],
          [0, 2],
          [0, 1],
          [0, 0],
        ],
        4,
        lengths,
      ),
      byLength: true,
    }),
    synthCell({
      dataset: 'pbe',
      model: 'alpha',
      method: 'exploracoder',
      perTask: counts(
        'PBE',
        [
          [4, 4],
          [4, 4],
          [3, 4],
          [2, 4],
          [1, 3],
          [0, 1],
        ],
        4,
        lengths,
      ),
      byLength: true,
    }),
  ];
  const drilldown = ['mini', 'pbe'].map((dataset) => {
    const mine = cells.filter((c) => c.dataset === dataset);
    const total = mine[0]!.perTask.length;
    return {
      dataset,
      totalTasks: total,
      note: '',
      tasks: Array.from({ length: total }, (_, i) => {
        const taskId = mine[0]!.perTask[i]!.task_id;
        return {
          problem: {
            task_index: i,
            task_id: taskId,
            prompt: `def f(s):\n    """PROMPT-${taskId} ${i === 0 ? HOSTILE : ''}"""\n`,
            entry_point: 'f',
            ...(dataset === 'pbe' ? { pipeline_length: lengths[i]! } : {}),
          },
          cells: mine.map((c) => {
            const t = c.perTask[i]!;
            const samples = Array.from({ length: t.n }, (_, s) =>
              sample(taskId, i, s, s < t.c, s < t.s, c.method === 'exploracoder' ? synthTrace(taskId) : undefined),
            );
            return { cellId: c.id, samples, total: t.n };
          }),
        };
      }),
    };
  });
  return {
    sweepId: 'synthetic-sweep',
    generatedAt: '2025-01-02T03:04:05.000Z',
    config: {
      sweep_id: 'synthetic-sweep',
      config_sha256: 'ab'.repeat(32),
      config: {
        id: 'synthetic-sweep',
        datasets: [
          { name: 'mini', family: 'humaneval', path: '/data/mini.jsonl', program_form: 'prompt_plus_completion' },
          { name: 'pbe', family: 'pbe-world', pbe_world: { count: 6, seed: 3 }, program_form: 'full_program' },
        ],
        models: [
          { id: 'alpha', base_url: 'http://127.0.0.1:9/v1', model: 'alpha-7b', api: 'chat' },
          { id: 'beta', base_url: 'http://127.0.0.1:9/v1', model: `beta ${HOSTILE}`, api: 'completions' },
        ],
        methods: ['direct', 'exploracoder'],
        temperatures: [0.2],
        n_samples: 4,
        k: [1, 2, 4],
      },
    },
    configSha256: 'ab'.repeat(32),
    cells,
    drilldown,
  };
}
