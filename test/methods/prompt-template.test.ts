/**
 * Prompt templates (`models[i].prompt`): how the config takes them (every refusal names its field;
 * absent when not given, so configs without one hash as before), the request bodies each option
 * makes (byte for byte: the LLM cache is keyed by them), and the solution a completion after a
 * templated prompt stands for.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { familyOf } from '../../domain/families/registry.js';
import { directRequestBody } from '../../methods/direct/request.js';
import type { PromptTemplate } from '../../domain/methods/promptTemplate.js';
import { ragRequestBody } from '../../methods/rag/request.js';
import { canonicalSweepJson, parseSweepConfig, sweepConfigHash } from '../../domain/sweep/config.js';
import { expandGrid, formatPlan, planSweep } from '../../domain/sweep/plan.js';
import { renderSweepReport } from '../../domain/report/html.js';
import { minimalSweepConfig, sweepConfigIssues } from '../support/sweep-config.js';
import { synthReport } from '../report/support.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

function withModel(model: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...minimalSweepConfig(), models: [{ id: 'm', base_url: 'http://127.0.0.1:8080/v1', model: 'x', ...model }], ...extra };
}

const INSTRUCT: PromptTemplate = {
  instruction: 'Complete the function below.',
  instruction_tokens: ['<|user|>\n', '<|end|>\n', '<|assistant|>\n'],
};

describe('models[i].prompt in a sweep config', () => {
  it('is absent from the resolved config when not given: configs without it hash as they did before templates', () => {
    const chat = parseSweepConfig(minimalSweepConfig());
    const completions = parseSweepConfig(withModel({ api: 'completions' }));
    expect('prompt' in chat.models[0]!).toBe(false);
    expect(canonicalSweepJson(completions)).not.toContain('"prompt"');
    // The hashes these configs had before prompt templates existed (commit b652997), with the
    // method_options defaults of issue 20 (paper-faithful defaults change every config's hash).
    expect(sweepConfigHash(chat, sha)).toBe('6ea3a0d819629cd0b1e724a187397c2882e58c30f7dbca74a37d995fadb5fa27');
    expect(sweepConfigHash(completions, sha)).toBe('b17a7baf3e1a50a1c2a1707efeec26db260cd31b4aab5d413b22e80aed7dc1c8');
  });

  it('is kept as given, and changes the hash', () => {
    const config = parseSweepConfig(withModel({ api: 'completions', prompt: { ...INSTRUCT, prefix: '# p\n' } }));
    expect(config.models[0]!.prompt).toEqual({ ...INSTRUCT, prefix: '# p\n' });
    expect(sweepConfigHash(config, sha)).not.toBe(sweepConfigHash(parseSweepConfig(withModel({ api: 'completions' })), sha));
    expect(parseSweepConfig(withModel({ prompt: { system: '' } })).models[0]!.prompt).toEqual({ system: '' });
  });

  it('refuses options of the other api, naming the field', () => {
    expect(sweepConfigIssues(withModel({ prompt: { prefix: 'p', instruction: 'i', instruction_tokens: ['a', 'b', 'c'] } }))).toEqual([
      {
        path: 'models[0].prompt.instruction_tokens',
        message: "needs api: completions (a chat model's turns are marked by its server's chat template)",
      },
      { path: 'models[0].prompt.prefix', message: 'needs api: completions (for a chat model, put the text in system or instruction)' },
    ]);
    expect(sweepConfigIssues(withModel({ api: 'completions', prompt: { system: 'S' } }))).toEqual([
      { path: 'models[0].prompt.system', message: 'needs api: chat (a completion model has no system message; use prefix)' },
    ]);
  });

  it('refuses instruction_tokens without an instruction, a malformed or empty template, and unknown keys', () => {
    expect(sweepConfigIssues(withModel({ api: 'completions', prompt: { instruction_tokens: ['a', 'b', 'c'] } }))).toEqual([
      {
        path: 'models[0].prompt.instruction_tokens',
        message: "needs instruction: the instruct prompt is user + instruction + end + assistant + the task's prompt",
      },
    ]);
    expect(sweepConfigIssues(withModel({ api: 'completions', prompt: { instruction: 'i', instruction_tokens: ['a', 'b'] } }))).toEqual([
      { path: 'models[0].prompt.instruction_tokens', message: 'must be a list of 3 strings: [user, end, assistant]' },
    ]);
    expect(sweepConfigIssues(withModel({ prompt: {} }))).toEqual([
      {
        path: 'models[0].prompt',
        message: 'give at least one of system, instruction, prefix, instruction_tokens (or leave prompt out for the default prompts)',
      },
    ]);
    expect(sweepConfigIssues(withModel({ prompt: { instruction: '' } }))).toEqual([
      { path: 'models[0].prompt.instruction', message: 'must not be empty (leave instruction out for the default)' },
    ]);
    expect(sweepConfigIssues(withModel({ prompt: { instructions: 'x' } }))).toEqual(
      expect.arrayContaining([{ path: 'models[0].prompt.instructions', message: 'unknown key (did you mean instruction?)' }]),
    );
  });

  it('is taken by every method, multi-step ones included (test/methods/prompt-template-multistep.test.ts)', () => {
    const config = withModel({ prompt: { system: 'S' } }, { methods: ['direct', 'self-repair', 'exploracoder'] });
    (config.datasets as Array<Record<string, unknown>>)[0]!.library = { api_docs: 'docs.jsonl', name: 'lib', summary: 's' };
    expect(parseSweepConfig(config).models[0]!.prompt).toEqual({ system: 'S' });
  });
});

const HE: SweepProblem = {
  family: 'humaneval',
  form: 'completion',
  task_id: 'T/0',
  prompt: 'def f(x):\n    """Twice x."""\n',
  entry_point: 'f',
  test: 'def check(c):\n    assert c(1) == 2\n',
};
const PBE: SweepProblem = {
  family: 'pbe-world',
  form: 'full',
  task_id: 'P/0',
  prompt: 'def g(s):\n    """x"""\n    raise NotImplementedError()\n',
  entry_point: 'g',
  test: 'def check(c):\n    pass\n',
};
const base = { model: 'x', temperature: 0.2, top_p: 0.95, max_tokens: 64, seed: 3 };
const withPrompt = (prompt: PromptTemplate) => ({ ...base, prompt });
const DEFAULT_SYSTEM = 'You are an expert Python programmer. Answer with working Python code only.';
const FENCED = '\n\n```python\ndef f(x):\n    """Twice x."""\n```\n';

describe('request bodies with a prompt template (byte for byte)', () => {
  it('chat: system replaces the system message, instruction the family instruction; the template never goes out as a field', () => {
    expect(JSON.stringify(directRequestBody(HE, 'chat', withPrompt({ system: 'Be brief.', instruction: 'Write f.' }), 1))).toBe(
      JSON.stringify({
        model: 'x',
        temperature: 0.2,
        top_p: 0.95,
        max_tokens: 64,
        seed: 4,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: `Write f.${FENCED}` },
        ],
      }),
    );
    expect(JSON.stringify(directRequestBody(HE, 'chat', withPrompt({ instruction: 'Write f.' }), 0))).toBe(
      JSON.stringify({
        model: 'x',
        temperature: 0.2,
        top_p: 0.95,
        max_tokens: 64,
        seed: 3,
        messages: [
          { role: 'system', content: DEFAULT_SYSTEM },
          { role: 'user', content: `Write f.${FENCED}` },
        ],
      }),
    );
    const instruction = familyOf(HE).chatInstruction(HE);
    expect(JSON.stringify(directRequestBody(HE, 'chat', withPrompt({ system: '' }), 0))).toBe(
      JSON.stringify({
        model: 'x',
        temperature: 0.2,
        top_p: 0.95,
        max_tokens: 64,
        seed: 3,
        messages: [{ role: 'user', content: `${instruction}${FENCED}` }],
      }),
    );
  });

  it("completions: prefix goes first; instruction and instruction_tokens make bigcode's instruct layout, the task's prompt last", () => {
    const body = (prompt: PromptTemplate, problem = HE) =>
      JSON.stringify(directRequestBody(problem, 'completions', withPrompt(prompt), 0, 2));
    const want = (prompt: string) => JSON.stringify({ model: 'x', temperature: 0.2, top_p: 0.95, max_tokens: 64, seed: 3, n: 2, prompt });
    expect(body({ prefix: '<fim>' })).toBe(want(`<fim>${HE.prompt}`));
    expect(body(INSTRUCT)).toBe(want(`<|user|>\nComplete the function below.<|end|>\n<|assistant|>\n${HE.prompt}`));
    expect(body({ ...INSTRUCT, prefix: '# P\n' })).toBe(
      want(`# P\n<|user|>\nComplete the function below.<|end|>\n<|assistant|>\n${HE.prompt}`),
    );
    // No tokens: bigcode's defaults, ('', '', '\n').
    expect(body({ instruction: 'Do it.' })).toBe(want(`Do it.\n${HE.prompt}`));
    // The task's completion prompt: a full program's stub without its raise line.
    expect(body(INSTRUCT, PBE)).toBe(want(`<|user|>\nComplete the function below.<|end|>\n<|assistant|>\ndef g(s):\n    """x"""\n`));
  });

  it('rag: the same parts replaced; for completions the template goes before the docs comment', () => {
    const docs = [{ import_path: 'lib.swap', name: 'swap', signature: '(s)', description: 'Swaps.' }];
    const plain = ragRequestBody(HE, docs, 'lib', 'completions', base, 0) as { prompt: string };
    const templated = ragRequestBody(HE, docs, 'lib', 'completions', withPrompt(INSTRUCT), 0) as { prompt: string };
    expect(templated.prompt).toBe(`<|user|>\nComplete the function below.<|end|>\n<|assistant|>\n${plain.prompt}`);
    expect(plain.prompt.endsWith(HE.prompt)).toBe(true);
    const chat = ragRequestBody(HE, docs, 'lib', 'chat', withPrompt({ system: 'S', instruction: 'Write f.' }), 0) as {
      messages: Array<{ role: string; content: string }>;
    };
    const chatDefault = ragRequestBody(HE, docs, 'lib', 'chat', base, 0) as { messages: Array<{ role: string; content: string }> };
    expect(chat.messages[0]).toEqual({ role: 'system', content: 'S' });
    expect(chat.messages[1]!.content).toBe(chatDefault.messages[1]!.content.replace(familyOf(HE).chatInstruction(HE), 'Write f.'));
    expect(chat.messages[1]!.content.startsWith('Write f. Use the library `lib`')).toBe(true);
  });

  it('without a template the bodies are exactly the defaults', () => {
    expect(directRequestBody(HE, 'completions', base, 0)).toEqual({ ...base, prompt: HE.prompt });
    expect(JSON.stringify(directRequestBody(HE, 'chat', base, 0))).toBe(
      JSON.stringify({
        ...base,
        messages: [
          { role: 'system', content: DEFAULT_SYSTEM },
          { role: 'user', content: `${familyOf(HE).chatInstruction(HE)}${FENCED}` },
        ],
      }),
    );
  });
});

describe('the solution of a completion after a templated prompt', () => {
  it("is the task's own prompt + the completion: neither the prefix nor the instruct markers", () => {
    // The solution is made from the task, not from the request: whatever the template put before
    // the task's prompt, the completion continues that prompt.
    expect(familyOf(HE).solution(HE, 'completions', '    return 2 * x\n')).toBe(`${HE.prompt}    return 2 * x\n`);
    expect(familyOf(PBE).solution(PBE, 'completions', '    return s\n')).toBe('def g(s):\n    """x"""\n    return s\n');
    const mbpp: SweepProblem = {
      family: 'mbpp',
      form: 'completion',
      task_id: '2',
      prompt: '"""\nWrite f.\n"""\n',
      entry_point: 'f',
      test: 'assert f(1) == 2\n',
    };
    expect(familyOf(mbpp).solution(mbpp, 'completions', 'def f(x):\n    return 2 * x\n')).toBe(
      `${mbpp.prompt}def f(x):\n    return 2 * x\n`,
    );
  });
});

describe('the report', () => {
  it('names each cell\'s template in a "prompt" column and spells the templates out under the table', () => {
    const data = synthReport();
    data.cells[0] = { ...data.cells[0]!, promptTemplate: INSTRUCT };
    for (const c of data.cells.slice(1)) c.promptTemplate = 'default';
    const html = renderSweepReport(data, { chartLibrary: '/* Chart.js v4 */' });
    const table = /<table class="grid metrics" id="passk-table">([\s\S]*?)<\/table>/.exec(html)![1]!;
    expect(table).toContain('<th rowspan="2">prompt</th>');
    expect(table).toContain('<td><a href="#prompt-template-1">template 1</a></td>');
    expect(table.match(/<td>default<\/td>/g)).toHaveLength(data.cells.length - 1);
    expect(html).toContain('<li id="prompt-template-1"><b>template 1</b>');
    expect(html).toContain('&lt;|assistant|&gt;\\n');
  });

  it('with default prompts only, says so under the table and adds no column; older results show nothing', () => {
    const data = synthReport();
    const before = renderSweepReport(data, { chartLibrary: '/* Chart.js v4 */' });
    expect(before).not.toContain('prompt</th>');
    expect(before).not.toContain('Prompts: the default prompts');
    for (const c of data.cells) c.promptTemplate = 'default';
    const html = renderSweepReport(data, { chartLibrary: '/* Chart.js v4 */' });
    expect(html).not.toContain('<th rowspan="2">prompt</th>');
    expect(html).toContain('Prompts: the default prompts of each task family and language');
  });
});

describe('the prompts: axis (one template per cell)', () => {
  const axis = (prompts: unknown[], extra: Record<string, unknown> = {}) => withModel({ api: 'completions' }, { prompts, ...extra });

  it('multiplies the grid: each cell gets one template, its id ends in .p-<name>, a name alone is the defaults', () => {
    const config = parseSweepConfig(axis([{ name: 'default' }, { name: 'instruct', ...INSTRUCT }], { temperatures: [0, 0.8] }));
    expect(config.prompts).toEqual([{ name: 'default' }, { name: 'instruct', template: INSTRUCT }]);
    const cells = expandGrid(config);
    expect(cells.map((c) => c.id)).toEqual([
      `${config.datasets[0]!.name}.m.direct.t0.p-default`,
      `${config.datasets[0]!.name}.m.direct.t0.p-instruct`,
      `${config.datasets[0]!.name}.m.direct.t0.8.p-default`,
      `${config.datasets[0]!.name}.m.direct.t0.8.p-instruct`,
    ]);
    expect(cells.map((c) => [c.promptName, c.promptTemplate])).toEqual([
      ['default', undefined],
      ['instruct', INSTRUCT],
      ['default', undefined],
      ['instruct', INSTRUCT],
    ]);
    const plan = planSweep(config, { [config.datasets[0]!.name]: 3 });
    expect(plan.axes.prompts).toBe(2);
    expect(plan.cells.map((c) => c.prompt)).toEqual(['default', 'instruct', 'default', 'instruct']);
    expect(formatPlan(plan)).toContain('x 2 temperatures x 2 prompt templates = 4 cells');
  });

  it("leaves sweeps without it as they were: no suffix, the model's own template, no axis in the plan", () => {
    const config = parseSweepConfig(withModel({ api: 'completions', prompt: INSTRUCT }));
    const [cell] = expandGrid(config);
    expect(cell!.id).toBe(`${config.datasets[0]!.name}.m.direct.t${config.temperatures[0]}`);
    expect(cell!.promptName).toBeNull();
    expect(cell!.promptTemplate).toEqual(INSTRUCT);
    const plan = planSweep(config, { [config.datasets[0]!.name]: 1 });
    expect(plan.axes.prompts).toBe(0);
    expect(formatPlan(plan)).not.toMatch(/ x \d+ prompt templates? = /);
    expect(formatPlan(plan)).toContain(' x 1 temperature = 1 cell');
  });

  it("checks each template against every model's api, naming the entry, the field and the model", () => {
    const config = {
      ...axis([{ name: 'sys', system: 'S' }]),
      models: [
        { id: 'c', base_url: 'http://127.0.0.1:8080/v1', model: 'x', api: 'completions' },
        { id: 'h', base_url: 'http://127.0.0.1:8080/v1', model: 'x', api: 'chat' },
      ],
    };
    expect(sweepConfigIssues(config)).toEqual([
      {
        path: 'prompts[0].system',
        message:
          "needs api: chat (a completion model has no system message; use prefix) (models[0], c, is api: completions; list the template's cells' models in another sweep, or drop the field)",
      },
    ]);
  });

  it('refuses repeated or dotted names, an empty list, unknown keys, and a model template beside the axis', () => {
    expect(sweepConfigIssues(axis([{ name: 'a' }, { name: 'a', prefix: 'p' }]))).toEqual([
      { path: 'prompts[1].name', message: 'duplicate of prompts[0].name ("a")' },
    ]);
    expect(sweepConfigIssues(axis([{ name: 'a.b' }]))[0]!.path).toBe('prompts[0].name');
    expect(sweepConfigIssues(axis([{ name: 'a.b' }]))[0]!.message).toContain('no dots');
    expect(sweepConfigIssues(axis([]))).toEqual([
      { path: 'prompts', message: 'needs at least one prompt template (or leave prompts out)' },
    ]);
    expect(sweepConfigIssues(axis([{ name: 'a', instructions: 'x' }]))[0]!.path).toBe('prompts[0].instructions');
    expect(sweepConfigIssues(withModel({ api: 'completions', prompt: INSTRUCT }, { prompts: [{ name: 'a' }] }))).toEqual([
      { path: 'models[0].prompt', message: 'give prompt templates either per model (models[i].prompt) or as the prompts: axis, not both' },
    ]);
  });

  it('gives multi-step methods a template too, and runs them with names alone (the default prompts)', () => {
    const withLibrary = (prompts: unknown[]) => {
      const config = withModel({}, { prompts, methods: ['direct', 'self-repair'] });
      (config.datasets as Array<Record<string, unknown>>)[0]!.library = { api_docs: 'docs.jsonl', name: 'lib', summary: 's' };
      return config;
    };
    expect(
      expandGrid(parseSweepConfig(withLibrary([{ name: 'default' }, { name: 'sys', system: 'S' }]))).map((c) => [
        c.method,
        c.promptName,
        c.promptTemplate,
      ]),
    ).toEqual([
      ['direct', 'default', undefined],
      ['direct', 'sys', { system: 'S' }],
      ['self-repair', 'default', undefined],
      ['self-repair', 'sys', { system: 'S' }],
    ]);
    expect(expandGrid(parseSweepConfig(withLibrary([{ name: 'default' }, { name: 'plain' }]))).map((c) => c.promptName)).toEqual([
      'default',
      'plain',
      'default',
      'plain',
    ]);
  });
});
