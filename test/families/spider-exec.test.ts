/**
 * Spider's execution accuracy with the databases given: a real SQLite database made here (Spider's
 * database/<db_id>/<db_id>.sqlite layout), gold and predicted queries run in the real sandbox
 * (bubblewrap, the database folder mounted read-only), results compared as Spider's evaluator does
 * (spiderExec.ts); the refusals of a missing database; Spider without databases still scored by BLEU.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpiderEntrySchema, spiderFamily } from '../../domain/families/spider/index.js';
import { LANGUAGES } from '../../domain/languages/registry.js';
import { recordedRun } from '../../domain/sweep/records.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { PythonExecutor } from '../../infra/sandbox/pythonExecutor.js';
import { loadEvaluateProblems } from '../../scripts/lib/evaluate-problems.js';
import { requirementsProblem } from '../../scripts/lib/requirements.js';
import { makeSpiderDatabases, makeTestSuiteDatabase, singerCount } from '../support/spider-db.js';
import { DatasetProblemError } from '../../domain/families/datasetProblem.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-spider-exec-'));
const databases = path.join(dir, 'database');
let executor: PythonExecutor;

beforeAll(async () => {
  makeSpiderDatabases(dir);
  makeTestSuiteDatabase(databases, 'suite_db');
  executor = new PythonExecutor({ concurrency: 2, readableDirs: [databases], limits: { timeoutMs: 5_000 } });
  await executor.start();
}, 60_000);
afterAll(async () => {
  await executor?.close();
  rmSync(dir, { recursive: true, force: true });
});

const row = (query: string, db_id = 'concert_singer') => JSON.stringify({ db_id, query, question: 'q?' });
function problemOf(gold: string, db_id = 'concert_singer'): SweepProblem {
  const loaded = loadEvaluateProblems({ text: row(gold, db_id) + '\n', source: 'dev.jsonl', options: { databases } });
  expect(loaded.family).toBe('spider');
  return loaded.problems[0]!;
}

async function runSample(gold: string, predicted: string, timeoutMs = 5_000, db_id = 'concert_singer') {
  const problem = spiderFamily.read(problemOf(gold, db_id));
  const program = LANGUAGES.python.assemble({
    solution: spiderFamily.embedSolution(problem, spiderFamily.solution(problem, 'saved', predicted)),
    tests: spiderFamily.tests(problem, null),
  });
  const result = await executor.run({ id: 'x', program, limits: { ...spiderFamily.limits(problem, null, timeoutMs) } });
  return { result, score: spiderFamily.score(problem, result) };
}

describe('Spider execution accuracy in the sandbox', () => {
  it('a problem read with the databases is checked by running; without, by BLEU as before', () => {
    const withDb = problemOf('SELECT count(*) FROM singer');
    expect(spiderFamily.checking(spiderFamily.read(withDb)).kind).toBe('tests');
    expect(withDb).toMatchObject({ db_id: 'concert_singer', database: `${databases}/concert_singer/concert_singer.sqlite` });
    const plain = loadEvaluateProblems({ text: row('SELECT count(*) FROM singer') + '\n', source: 'dev.jsonl' }).problems[0]!;
    expect(plain).not.toHaveProperty('database');
    expect(spiderFamily.checking(spiderFamily.read(plain))).toMatchObject({ kind: 'text', metric: { id: 'bleu' } });
  });

  it('equal results in another row order pass when the gold query has no ORDER BY', async () => {
    const { result, score } = await runSample(
      "SELECT name FROM singer WHERE country = 'France'",
      "SELECT name FROM singer WHERE country = 'France' ORDER BY name DESC",
    );
    expect(result.status).toBe('passed');
    expect(score).toEqual({ kind: 'status', passed: true, success: true });
    expect(recordedRun(result, score)).toEqual({ status: 'passed' });
  });

  it('with ORDER BY in the gold query, the order counts', async () => {
    const gold = 'SELECT name ,  age FROM singer ORDER BY age DESC';
    expect((await runSample(gold, 'SELECT name, age FROM singer ORDER BY age')).score).toEqual({
      kind: 'status',
      passed: false,
      success: true,
      failure: {
        type: 'WrongResult',
        message:
          'the result sets differ: the predicted query returned 5 rows, the gold query 5 rows, compared in order (the gold query has ORDER BY)',
      },
    });
    expect((await runSample(gold, 'SELECT name, age FROM singer ORDER BY age DESC')).score.passed).toBe(true);
  });

  it('permuted columns, 1 = 1.0, the evaluator dropping DISTINCT and its YEAR(CURDATE()) all match; other results do not', async () => {
    expect((await runSample('SELECT name, age FROM singer', 'SELECT age, name FROM singer')).score.passed).toBe(true);
    expect((await runSample('SELECT max(net_worth) FROM singer', 'SELECT 30 FROM singer LIMIT 1')).score.passed).toBe(true);
    expect((await runSample('SELECT DISTINCT country FROM singer', 'SELECT country FROM singer')).score.passed).toBe(true);
    // MySQL's YEAR(CURDATE()) runs as 2020, as in the evaluator.
    expect((await runSample('SELECT name FROM singer WHERE age < year(curdate()) - 1990', "SELECT 'Justin'")).score.passed).toBe(true);
    const wrong = await runSample('SELECT count(*) FROM singer', 'SELECT name FROM singer LIMIT 2');
    // The program ran to its end; the comparison says it is wrong, and the record reads failed, saying why.
    expect(wrong.result.status).toBe('passed');
    const failure = { type: 'WrongResult', message: 'the result sets differ: the predicted query returned 2 rows, the gold query 1 row' };
    expect(wrong.score).toEqual({ kind: 'status', passed: false, success: true, failure });
    expect(recordedRun(wrong.result, wrong.score)).toEqual({ status: 'failed', exception: failure });
  });

  it('a predicted query that fails, writes or runs forever is wrong, with its status saying why', async () => {
    const error = await runSample('SELECT count(*) FROM singer', 'SELECT count(*) FROM singers');
    expect(error.result.status).toBe('error');
    expect(error.result.exception?.message).toContain('no such table: singers');
    expect(error.score).toEqual({ kind: 'status', passed: false, success: false });
    // A run that failed keeps its own status and exception in the record.
    expect(recordedRun(error.result, error.score)).toEqual({ status: 'error', exception: error.result.exception });

    const write = await runSample('SELECT count(*) FROM singer', 'DELETE FROM singer');
    expect(write.result.status).toBe('error');
    expect(write.score.passed).toBe(false);
    expect((await runSample('SELECT count(*) FROM singer', 'SELECT 5')).score.passed).toBe(true); // nothing was deleted

    const forever = await runSample(
      'SELECT count(*) FROM singer',
      'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r',
      1_500,
    );
    expect(forever.result.status).toBe('timeout');
    expect(forever.score).toEqual({ kind: 'status', passed: false, success: false });
  }, 30_000);

  it('a gold query that fails is a problem with the dataset, not a wrong sample: the score refuses the task', async () => {
    const problem = spiderFamily.read(problemOf('SELECT nothing FROM singer'));
    const program = LANGUAGES.python.assemble({
      solution: spiderFamily.embedSolution(problem, 'SELECT 1'),
      tests: spiderFamily.tests(problem, null),
    });
    const result = await executor.run({ id: 'x', program, limits: { ...spiderFamily.limits(problem, null, 5_000) } });
    expect(result.status).toBe('error');
    expect(result.exception?.message).toContain('the gold query failed');
    expect(() => spiderFamily.score(problem, result)).toThrow(DatasetProblemError);
    expect(() => spiderFamily.score(problem, result)).toThrow(
      /^task Spider\/0: the gold query fails on .*\/concert_singer\/concert_singer\.sqlite \(OperationalError: .*\); a problem with the dataset/,
    );
  });

  describe("a test-suite folder: every file whose name holds '.sqlite' is run, as the evaluator runs them", () => {
    it('a query right on the first file only is wrong, naming the file where the results differ', async () => {
      const { result, score } = await runSample('SELECT count(*) FROM singer', 'SELECT 5', 5_000, 'suite_db');
      expect(result.status).toBe('passed');
      expect(score).toEqual({
        kind: 'status',
        passed: false,
        success: true,
        failure: {
          type: 'WrongResult',
          message: 'the result sets differ: the predicted query returned 1 row, the gold query 1 row on suite_db_b.sqlite',
        },
      });
    });

    it('a query with the gold denotation on every file is right', async () => {
      expect((await runSample('SELECT count(*) FROM singer', 'SELECT count(singer_id) FROM singer', 5_000, 'suite_db')).score).toEqual({
        kind: 'status',
        passed: true,
        success: true,
      });
    });

    it('a gold query that fails on one file of the suite refuses the task, naming that file', async () => {
      const attempt = runSample('SELECT count(*) FROM concert', 'SELECT 4', 5_000, 'suite_db');
      await expect(attempt).rejects.toThrow(DatasetProblemError);
      await expect(attempt).rejects.toThrow(
        /the gold query fails on .*\/suite_db\/suite_db_b\.sqlite \(OperationalError: no such table: concert\)/,
      );
    });
  });

  it('the database file on the host is the same after the runs', () => {
    expect(singerCount(databases)).toBe(5);
  });
});

describe('refusals', () => {
  it('a task whose database file is missing is named before anything runs', () => {
    const problems = [problemOf('SELECT 1', 'concert_singer'), problemOf('SELECT 1', 'pets_1'), problemOf('SELECT 2', 'pets_1')];
    const message = requirementsProblem([{ name: 'dev.jsonl', family: 'spider', problems }], (p) =>
      spiderFamily.requirements(spiderFamily.read(p)),
    );
    expect(message).toBe(
      `datasets[dev.jsonl] (family spider): 2 Spider's pets_1 task(s) need the file ${databases}/pets_1/pets_1.sqlite, ` +
        "which is missing or unreadable; check --spider-databases or the dataset's databases",
    );
    expect(
      requirementsProblem([{ name: 'd', family: 'spider', problems: problems.slice(0, 1) }], (p) =>
        spiderFamily.requirements(spiderFamily.read(p)),
      ),
    ).toBeNull();
  });

  it("a sweep entry's databases must be an absolute path", () => {
    const entry = { name: 'spider', family: 'spider', path: 'dev.json' };
    expect(SpiderEntrySchema.safeParse({ ...entry, databases: databases }).success).toBe(true);
    const relative = SpiderEntrySchema.safeParse({ ...entry, databases: 'spider/database' });
    expect(relative.success).toBe(false);
    expect(relative.error?.issues[0]).toMatchObject({ path: ['databases'], message: expect.stringContaining('an absolute path') });
  });

  it('--spider-databases on another family is refused naming the flag', () => {
    const mbpp = JSON.stringify({
      task_id: 1,
      text: 't',
      code: 'def f():\n    return 1',
      test_list: ['assert f() == 1'],
      test_setup_code: '',
      challenge_test_list: [],
    });
    expect(() => loadEvaluateProblems({ text: mbpp + '\n', source: 'mbpp.jsonl', options: { databases } })).toThrow(
      /--spider-databases: only spider problems read it, and mbpp.jsonl is read as mbpp/,
    );
  });
});
