/**
 * SantaCoder FIM (bigcode's santacoder_fim / starcoder_fim): rows in bigcode/santacoder-fim-task's
 * format (made as MultiPL-E's dataset builder makes them), bad rows named by file, line and field;
 * the FIM prompt byte for byte what bigcode's get_prompt makes (its Python line, run here) for
 * SantaCoder's and StarCoder's tokens and with Qwen2.5-Coder's; bigcode's postprocessing (cut at
 * the first stop word) and its per-language exact match on crafted samples.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  exactlyMatches,
  readSantaCoderFimRows,
  santaCoderFimPostprocess,
  SANTACODER_FIM_STOP_WORDS,
} from '../../domain/families/santacoder-fim/rows.js';
import { FIM_PRESETS, fimPrompt, type FimTokens } from '../../domain/llm/fim.js';
import { fimExactMatch } from '../../domain/metrics/exactMatch.js';
import { FIM_ROWS, fimJsonl } from '../support/santacoder-fim-rows.js';
import { FIM_EXACT_MATCH, santaCoderFimFamily, SantaCoderFimEntrySchema } from '../../domain/families/santacoder-fim/index.js';
import { parseSweepConfig } from '../../domain/sweep/config.js';
import { directRequestBody } from '../../methods/direct/request.js';

const PYTHON = '/root/.pyenv/versions/3.11.7/bin/python3';

/** bigcode's SantaCoderFIM.get_prompt and _stop_at_stop_token, in Python, for each case. */
type Case = { doc: { prompt: string; suffix: string }; tokens: FimTokens; output: string };
function bigcode(cases: Case[], stops: readonly string[]): Array<{ prompt: string; post: string }> {
  const script = `
import json, sys
d = json.load(sys.stdin)
def _stop_at_stop_token(decoded_string, stop_tokens):
    min_stop_index = len(decoded_string)
    for stop_token in stop_tokens:
        stop_index = decoded_string.find(stop_token)
        if stop_index != -1 and stop_index < min_stop_index:
            min_stop_index = stop_index
    return decoded_string[:min_stop_index]
out = []
for c in d["cases"]:
    doc, t = c["doc"], c["tokens"]
    prompt = f"""{t['prefix']}{doc["prompt"]}{t['suffix']}{doc["suffix"]}{t['middle']}"""
    generation = prompt + c["output"]
    out.append({"prompt": prompt, "post": _stop_at_stop_token(generation[len(prompt):], d["stops"])})
print(json.dumps(out))
`;
  const out = execFileSync(PYTHON, ['-c', script], { input: JSON.stringify({ cases, stops }) });
  return JSON.parse(out.toString()) as Array<{ prompt: string; post: string }>;
}

describe('SantaCoder FIM rows, prompts and exact match', () => {
  it('reads the rows as published; the names are the task ids', () => {
    const rows = readSantaCoderFimRows(fimJsonl(FIM_ROWS), 'fim.jsonl');
    expect(rows.map(({ row }) => row.name)).toEqual(FIM_ROWS.map((r) => r.name));
    expect(rows[0]!.row).toEqual(FIM_ROWS[0]);
  });

  it('a bad row is named by file, line and field', () => {
    const good = JSON.stringify(FIM_ROWS[0]);
    const bad = (change: (r: Record<string, unknown>) => void) => {
      const r: Record<string, unknown> = { ...FIM_ROWS[1]! };
      change(r);
      return JSON.stringify(r);
    };
    expect(() => readSantaCoderFimRows(`${good}\n${bad((r) => delete r.suffix)}\n`, 'fim.jsonl')).toThrow(
      'fim.jsonl:2: suffix: missing: a row of bigcode/santacoder-fim-task has name, language, prompt, suffix, canonical_solution and tests',
    );
    expect(() => readSantaCoderFimRows(`${good}\n${bad((r) => (r.language = 'rb'))}\n`, 'fim.jsonl')).toThrow(
      'fim.jsonl:2: language: must be one of py, js, java',
    );
    expect(() => readSantaCoderFimRows(`${good}\n${good}\n`, 'fim.jsonl')).toThrow(
      `fim.jsonl:2: duplicate task_id ${FIM_ROWS[0]!.name} (first on line 1)`,
    );
  });

  it("the prompt and the postprocessing are bigcode's for each preset's tokens", () => {
    const outputs = ['    total = x + y\n<|endoftext|>junk', '  return n;<file_sep>x<|filename|>y', 'no stop at all\n'];
    const cases = FIM_ROWS.flatMap((doc) =>
      Object.values(FIM_PRESETS).flatMap((tokens) => outputs.map((output) => ({ doc, tokens, output }))),
    );
    const want = bigcode(cases, SANTACODER_FIM_STOP_WORDS);
    expect(cases.map((c) => fimPrompt(c.tokens, { prefix: c.doc.prompt, suffix: c.doc.suffix }))).toEqual(want.map((w) => w.prompt));
    expect(cases.map((c) => santaCoderFimPostprocess(c.output))).toEqual(want.map((w) => w.post));
  });

  it('exact match: stripped sample against stripped reference, the share of right samples per language', () => {
    expect(exactlyMatches('  total = x + y\n', '    total = x + y')).toBe(true);
    expect(exactlyMatches('total = x+y', '    total = x + y')).toBe(false);
    // Python's strip() also takes U+001C..U+001F and U+0085, which JavaScript's trim() keeps.
    expect(exactlyMatches('return n;\u001f\u0085', 'return n;')).toBe(true);
    const tasks = [
      { language: 'py', reference: FIM_ROWS[0]!.canonical_solution, samples: ['total = x + y', 'total = y + x'] },
      { language: 'js', reference: FIM_ROWS[2]!.canonical_solution, samples: ['let n = 0;\n', 'let n = 0;', 'var n = 0;'] },
    ];
    expect(fimExactMatch(tasks)).toEqual({ 'py Exact Match': 0.5, 'js Exact Match': 2 / 3, 'java Exact Match': 0 });
  });
});

describe('the SantaCoder FIM family', () => {
  const load = (extra: Record<string, unknown> = {}) =>
    santaCoderFimFamily.load({
      entry: SantaCoderFimEntrySchema.parse({ name: 'fim', family: 'santacoder-fim', path: 'fim.parquet', ...extra }),
      texts: { rows: fimJsonl(FIM_ROWS) },
      sources: { rows: 'fim.parquet' },
    }).problems;

  it('problems: the row name as task id, the FIM prompt of prompt and suffix with the model tokens, languages filtered', () => {
    const problems = load();
    expect(problems.map((p) => p.task_id)).toEqual(FIM_ROWS.map((r) => r.name));
    const body = directRequestBody(
      problems[0]!,
      'completions',
      { model: 'm', temperature: 0, top_p: 1, max_tokens: 8, fim: FIM_PRESETS.santacoder },
      0,
    );
    expect('prompt' in body && body.prompt).toBe(`<fim-prefix>${FIM_ROWS[0]!.prompt}<fim-suffix>${FIM_ROWS[0]!.suffix}<fim-middle>`);
    expect(problems.map((p) => santaCoderFimFamily.language(p))).toContain('java');
    expect(load({ languages: ['js'] }).map((p) => p.task_id)).toEqual(FIM_ROWS.filter((r) => r.language === 'js').map((r) => r.name));
    expect(santaCoderFimFamily.stopWords(SantaCoderFimEntrySchema.parse({ name: 'f', family: 'santacoder-fim', path: 'f.jsonl' }))).toEqual(
      SANTACODER_FIM_STOP_WORDS,
    );
  });

  it("each sample's statistics, summed, give bigcode's per-language exact match (fimExactMatch)", () => {
    const problems = load();
    const answers = ['total = x + y\n', '<|endoftext|>', '    let n = 0;<|filename|>x', 'return n;', '        return a;', '  }  '];
    const tasks = problems.map((p, i) => ({ problem: p, samples: [answers[i % answers.length]!, FIM_ROWS[i]!.canonical_solution] }));
    const sums: Record<string, number> = {};
    for (const { problem, samples } of tasks) {
      const checking = santaCoderFimFamily.checking(problem);
      if (checking.kind !== 'text') throw new Error('not text-scored');
      expect(checking.metric).toBe(FIM_EXACT_MATCH);
      expect(checking.reference).toBe(problem.canonical_solution);
      for (const sample of samples) {
        for (const [k, v] of Object.entries(checking.stats(santaCoderFimFamily.solution(problem, 'completions', sample))))
          sums[k] = (sums[k] ?? 0) + v;
      }
    }
    const want = fimExactMatch(
      tasks.map(({ problem, samples }, i) => ({
        language: FIM_ROWS[i]!.language,
        reference: problem.canonical_solution!,
        samples: samples.map((s) => santaCoderFimPostprocess(s)),
      })),
    );
    const figures = FIM_EXACT_MATCH.figures(sums, 2 * tasks.length);
    expect(Object.fromEntries(Object.entries(figures).filter(([k]) => k !== 'Exact Match'))).toEqual(want);
    expect(want['py Exact Match']).toBeGreaterThan(0.5);
    expect(want['js Exact Match']).toBeLessThan(1);
    const rightAll = tasks.flatMap(({ problem, samples }) =>
      samples.map((s) => exactlyMatches(santaCoderFimPostprocess(s), problem.canonical_solution!)),
    );
    expect(figures['Exact Match']).toBeCloseTo(rightAll.filter(Boolean).length / rightAll.length, 12);
  });

  it('a sweep config refuses chat models and completion models without FIM tokens for it', () => {
    const config = (model: Record<string, unknown>) => ({
      datasets: [{ name: 'fim', family: 'santacoder-fim', path: 'fim.parquet' }],
      models: [{ id: 'm', base_url: 'http://127.0.0.1:8080/v1', model: 'x', ...model }],
      methods: ['direct'],
      temperatures: [0.2],
      n_samples: 1,
      k: [1],
    });
    expect(() => parseSweepConfig(config({ api: 'chat' }))).toThrow(
      'models[0].api: datasets[0] (fim) fills in the middle: a chat model cannot take it',
    );
    expect(() => parseSweepConfig(config({ api: 'completions' }))).toThrow('models[0].fim: datasets[0] (fim) fills in the middle');
    expect(parseSweepConfig(config({ api: 'completions', fim: 'starcoder' })).models[0]!.fim).toEqual(FIM_PRESETS.starcoder);
  });
});
