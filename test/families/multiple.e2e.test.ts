/**
 * MultiPL-E end to end: one sweep through Temporal over a file of rows in every language (js, ts,
 * go_test.go, rs, java, cpp, the scripting languages, py), against a scripted completions model that answers each task
 * right, wrong, with code that does not compile, or with a hostile program; the real toolchains
 * and sandbox run them. Then scripts/evaluate.ts on MultiPL-E rows, and its refusals.
 *
 * The sweeps run side by side (each with task queues of its own, so that no sweep's worker takes
 * another's work), and beside them the evaluate.ts runs: they mostly wait (on process starts,
 * toolchain starts, programs that run into their time limits). That nothing is left behind is
 * checked once they have all ended.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MULTIPLE_LANGUAGE_IDS, type MultiplELanguageId } from '../../domain/families/multipl-e/index.js';
import { cellShardRecordsKey, sweepResultsKey } from '../../domain/sweep/keys.js';
import { getText } from '../../infra/s3.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { addRow, COMPLETIONS, HOSTILE_PASSES, jsonl, MAY_BE_MISSING, runnableOf, type CompletionKind } from '../support/multiple-rows.js';
import { RUN_ENTRY, runTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';

const KINDS: CompletionKind[] = ['right', 'wrong', 'noncompiling', 'hostile'];
/** The languages this machine runs (every one but those MAY_BE_MISSING lacks a toolchain; a test below checks). */
const HERE = await runnableOf(MULTIPLE_LANGUAGE_IDS);
const NOT_HERE = MULTIPLE_LANGUAGE_IDS.filter((l) => !HERE.includes(l));
const PLANTED = '/etc/explora-multiple-planted';

/** Task n of each file is answered with completion KINDS[n - 1]. */
function fileOf(language: MultiplELanguageId) {
  return KINDS.map((_, i) => addRow(language, i + 1));
}

/** Processes of sample uids (the process runner's, from 2,000,000 up) still alive: a sleeping daemon left behind would show. */
function leftoverSleepers(): string[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        return statSync(`/proc/${e}`).uid >= 2_000_000 && readFileSync(`/proc/${e}/cmdline`, 'latin1').includes('sleep\u000031');
      } catch {
        return false;
      }
    });
}

describe.concurrent('a sweep over MultiPL-E rows in every language, against a scripted completions model', () => {
  const { config } = testConfig();
  const bucket = testBucket(config);
  /** The environment of one sweep: task queues of its own. */
  const sweepEnv = () => testConfig().env;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-multiple-'));
  const answers = new Map<string, string>();
  const stops = new Map<string, unknown>();
  let server: ScriptedLlmServer;

  beforeAll(async () => {
    for (const language of MULTIPLE_LANGUAGE_IDS) {
      const rows = fileOf(language);
      rows.forEach((row, i) => answers.set(row.prompt, COMPLETIONS[language][KINDS[i]!]));
      writeFileSync(path.join(dir, `humaneval-${language}.jsonl`), jsonl(rows));
    }
    server = await startScriptedLlmServer((req) => {
      const prompt = String(req.body.prompt);
      stops.set(prompt, req.body.stop);
      return { content: answers.get(prompt) ?? 'no idea' };
    });
  });
  afterAll(async () => {
    await server.close();
    bucket.s3.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  // A JVM language's right answer (Scala's scala-library on the JVM) can take several seconds to run
  // on a loaded machine: the limit leaves it room, hostile programs still end at it.
  const RUN_TIMEOUT_S = 10;
  it('right answers pass, wrong ones fail, non-compiling ones are compile errors, hostile ones are contained', async () => {
    const id = `multiple-${uniqueSuffix()}`;
    const file = path.join(dir, 'sweep.yaml');
    const datasets = HERE.map(
      (l) => `  - name: humaneval-${l.replace(/[^a-z]/g, '')}\n    family: multipl-e\n    path: humaneval-${l}.jsonl\n    language: ${l}\n`,
    ).join('');
    writeFileSync(
      file,
      `id: ${id}\ndatasets:\n${datasets}models:\n  - id: base\n    base_url: ${server.url}\n    model: scripted-base\n    api: completions\nmethods: [direct]\ntemperatures: [0]\nn_samples: 1\nk: [1]\ntimeout_s: ${RUN_TIMEOUT_S}\n`,
    );
    const outDir = path.join(dir, 'out');
    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress', '--output-dir', outDir], sweepEnv());
    expect(run.code, run.output).toBe(0);
    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!);
    expect(results.cells).toHaveLength(HERE.length);
    for (const cell of results.cells) {
      const language = HERE.find((l) => cell.cell.dataset === `humaneval-${l.replace(/[^a-z]/g, '')}`)!;
      const samples = readFileSync(path.join(outDir, String(cell.cell.cell), 'samples.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { task_id: string; completion: string; result: string; passed: boolean });
      const byKind = Object.fromEntries(samples.map((s) => [KINDS[Number(/^HumanEval_(\d+)_add$/.exec(s.task_id)![1]) - 1]!, s]));
      const what = `${language}: ${JSON.stringify(samples)}`;
      expect(byKind.right, what).toMatchObject({ result: 'passed', passed: true });
      // Cut at the row's stop tokens: nothing after them reached the program.
      expect(byKind.right!.completion, what).not.toContain('kept past a stop token');
      expect(byKind.wrong, what).toMatchObject({ result: 'failed', passed: false });
      // Python has no compile step: its syntax error is an error of the run.
      expect(byKind.noncompiling, what).toMatchObject({ result: language === 'py' ? 'error' : 'compile_error', passed: false });
      if (HOSTILE_PASSES[language]) expect(byKind.hostile, what).toMatchObject({ result: 'passed', passed: true });
      else expect(['timeout', 'oom'], what).toContain(byKind.hostile!.result);
      expect(cell.passAtK['pass@1'], what).toBeCloseTo((HOSTILE_PASSES[language] ? 2 : 1) / KINDS.length, 10);
      // The requests stopped at the language's MultiPL-E stop tokens (at most four are sent).
      expect(stops.get(fileOf(language)[0]!.prompt), what).toEqual(addRow(language).stop_tokens.slice(0, 4));
    }
    expect(existsSync(PLANTED)).toBe(false);
    expect(leftoverSleepers()).toEqual([]);
  }, 300_000);

  it('with --share-process, JavaScript samples share Node processes: the same results, and the records say which', async () => {
    const id = `multiple-shared-${uniqueSuffix()}`;
    const file = path.join(dir, 'shared.yaml');
    writeFileSync(
      file,
      `id: ${id}\ndatasets:\n  - name: humaneval-js\n    family: multipl-e\n    path: humaneval-js.jsonl\n    language: js\nmodels:\n  - id: base\n    base_url: ${server.url}\n    model: scripted-base\n    api: completions\nmethods: [direct]\ntemperatures: [0.8]\nn_samples: 3\nk: [1]\ntimeout_s: 2\n`,
    );
    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress', '--share-process'], sweepEnv());
    expect(run.code, run.output).toBe(0);
    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!);
    expect(results.cells).toHaveLength(1);
    expect(results.cells[0].passAtK['pass@1']).toBeCloseTo(1 / KINDS.length, 10);
    const records = (await getText(bucket, cellShardRecordsKey(id, results.cells[0].cell.cell, 0)))!
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { task_id: string; status: string; shared_process?: true });
    const kindOf = (taskId: string) => KINDS[Number(/^HumanEval_(\d+)_add$/.exec(taskId)![1]) - 1]!;
    expect(records.map((r) => [kindOf(r.task_id), r.status])).toEqual(
      (['passed', 'failed', 'compile_error', 'timeout'] as const).flatMap((status, i) =>
        Array.from({ length: 3 }, () => [KINDS[i], status]),
      ),
    );
    // The infinite loops ran alone (out of the shared process's time, then timed out alone); most of the rest shared.
    expect(records.filter((r) => kindOf(r.task_id) === 'hostile').every((r) => r.shared_process === undefined)).toBe(true);
    expect(records.filter((r) => r.shared_process).length).toBeGreaterThan(0);
  }, 180_000);

  // The fork servers are the default (docs/sandbox.md#fork-servers-scripted-languages); --no-fork-server runs every program alone.
  for (const [flags, forked] of [
    [[], true],
    [['--no-fork-server'], false],
  ] as const)
    it(`${flags.length ? flags.join(' ') : 'by default'}: Ruby and Perl samples ${forked ? 'are forked from warm interpreters' : 'each run alone'}, with the same statuses, and the records say which`, async () => {
      const id = `multiple-forked-${forked ? 'yes' : 'no'}-${uniqueSuffix()}`;
      const file = path.join(dir, `forked-${forked}.yaml`);
      const datasets = (['rb', 'pl'] as const)
        .map(
          (language) =>
            `  - name: humaneval-${language}\n    family: multipl-e\n    path: humaneval-${language}.jsonl\n    language: ${language}\n`,
        )
        .join('');
      writeFileSync(
        file,
        `id: ${id}\ndatasets:\n${datasets}models:\n  - id: base\n    base_url: ${server.url}\n    model: scripted-base\n    api: completions\nmethods: [direct]\ntemperatures: [0.8]\nn_samples: 2\nk: [1]\ntimeout_s: ${RUN_TIMEOUT_S}\n`,
      );
      const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress', ...flags], sweepEnv());
      expect(run.code, run.output).toBe(0);
      const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!) as { cells: { cell: { cell: string } }[] };
      expect(results.cells).toHaveLength(2);
      for (const cell of results.cells) {
        const language = /humaneval-(\w+)\./.exec(cell.cell.cell)![1] as 'rb' | 'pl';
        const records = (await getText(bucket, cellShardRecordsKey(id, cell.cell.cell, 0)))!
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { task_id: string; status: string; forked?: true });
        const kindOf = (taskId: string) => KINDS[Number(/^HumanEval_(\d+)_add$/.exec(taskId)![1]) - 1]!;
        const status = (kind: string) => records.filter((r) => kindOf(r.task_id) === kind).map((r) => r.status);
        expect(status('right'), language).toEqual(['passed', 'passed']);
        expect(status('wrong'), language).toEqual(['failed', 'failed']);
        expect(status('noncompiling'), language).toEqual(['compile_error', 'compile_error']);
        for (const s of status('hostile')) expect(HOSTILE_PASSES[language] ? ['passed'] : ['timeout', 'oom'], language).toContain(s);
        // Forked from the slot's warm interpreter, or started in a sandbox each: the records say which.
        const forkedCount = records.filter((r) => r.forked).length;
        if (forked) expect(forkedCount, language).toBeGreaterThan(0);
        else expect(forkedCount, language).toBe(0);
      }
    }, 240_000);

  it('a sweep whose language has no toolchain here is refused before it starts, naming the dataset, the language and the install', async () => {
    // A model of its own: a request it gets can only be this sweep's (the sweeps above run meanwhile).
    const model = await startScriptedLlmServer(() => ({ content: 'no idea' }));
    try {
      const id = `multiple-missing-${uniqueSuffix()}`;
      const file = path.join(dir, 'missing.yaml');
      writeFileSync(
        file,
        `id: ${id}\ndatasets:\n  - name: humaneval-go\n    family: multipl-e\n    path: humaneval-go_test.go.jsonl\n    language: go_test.go\nmodels:\n  - id: base\n    base_url: ${model.url}\n    model: scripted-base\n    api: completions\nmethods: [direct]\ntemperatures: [0]\nn_samples: 1\nk: [1]\n`,
      );
      // A PATH without Go's directory: as on a machine without Go.
      const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], { ...sweepEnv(), PATH: '/usr/bin:/bin' });
      expect(run.code, run.output).not.toBe(0);
      expect(run.output).toMatch(/datasets\[humaneval-go\]: language go_test\.go \(Go\) cannot run here: go is missing; install Go/);
      expect(model.requests()).toEqual([]);
      expect(await getText(bucket, sweepResultsKey(id))).toBeNull();
    } finally {
      await model.close();
    }
  }, 120_000);

  // Each sweep's programs ended with it: checked once all have (a sample's daemon seen while another sweep still runs it is no leftover).
  it.sequential('after every sweep: no planted file, and no sleeping daemon of a sample left', () => {
    expect(existsSync(PLANTED)).toBe(false);
    expect(leftoverSleepers()).toEqual([]);
  });
});

describe.concurrent('scripts/evaluate.ts on MultiPL-E rows', () => {
  const run = promisify(execFile);
  const SCRIPT = path.resolve('scripts/evaluate.ts');
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'explora-multiple-evaluate-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function evaluate(args: string[], extraEnv: Record<string, string> = {}) {
    try {
      const { stdout, stderr } = await run(process.execPath, [RUN_ENTRY, SCRIPT, ...args], {
        timeout: 120_000,
        env: { ...process.env, ...extraEnv },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  }

  it('task_id is the row name; results carry every field plus passed and result; pass@k on the last line', async () => {
    const problems = path.join(dir, 'humaneval-rs.jsonl');
    writeFileSync(problems, jsonl(fileOf('rs').slice(0, 3)));
    const samples = path.join(dir, 'samples.jsonl');
    const rows = [
      { task_id: 'HumanEval_1_add', completion: COMPLETIONS.rs.right, model: 'm' },
      { task_id: 'HumanEval_1_add', completion: COMPLETIONS.rs.wrong, model: 'm' },
      { task_id: 'HumanEval_2_add', completion: COMPLETIONS.rs.wrong, model: 'm' },
      { task_id: 'HumanEval_3_add', completion: COMPLETIONS.rs.noncompiling, model: 'm' },
    ];
    writeFileSync(samples, jsonl(rows));
    const r = await evaluate(['--problems', problems, '--samples', samples, '--k', '1,2', '--verbose']);
    expect(r.code, r.stderr).toBe(0);
    // The rows' runner starts at once, read from the first row, not the Python sandbox first.
    expect(r.stderr).toMatch(/sandbox started at \d+ ms \(rs's process runner, from the first row\)/);
    const results = readFileSync(`${samples}_results.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(results.map((x) => [x.task_id, x.model, x.passed])).toEqual([
      ['HumanEval_1_add', 'm', true],
      ['HumanEval_1_add', 'm', false],
      ['HumanEval_2_add', 'm', false],
      ['HumanEval_3_add', 'm', false],
    ]);
    expect(results[0].result).toBe('passed');
    expect(results[1].result).toMatch(/^failed: assertion `left == right` failed/);
    expect(results[3].result).toMatch(/^failed: error\[E\d+\]: cannot add/);
    const metrics = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(metrics['pass@1']).toBeCloseTo((0.5 + 0 + 0) / 3, 10);
  });

  it('--share-process: JavaScript samples several to a Node process give the results of a process each', async () => {
    const problems = path.join(dir, 'humaneval-js.jsonl');
    writeFileSync(problems, jsonl(fileOf('js')));
    const rows = KINDS.flatMap((kind, i) =>
      [0, 1, 2].map((copy) => ({ task_id: `HumanEval_${i + 1}_add`, completion: COMPLETIONS.js[kind], copy })),
    );
    const samples = path.join(dir, 'js-samples.jsonl');
    writeFileSync(samples, jsonl(rows));
    const alone = await evaluate([
      '--problems',
      problems,
      '--samples',
      samples,
      '--k',
      '1,2',
      '--timeout',
      '1',
      '--workers',
      '1',
      '--out',
      path.join(dir, 'alone.jsonl'),
    ]);
    const shared = await evaluate([
      '--problems',
      problems,
      '--samples',
      samples,
      '--k',
      '1,2',
      '--timeout',
      '1',
      '--workers',
      '1',
      '--out',
      path.join(dir, 'shared.jsonl'),
      '--share-process',
    ]);
    expect(alone.code, alone.stderr).toBe(0);
    expect(shared.code, shared.stderr).toBe(0);
    const read = (f: string) =>
      readFileSync(path.join(dir, f), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { passed: boolean; result: string });
    expect(read('shared.jsonl')).toEqual(read('alone.jsonl'));
    expect(read('alone.jsonl').map((r) => r.passed)).toEqual(rows.map((r) => r.task_id === 'HumanEval_1_add'));
    expect(shared.stdout.trim().split('\n').pop()).toBe(alone.stdout.trim().split('\n').pop());
    // The infinite loops are sent to lone runs (and time out there); the rest share.
    expect(shared.stderr).toMatch(/evaluate: 9 of 12 programs ran in shared processes/);
  });

  it('refuses a row of an unknown language and a row missing a field, naming the line and the field', async () => {
    const samples = path.join(dir, 's.jsonl');
    writeFileSync(samples, jsonl([{ task_id: 'HumanEval_1_add', completion: '' }]));
    const unknown = path.join(dir, 'cobol.jsonl');
    writeFileSync(unknown, jsonl([{ ...addRow('js', 1), language: 'cobol' }]));
    const a = await evaluate(['--problems', unknown, '--samples', samples]);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain(
      `cobol.jsonl:1: language: "cobol"; a MultiPL-E row's language must be one of ${MULTIPLE_LANGUAGE_IDS.join(', ')}`,
    );
    const missing = path.join(dir, 'missing.jsonl');
    const { prompt: _prompt, ...noPrompt } = addRow('js', 2);
    writeFileSync(missing, jsonl([addRow('js', 1), noPrompt]));
    const b = await evaluate(['--problems', missing, '--samples', samples, '--ignore-incomplete']);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/missing\.jsonl:2: prompt/);
  });

  it('a language declared whose toolchain is not here (Julia, Swift on Debian bookworm) is refused, naming what to install', async () => {
    for (const language of NOT_HERE) expect(MAY_BE_MISSING).toContain(language);
    for (const language of NOT_HERE) {
      const problems = path.join(dir, `humaneval-${language}.jsonl`);
      writeFileSync(problems, jsonl([addRow(language, 1)]));
      const samples = path.join(dir, `${language}-samples.jsonl`);
      writeFileSync(samples, jsonl([{ task_id: 'HumanEval_1_add', completion: COMPLETIONS[language].right }]));
      const r = await evaluate(['--problems', problems, '--samples', samples]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(
        new RegExp(`language ${language} \\(.+\\) cannot run here: \\w+ is missing; install (Julia|a Swift toolchain)`),
      );
      expect(existsSync(`${samples}_results.jsonl`)).toBe(false);
    }
  });

  it('refuses a language whose toolchain is missing, naming it and how to install it, before running anything', async () => {
    const problems = path.join(dir, 'humaneval-go.jsonl');
    writeFileSync(problems, jsonl([addRow('go_test.go', 1)]));
    const samples = path.join(dir, 'go-samples.jsonl');
    writeFileSync(samples, jsonl([{ task_id: 'HumanEval_1_add', completion: COMPLETIONS['go_test.go'].right }]));
    // A PATH without Go's directory: as on a machine without Go.
    const r = await evaluate(['--problems', problems, '--samples', samples], { PATH: '/usr/bin:/bin' });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/language go_test\.go \(Go\) cannot run here: go is missing; install Go/);
    expect(existsSync(`${samples}_results.jsonl`)).toBe(false);
  });
});
