/**
 * CoNaLa, Concode and Spider (BLEU), the one-line families: their rows as the owners publish them
 * (Hugging Face's Parquet as written by pyarrow with the datasets schema, JSON Lines, the original
 * JSON arrays) load to the same problems; prompts, post-processing and the corpus BLEU of each
 * task's first sample equal bigcode's, computed in Python (test/families/oneline_reference.py:
 * bigcode's get_prompt / two_shot_prompt / postprocess_generation, sacrebleu 2.4.3's 13a tokens
 * and statistics, nmt's smoothed step; max order 4) to 1e-9; bad rows are refused naming file,
 * line and field; evaluate.ts recognises each family's rows.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FAMILIES } from '../../domain/families/registry.js';
import { CorpusFold, textCheckingOf, textScore } from '../../domain/sweep/textScores.js';
import { datasetText } from '../../infra/datasetText.js';
import { loadEvaluateProblems, recognizeFamily } from '../../scripts/lib/evaluate-problems.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { CONALA_ROWS, CONCODE_ROWS, jsonl, ONE_LINE_GENERATIONS, SPIDER_ROWS } from '../support/oneline-rows.js';

const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const parquet = (file: string) => path.resolve(import.meta.dirname, '../support/parquet', file);

const CASES = {
  conala: { rows: CONALA_ROWS, file: parquet('conala-test-00000-of-00001.parquet'), prefix: 'CoNaLa' },
  concode: { rows: CONCODE_ROWS, file: parquet('concode-validation-00000-of-00001.parquet'), prefix: 'Concode' },
  spider: { rows: SPIDER_ROWS, file: parquet('spider-validation-00000-of-00001.parquet'), prefix: 'Spider' },
} as const;
type Id = keyof typeof CASES;
const IDS = Object.keys(CASES) as Id[];

const load = (id: Id, text: string, source = 'rows.jsonl') =>
  FAMILIES[id].load({ entry: { name: 'd', family: id, path: source } as never, texts: { rows: text }, sources: { rows: source } }).problems;

let reference: Record<
  Id,
  { prompts: string[]; predictions: string[]; bleu: { bleu: number; precisions: number[]; brevity_penalty: number } }
>;

beforeAll(() => {
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'inherit' });
  const script = path.resolve(import.meta.dirname, 'oneline_reference.py');
  reference = Object.fromEntries(
    IDS.map((id) => [
      id,
      JSON.parse(
        execFileSync(PYTHON, [script], {
          input: JSON.stringify({ family: id, rows: CASES[id].rows, generations: ONE_LINE_GENERATIONS[id] }),
        }).toString(),
      ),
    ]),
  ) as typeof reference;
}, 600_000);

describe.each(IDS)('%s', (id) => {
  const { rows, file, prefix } = CASES[id];

  it("loads Hugging Face's Parquet, JSON Lines and a JSON array alike: ids by position, the reference kept", async () => {
    const fromJsonl = load(id, jsonl(rows));
    expect(load(id, await datasetText(readFileSync(file), file), file)).toEqual(fromJsonl);
    expect(load(id, JSON.stringify(rows, null, 1), 'dev.json')).toEqual(fromJsonl);
    expect(fromJsonl.map((p) => p.task_id)).toEqual(rows.map((_, i) => `${prefix}/${i}`));
    expect(fromJsonl.map((p) => textCheckingOf(p)!.reference)).toEqual(
      rows.map((r) => ('snippet' in r ? r.snippet : 'code' in r ? r.code : r.query)),
    );
    expect(FAMILIES[id].stopWords({} as never)).toEqual(['\n']);
  });

  it("prompts, post-processing and corpus BLEU of each task's first sample are bigcode's, to 1e-9", () => {
    const problems = load(id, jsonl(rows));
    const family = FAMILIES[id];
    expect(problems.map((p) => family.completionPrompt(p))).toEqual(reference[id].prompts);
    const fold = new CorpusFold(textCheckingOf(problems[0]!)!.metric);
    const predictions: string[] = [];
    problems.forEach((p, t) => {
      ONE_LINE_GENERATIONS[id][t]!.forEach((g, s) => {
        // As a sweep's completions: cut at the stop word, then the family's solution.
        const solution = family.solution(p, 'completions', g.split('\n')[0]!);
        if (s === 0) predictions.push(solution);
        fold.add(textScore(textCheckingOf(p)!, solution).stats, s === 0);
      });
    });
    expect(predictions).toEqual(reference[id].predictions);
    const figures = fold.result()!.figures;
    const expected = reference[id].bleu;
    expect(expected.bleu).toBeGreaterThan(0);
    expect(expected.bleu).toBeLessThan(1);
    expect(Math.abs((figures.bleu as number) - expected.bleu)).toBeLessThan(1e-9);
    (figures.precisions as number[]).forEach((p, i) => expect(Math.abs(p - expected.precisions[i]!)).toBeLessThan(1e-9));
    expect(Math.abs((figures.brevity_penalty as number) - expected.brevity_penalty)).toBeLessThan(1e-9);
  });

  it('saved generations (bigcode post-processed, or raw prompt + completion) and chat answers become the same line', () => {
    const [p] = load(id, jsonl(rows));
    const family = FAMILIES[id];
    const answer = reference[id].predictions[0]!;
    expect(family.solution(p!, 'saved', `  ${answer}\n`)).toBe(answer);
    expect(family.solution(p!, 'saved', `${p!.prompt}${answer}\n`)).toBe(answer);
    expect(family.solution(p!, 'chat', `\n  ${answer}  \nmore\n`)).toBe(answer);
  });

  it('evaluate.ts recognises its rows (JSON Lines and Parquet) and reads them as the sweep does', async () => {
    expect(recognizeFamily(jsonl(rows), 'rows.jsonl')).toBe(id);
    const text = await datasetText(readFileSync(file), file);
    const loaded = loadEvaluateProblems({ text, source: file });
    expect(loaded).toMatchObject({ family: id, form: 'full' });
    expect(loaded.problems).toEqual(load(id, jsonl(rows)));
  });
});

describe('bad rows are refused naming the file, the line and the field', () => {
  it('a missing or mistyped field', () => {
    const bad = (rows: readonly object[], i: number, patch: object) => jsonl(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
    expect(() => load('conala', bad(CONALA_ROWS, 2, { snippet: undefined }), 'conala.jsonl')).toThrow(/^conala\.jsonl:3: snippet: /);
    expect(() => load('conala', bad(CONALA_ROWS, 1, { intent: 7 }), 'conala.jsonl')).toThrow(/^conala\.jsonl:2: intent: /);
    expect(() => load('concode', bad(CONCODE_ROWS, 0, { nl: null }), 'dev.jsonl')).toThrow(/^dev\.jsonl:1: nl: /);
    expect(() => load('spider', bad(SPIDER_ROWS, 2, { db_id: '' }), 'dev.json')).toThrow(/^dev\.json:3: db_id: /);
    expect(() => load('spider', JSON.stringify([SPIDER_ROWS[0], { ...SPIDER_ROWS[1], query: 3 }]), 'dev.json')).toThrow(
      /^dev\.json:2: query: /,
    );
    expect(() => load('conala', '', 'conala.jsonl')).toThrow('conala.jsonl has no tasks');
  });
});
