/**
 * CodeXGLUE text-to-text (bigcode's codexglue_text_to_text-<pair>): its rows as Hugging Face
 * publishes them (code_x_glue_tt_text_to_text: id, source, target; JSON Lines or a JSON array) load
 * to problems whose prompts, post-processing and corpus BLEU of each task's first sample equal
 * bigcode's, computed in Python (test/families/text_to_text_reference.py: bigcode's get_prompt,
 * two_shot_prompt, get_reference and postprocess_generation; sacrebleu 2.4.3's 13a tokens and
 * statistics, nmt's smoothed step) to 1e-9, for every pair; bad rows and entries are refused naming
 * the file, line and field; evaluate.ts recognises the rows and needs --subset to know the pair.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FAMILIES } from '../../domain/families/registry.js';
import { TEXT_TO_TEXT_PAIRS, textToTextFamily, type TextToTextPair } from '../../domain/families/text-to-text/index.js';
import { CorpusFold, textCheckingOf, textScore } from '../../domain/sweep/textScores.js';
import { loadEvaluateProblems, recognizeFamily } from '../../scripts/lib/evaluate-problems.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { jsonl } from '../support/oneline-rows.js';
import { TEXT_TO_TEXT_GENERATIONS, TEXT_TO_TEXT_ROWS } from '../support/text-to-text-rows.js';

const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');

const load = (subset: TextToTextPair, text: string, source = 'rows.jsonl') =>
  textToTextFamily.load({
    entry: { name: 'd', family: 'text-to-text', path: source, subset },
    texts: { rows: text },
    sources: { rows: source },
  }).problems;

let reference: Record<
  TextToTextPair,
  { prompts: string[]; predictions: string[]; references: string[]; bleu: { bleu: number; precisions: number[]; brevity_penalty: number } }
>;

beforeAll(() => {
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'inherit' });
  const script = path.resolve(import.meta.dirname, 'text_to_text_reference.py');
  reference = Object.fromEntries(
    TEXT_TO_TEXT_PAIRS.map((pair) => [
      pair,
      JSON.parse(
        execFileSync(PYTHON, [script], {
          input: JSON.stringify({ pair, rows: TEXT_TO_TEXT_ROWS[pair], generations: TEXT_TO_TEXT_GENERATIONS[pair] }),
        }).toString(),
      ),
    ]),
  ) as typeof reference;
}, 600_000);

describe.each(TEXT_TO_TEXT_PAIRS)('codexglue_text_to_text-%s', (pair) => {
  const rows = TEXT_TO_TEXT_ROWS[pair];

  it("prompts, references, post-processing and corpus BLEU of each task's first sample are bigcode's, to 1e-9", () => {
    const problems = load(pair, jsonl(rows));
    expect(problems.map((p) => p.task_id)).toEqual(rows.map((_, i) => `codexglue_text_to_text-${pair}/${i}`));
    expect(problems.map((p) => textToTextFamily.completionPrompt(p))).toEqual(reference[pair].prompts);
    expect(problems.map((p) => textCheckingOf(p)!.reference)).toEqual(reference[pair].references);
    const fold = new CorpusFold(textCheckingOf(problems[0]!)!.metric);
    const predictions: string[] = [];
    problems.forEach((p, t) => {
      TEXT_TO_TEXT_GENERATIONS[pair][t]!.forEach((g, s) => {
        // As a sweep's completions: cut at the stop word, then the family's solution.
        const solution = textToTextFamily.solution(p, 'completions', g.split('\n')[0]!);
        if (s === 0) predictions.push(solution);
        fold.add(textScore(textCheckingOf(p)!, solution).stats, s === 0);
      });
    });
    expect(predictions).toEqual(reference[pair].predictions);
    const figures = fold.result()!.figures;
    const expected = reference[pair].bleu;
    expect(expected.bleu).toBeGreaterThan(0);
    expect(expected.bleu).toBeLessThan(1);
    expect(Math.abs((figures.bleu as number) - expected.bleu)).toBeLessThan(1e-9);
    (figures.precisions as number[]).forEach((p, i) => expect(Math.abs(p - expected.precisions[i]!)).toBeLessThan(1e-9));
    expect(Math.abs((figures.brevity_penalty as number) - expected.brevity_penalty)).toBeLessThan(1e-9);
  });

  it('a JSON array reads as JSON Lines; stop words are a newline', () => {
    expect(load(pair, JSON.stringify(rows, null, 1), 'test.json')).toEqual(load(pair, jsonl(rows)));
    expect(textToTextFamily.stopWords({} as never)).toEqual(['\n']);
  });

  it('evaluate.ts recognises the rows and reads them as the sweep does, given the pair with --subset', () => {
    expect(recognizeFamily(jsonl(rows), 'test.jsonl')).toBe('text-to-text');
    const loaded = loadEvaluateProblems({ text: jsonl(rows), source: 'test.jsonl', options: { subset: pair } });
    expect(loaded).toMatchObject({ family: 'text-to-text', form: 'full' });
    expect(loaded.problems).toEqual(load(pair, jsonl(rows), 'test.jsonl'));
  });
});

describe('answers', () => {
  const [p] = load('da_en', jsonl(TEXT_TO_TEXT_ROWS.da_en));
  it('saved generations (post-processed, or raw prompt + completion) and chat answers become the same line', () => {
    const answer = 'Specify the account .';
    expect(textToTextFamily.solution(p!, 'saved', `  ${answer}\n`)).toBe(answer);
    expect(textToTextFamily.solution(p!, 'saved', `${p!.prompt}${answer}\n`)).toBe(answer);
    expect(textToTextFamily.solution(p!, 'chat', `\n  ${answer}  \nmore\n`)).toBe(answer);
  });
  it("a raw generation that goes on past the answer keeps what follows the prompt's third English: (bigcode's maxsplit 3)", () => {
    expect(textToTextFamily.solution(p!, 'saved', `${p!.prompt}Done .\nEnglish:\nmore `)).toBe('Done .\nEnglish:\nmore');
  });
});

describe('bad rows and entries are refused naming the file, the line and the field', () => {
  const rows = TEXT_TO_TEXT_ROWS.da_en;
  const bad = (i: number, patch: object) => jsonl(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  it('a missing or mistyped field, no rows', () => {
    expect(() => load('da_en', bad(1, { target: undefined }), 'da.jsonl')).toThrow(/^da\.jsonl:2: target: /);
    expect(() => load('da_en', bad(2, { source: 5 }), 'da.jsonl')).toThrow(/^da\.jsonl:3: source: /);
    expect(() => load('da_en', JSON.stringify([rows[0], { ...rows[1], target: null }]), 'test.json')).toThrow(/^test\.json:2: target: /);
    expect(() => load('da_en', '', 'da.jsonl')).toThrow('da.jsonl has no tasks');
  });
  it('an entry without a known pair', () => {
    const entry = { name: 'tt', family: 'text-to-text', path: 'test.jsonl' };
    expect(() => FAMILIES['text-to-text'].entrySchema.parse({ ...entry, subset: 'de_en' })).toThrow(
      /must be one of bigcode's pairs: da_en/,
    );
    expect(() => FAMILIES['text-to-text'].entrySchema.parse(entry)).toThrow(/subset/);
    expect(() => FAMILIES['text-to-text'].entrySchema.parse({ ...entry, subset: 'da_en', path: 'test.csv' })).toThrow(/path/);
  });
  it('evaluate.ts without --subset, or with an unknown one', () => {
    const text = jsonl(rows);
    expect(() => loadEvaluateProblems({ text, source: 'test.jsonl' })).toThrow(
      /^--subset: CodeXGLUE text-to-text rows do not say their language/,
    );
    expect(() => loadEvaluateProblems({ text, source: 'test.jsonl', options: { subset: 'python' } })).toThrow(
      '--subset: must be one of "da_en", "zh_en", "no_en", "lv_en", got a string ("python")',
    );
  });
});
