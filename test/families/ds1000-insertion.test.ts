/**
 * DS-1000's insertion mode (bigcode's ds1000-<subset>-insertion): rows whose prompt holds the
 * original format's [insert]; the FIM prompt of each task, byte for byte what bigcode's get_prompt
 * and _make_infill_prompt make (computed by their Python lines here) for StarCoder's and
 * SantaCoder's tokens and with Qwen2.5-Coder's; bigcode's postprocessing; the config refusing
 * models and methods that cannot fill in the middle, and `mode: completion` hashing as before; and
 * the insertion programs of the reference solutions and samples in the real sandbox.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ds1000Family,
  Ds1000EntrySchema,
  ds1000InsertionParts,
  ds1000InsertionPostprocess,
  type Ds1000Entry,
} from '../../domain/families/ds1000/index.js';
import { LANGUAGES } from '../../domain/languages/registry.js';
import { FIM_PRESETS, fimPrompt, type FimTokens } from '../../domain/llm/fim.js';
import { parseSweepConfig, sweepConfigHash } from '../../domain/sweep/config.js';
import { PythonExecutor } from '../../infra/sandbox/pythonExecutor.js';
import { directRequestBody } from '../../methods/direct/request.js';
import {
  DS1000_INSERTION_SAMPLES,
  DS1000_MATPLOTLIB_LINE,
  DS1000_TASKS,
  ds1000InsertionJsonl,
  ds1000Jsonl,
  insertionPrompt,
} from '../support/ds1000-rows.js';

const PYTHON = '/root/.pyenv/versions/3.11.7/bin/python3';
const entry = (extra: Record<string, unknown> = {}): Ds1000Entry =>
  Ds1000EntrySchema.parse({ name: 'ds1000', family: 'ds1000', path: 'ds1000.jsonl', ...extra });
const load = (text: string, extra: Record<string, unknown> = { mode: 'insertion' }) =>
  ds1000Family.load({ entry: entry(extra), texts: { rows: text }, sources: { rows: 'ds1000.jsonl' } });

/** bigcode's lines, run in Python: GeneralDS1000.get_prompt (insertion), _make_infill_prompt's layout, postprocess_generation. */
function bigcode(prompt: string, tokens: FimTokens, generation: string): { fim: string; post: string } {
  const script = `
import json, sys
d = json.load(sys.stdin)
prefix, suffix = d["prompt"].split("[insert]")
prefix = f"{prefix.strip()}\\n"
suffix = f"\\n{suffix.strip()}\\n"
t = d["tokens"]
fim = f"{t['prefix']}{prefix}{t['suffix']}{suffix}{t['middle']}"
g = d["generation"]
for stop in ["</code>", "# SOLUTION END"]:
    g = g.split(stop)[0]
print(json.dumps({"fim": fim, "post": g.strip()}))
`;
  const out = execFileSync(PYTHON, ['-c', script], { input: JSON.stringify({ prompt, tokens, generation }) });
  return JSON.parse(out.toString()) as { fim: string; post: string };
}

const sampling = (fim?: FimTokens) => ({ model: 'm', temperature: 0, top_p: 1, max_tokens: 64, ...(fim ? { fim } : {}) });

describe('DS-1000 insertion rows and prompts', () => {
  it("each task's FIM prompt and postprocessing are bigcode's, for each preset's tokens", () => {
    const problems = load(ds1000InsertionJsonl(DS1000_TASKS)).problems;
    expect(problems.map((p) => p.task_id)).toEqual(['0', '1']);
    for (const [i, task] of DS1000_TASKS.entries()) {
      const problem = problems[i]!;
      expect(problem.prompt).toBe(insertionPrompt(task));
      for (const tokens of Object.values(FIM_PRESETS)) {
        for (const { answer } of DS1000_INSERTION_SAMPLES[task.problem_id]!) {
          const want = bigcode(insertionPrompt(task), tokens, answer);
          const body = directRequestBody(problem, 'completions', sampling(tokens), 0);
          expect('prompt' in body && body.prompt).toBe(want.fim);
          expect(ds1000Family.solution(problem, 'completions', answer)).toBe(want.post);
        }
      }
    }
    expect(ds1000InsertionParts('a\n  [insert]  \nb')).toEqual({ prefix: 'a\n', suffix: '\nb\n' });
    expect(ds1000InsertionPostprocess('  x = 1\n# SOLUTION END\ny')).toBe('x = 1');
    // A template's prefix goes after the FIM prefix token, where bigcode puts its --prefix.
    const withPrefix = directRequestBody(
      problems[0]!,
      'completions',
      { ...sampling(FIM_PRESETS.starcoder), prompt: { prefix: '# P\n' } },
      0,
    );
    expect('prompt' in withPrefix && withPrefix.prompt).toBe(
      fimPrompt(FIM_PRESETS.starcoder, ds1000InsertionParts(problems[0]!.prompt), '# P\n'),
    );
  });

  it('completion mode is as before: the prompt continued, no payload stored; the same rows give other prompts', () => {
    const completion = load(ds1000Jsonl(DS1000_TASKS), {}).problems;
    expect(JSON.stringify(completion[0])).not.toContain('"mode"');
    expect(ds1000Family.infill?.(completion[0]!)).toBeUndefined();
    const body = directRequestBody(completion[0]!, 'completions', sampling(FIM_PRESETS.starcoder), 0);
    expect('prompt' in body && body.prompt).toBe(DS1000_TASKS[0]!.prompt);
    expect(ds1000Family.solution(completion[0]!, 'completions', '<code>result = 1\nEND SOLUTION')).toBe('result = 1');
    expect(ds1000Family.fillsInTheMiddle?.(entry())).toBe(false);
    expect(ds1000Family.fillsInTheMiddle?.(entry({ mode: 'insertion' }))).toBe(true);
    // An insertion problem without FIM tokens in its sampling cannot be asked.
    const insertion = load(ds1000InsertionJsonl(DS1000_TASKS)).problems[0]!;
    expect(() => directRequestBody(insertion, 'completions', sampling(), 0)).toThrow('task 0 fills in the middle');
  });

  it('Matplotlib tasks are left out with a note; a prompt without one [insert] is named by file, line and field', () => {
    const loaded = load(ds1000InsertionJsonl(DS1000_TASKS) + DS1000_MATPLOTLIB_LINE + '\n');
    expect(loaded.problems.map((p) => p.task_id)).toEqual(['0', '1']);
    expect(loaded.notes).toEqual(['ds1000.jsonl: 1 Matplotlib task(s) left out: insertion mode has none (as bigcode)']);
    expect(() => load(DS1000_MATPLOTLIB_LINE + '\n', { mode: 'insertion', libraries: ['Matplotlib'] })).toThrow(
      'ds1000.jsonl: no task of Matplotlib in insertion mode (Matplotlib has none)',
    );
    const lines = ds1000InsertionJsonl(DS1000_TASKS).split('\n');
    expect(() => load(`${lines[0]}\n${DS1000_TASKS[1]!.line}\n`)).toThrow(
      "ds1000.jsonl:2: prompt: mode: insertion needs a prompt with one [insert] (the original format's Insertion prompt, " +
        'see docs/datasets/ds1000.md); this one has 0 (a completion prompt: leave mode out)',
    );
    const twice = JSON.stringify({ ...JSON.parse(lines[0]!), prompt: 'a[insert]b[insert]c' });
    expect(() => load(`${twice}\n`)).toThrow('ds1000.jsonl:1: prompt: mode: insertion needs a prompt with one [insert]');
  });
});

describe('the sweep config and fill-in-the-middle datasets', () => {
  const config = (dataset: Record<string, unknown>, models: Array<Record<string, unknown>>, methods = ['direct']) => ({
    datasets: [{ name: 'ds', family: 'ds1000', path: 'ds1000.jsonl', ...dataset }],
    models: models.map((m, i) => ({ id: `m${i}`, base_url: 'http://127.0.0.1:8080/v1', model: 'x', ...m })),
    methods,
    temperatures: [0.2],
    n_samples: 1,
    k: [1],
  });
  const sha = (s: string) => createHash('sha256').update(s).digest('hex');
  const issues = (value: unknown): string => {
    try {
      parseSweepConfig(value, 'sweep.yaml');
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('the config was accepted');
  };

  it('mode: completion hashes as a config without the option; fim presets resolve to their tokens', () => {
    const base = parseSweepConfig(config({}, [{ api: 'completions' }]));
    expect(sweepConfigHash(parseSweepConfig(config({ mode: 'completion' }, [{ api: 'completions' }])), sha)).toBe(
      sweepConfigHash(base, sha),
    );
    expect(base.models[0]).not.toHaveProperty('fim');
    const fim = parseSweepConfig(config({ mode: 'insertion' }, [{ api: 'completions', fim: 'qwen2.5-coder' }]));
    expect(fim.models[0]!.fim).toEqual({ prefix: '<|fim_prefix|>', suffix: '<|fim_suffix|>', middle: '<|fim_middle|>' });
    expect(fim.datasets[0]).toMatchObject({ mode: 'insertion' });
    const explicit = { prefix: '<PRE>', suffix: '<SUF>', middle: '<MID>' };
    expect(parseSweepConfig(config({ mode: 'insertion' }, [{ api: 'completions', fim: explicit }])).models[0]!.fim).toEqual(explicit);
    // The resolved config validates to itself.
    expect(parseSweepConfig(JSON.parse(JSON.stringify(fim)))).toEqual(fim);
  });

  it('refuses chat models, completion models without FIM tokens, other methods and bad tokens, naming the field', () => {
    const message = issues(
      config(
        { mode: 'insertion' },
        [{ api: 'chat' }, { api: 'completions' }, { api: 'completions', fim: 'starcoder' }],
        ['direct', 'self-repair'],
      ),
    );
    expect(message).toContain(
      'models[0].api: datasets[0] (ds) fills in the middle: a chat model cannot take it; give the model api: completions and ' +
        'fim: starcoder | santacoder | qwen2.5-coder (or fim: {prefix, suffix, middle}, its FIM tokens), or list this model in another sweep',
    );
    expect(message).toContain(
      'models[1].fim: datasets[0] (ds) fills in the middle: the model needs its FIM tokens; give the model api: completions',
    );
    expect(message).not.toMatch(/models\[2\]\.(fim|api): datasets/);
    expect(message).toContain('methods[1]: datasets[0] (ds) fills in the middle: method self-repair has no fill-in-the-middle prompts');
    expect(issues(config({ mode: 'insertion' }, [{ api: 'completions', fim: 'codex' }]))).toContain(
      'models[0].fim: must be one of starcoder, santacoder, qwen2.5-coder, or {prefix, suffix, middle}',
    );
    expect(issues(config({ mode: 'infill' }, [{ api: 'completions' }]))).toContain('datasets[0].mode');
    expect(issues(config({}, [{ fim: 'starcoder' }]))).toContain(
      'models[0].fim: FIM tokens go into completion prompts: give api: completions, or leave fim out',
    );
    // Completion mode asks nothing of the models.
    expect(() => parseSweepConfig(config({}, [{ api: 'chat' }]))).not.toThrow();
  });
});

describe('DS-1000 insertion programs in the sandbox (numpy, pandas)', () => {
  let executor: PythonExecutor;
  beforeAll(async () => {
    executor = new PythonExecutor({ limits: { timeoutMs: 60_000 } });
    await executor.start();
  });
  afterAll(() => executor.close());

  it("references pass; each middle passes or fails as the task's code_context says", async () => {
    const problems = load(ds1000InsertionJsonl(DS1000_TASKS)).problems;
    const runs = DS1000_TASKS.flatMap((t, i) => [
      { what: `${t.problem_id} reference`, solution: ds1000Family.referenceSolution(problems[i]!)!, passed: true, problem: problems[i]! },
      ...DS1000_INSERTION_SAMPLES[t.problem_id]!.map((s) => ({
        what: `${t.problem_id} ${s.what}`,
        solution: ds1000Family.solution(problems[i]!, 'completions', s.answer),
        passed: s.passed,
        problem: problems[i]!,
      })),
    ]);
    const results = await executor.runMany(
      runs.map((r) => ({
        id: r.what,
        program: LANGUAGES.python.assemble({
          solution: ds1000Family.embedSolution(r.problem, r.solution),
          tests: ds1000Family.tests(r.problem, null),
        }),
      })),
    );
    expect(results.map((r, i) => [runs[i]!.what, ds1000Family.score(runs[i]!.problem, r).passed])).toEqual(
      runs.map((r) => [r.what, r.passed]),
    );
  });
});
