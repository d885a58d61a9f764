/**
 * Prompt templates in the multi-step methods (self-repair, CAPIR, CAPIR + Self-Repair, EpiGen,
 * ExploraCoder and its variants): every one of them takes a template in a config, still checked
 * against the model's api; the template reaches the request that writes the solution (its system
 * message and instruction) and no other step's builder takes one; without a template every prompt
 * is byte for byte what it was, and so are cell ids, config hashes and plans of sweeps without one.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ApiDoc, ApiLibrary } from '../../domain/apidocs/library.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { familyOf, languageOf } from '../../domain/families/registry.js';
import type { ChatMessage } from '../../domain/llm/request.js';
import { capirMessages, feedbackMessages, repairFromFeedbackMessages } from '../../methods/capir/prompts.js';
import { finalMessages, type Experience } from '../../methods/exploracoder/prompts.js';
import type { PromptTemplate } from '../../domain/methods/promptTemplate.js';
import { ragRequestBody } from '../../methods/rag/request.js';
import { METHOD_NAMES, METHODS } from '../../domain/methods/registry.js';
import { repairMessages } from '../../methods/self-repair/prompts.js';
import { renderSweepReport } from '../../domain/report/html.js';
import { ExplorationTraceSchema } from '../../domain/report/trace.js';
import { parseSweepConfig, sweepConfigHash } from '../../domain/sweep/config.js';
import { expandGrid, formatPlan, planSweep } from '../../domain/sweep/plan.js';
import { synthReport } from '../report/support.js';
import { sweepConfigIssues } from '../support/sweep-config.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const shaJson = (v: unknown) => sha(JSON.stringify(v));

const MULTI_STEP = METHOD_NAMES.filter((m) => METHODS[m].needsChat);
const LIBRARY = { api_docs: 'docs.jsonl', name: 'lib', summary: 's' };

/** A sweep of every method over a dataset with a library (the multi-step methods need one). */
function everyMethod(extra: Record<string, unknown> = {}, model: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    datasets: [{ name: 'pbe', family: 'humaneval', path: 'HumanEval.jsonl', library: LIBRARY }],
    models: [{ id: 'm', base_url: 'http://127.0.0.1:8080/v1', model: 'x', samples_per_request: 2, ...model }],
    methods: METHOD_NAMES,
    temperatures: [0, 0.8],
    n_samples: 2,
    k: [1],
    ...extra,
  };
}

describe('configs: a template for every multi-step method', () => {
  it('the registry has multi-step methods of every kind', () => {
    expect(new Set(MULTI_STEP.map((m) => METHODS[m].kind))).toEqual(new Set(['self-repair', 'exploracoder', 'capir']));
    expect(MULTI_STEP).toEqual(
      expect.arrayContaining(['self-repair', 'capir', 'capir-self-repair', 'epigen', 'exploracoder', 'exploracoder-debug-no-exploration']),
    );
  });

  it.each(MULTI_STEP)('%s takes a chat template per model and on the prompts: axis', (method) => {
    const template = { system: 'You are terse.', instruction: 'Write the function.' };
    const perModel = parseSweepConfig(everyMethod({ methods: [method] }, { prompt: template }));
    expect(expandGrid(perModel).map((c) => c.promptTemplate)).toEqual([template, template]);
    const axis = parseSweepConfig(everyMethod({ methods: [method], prompts: [{ name: 'default' }, { name: 'terse', ...template }] }));
    expect(expandGrid(axis).map((c) => [c.id, c.promptTemplate])).toEqual([
      [`pbe.m.${method}.t0.p-default`, undefined],
      [`pbe.m.${method}.t0.p-terse`, template],
      [`pbe.m.${method}.t0.8.p-default`, undefined],
      [`pbe.m.${method}.t0.8.p-terse`, template],
    ]);
  });

  it("still checks the template against the model's api: completion-only fields are refused for chat models, naming the field", () => {
    expect(
      sweepConfigIssues(
        everyMethod({ methods: ['exploracoder'] }, { prompt: { prefix: 'p', instruction: 'i', instruction_tokens: ['a', 'b', 'c'] } }),
      ),
    ).toEqual([
      {
        path: 'models[0].prompt.instruction_tokens',
        message: "needs api: completions (a chat model's turns are marked by its server's chat template)",
      },
      { path: 'models[0].prompt.prefix', message: 'needs api: completions (for a chat model, put the text in system or instruction)' },
    ]);
    expect(sweepConfigIssues(everyMethod({ methods: ['capir'], prompts: [{ name: 'p', prefix: '# p\n' }] }))).toEqual([
      {
        path: 'prompts[0].prefix',
        message:
          "needs api: completions (for a chat model, put the text in system or instruction) (models[0], m, is api: chat; list the template's cells' models in another sweep, or drop the field)",
      },
    ]);
  });

  it('a completions model with a multi-step method is refused for its api, the template checked as for any completions model', () => {
    const issues = sweepConfigIssues(
      everyMethod({ methods: ['self-repair'] }, { api: 'completions', prompt: { system: 'S', prefix: '# p\n' } }),
    );
    expect(issues).toEqual([
      { path: 'models[0].api', message: 'method self-repair (methods[0]) talks to the model in several steps and needs api: chat' },
      { path: 'models[0].prompt.system', message: 'needs api: chat (a completion model has no system message; use prefix)' },
    ]);
  });

  it('sweeps without a template keep their cell ids, config hashes and plans (values computed before multi-step templates, at b71a2df)', () => {
    const config = parseSweepConfig(everyMethod());
    expect(METHOD_NAMES).toHaveLength(18);
    expect(sweepConfigHash(config, sha)).toBe('0fcb12495cb02663b3f84a6de0d3514021f2acb7f78c711aed674548ee3af27c');
    expect(shaJson(expandGrid(config).map((c) => c.id))).toBe('d7cff53ebeaa875a8d5a5b0f3fb63c78b8e0d413bf318fdbc44c7029b9a96be5');
    expect(shaJson(planSweep(config, { pbe: 3 }))).toBe('cebc19ea5e79b7278f977cdeb0d955e3e2839f9bfe1b80fa5a18521f5fa2de42');
    // An axis of names alone (the default prompts) too.
    const axis = parseSweepConfig(everyMethod({ prompts: [{ name: 'a' }, { name: 'b' }] }));
    expect(sweepConfigHash(axis, sha)).toBe('8ee06b4432ac0e8c83728c22c5bbe79bb3f6ec7d88c30d4de2c8c8ca92355b2e');
    expect(shaJson(planSweep(axis, { pbe: 3 }))).toBe('81ddca594d52193222e381415269ecfd44b209d720137355abda99a37c4dbac4');
  });

  it("the plan shares a templated cell's planner, reranks and exploration with untemplated cells, and its final answers only within its template", () => {
    const config = parseSweepConfig(
      everyMethod({
        methods: ['rag', 'self-repair', 'capir', 'capir-self-repair', 'exploracoder'],
        prompts: [{ name: 'default' }, { name: 'tpl', system: 'S' }],
      }),
    );
    const plan = planSweep(config, { pbe: 3 });
    const families = (method: string, prompt: string) =>
      plan.cells.find((c) => c.method === method && c.prompt === prompt && c.temperature === 0)!.shared.map((s) => s.family);
    const untemplated = (f: string) => !f.includes('#');
    for (const method of ['self-repair', 'capir', 'capir-self-repair', 'exploracoder']) {
      expect(families(method, 'tpl').filter(untemplated), method).toEqual(
        families(method, 'default').filter((f) => !/\/(rag|capir)@/.test(f)),
      );
    }
    expect(families('exploracoder', 'tpl')).toEqual(families('exploracoder', 'default'));
    expect(families('self-repair', 'tpl')).toContain('pbe/m/rag@t0#{"system":"S"}');
    expect(families('rag', 'tpl')).toEqual(['pbe/m/rag@t0#{"system":"S"}']);
    expect(families('capir', 'tpl')).toContain('pbe/m/capir@t0#{"system":"S"}');
    expect(families('capir-self-repair', 'tpl')).toContain('pbe/m/capir@t0#{"system":"S"}');
    // Counted once: the templated exploracoder cell adds only its final answers to the sweep's requests.
    const only = (prompts: unknown[]) =>
      planSweep(parseSweepConfig(everyMethod({ methods: ['exploracoder'], temperatures: [0], prompts })), { pbe: 3 });
    const one = only([{ name: 'default' }]);
    const two = only([{ name: 'default' }, { name: 'tpl', system: 'S' }]);
    expect(two.models[0]!.llmRequests - one.models[0]!.llmRequests).toBe(3 /* tasks */ * 1 /* n = 2 in one request */);
  });

  it('--dry-run says what a template shapes for each method of a templated cell, and nothing without one', () => {
    const plan = planSweep(
      parseSweepConfig(
        everyMethod({
          methods: ['direct', 'self-repair', 'exploracoder-debug'],
          prompts: [{ name: 'default' }, { name: 'tpl', system: 'S' }],
        }),
      ),
      { pbe: 3 },
    );
    expect(plan.promptTemplateScopes?.map((s) => s.method)).toEqual(['direct', 'self-repair', 'exploracoder-debug']);
    const text = formatPlan(plan);
    expect(text).toContain('prompt templates shape, per method:\n  direct: its one request per sample\n  self-repair: the first answer');
    expect(text).toContain(
      "  exploracoder-debug: the final solution (its system message and its closing instruction); the planner, the reranks, the exploration and debug prompts keep the paper's wording",
    );
    const plain = planSweep(parseSweepConfig(everyMethod({ methods: ['exploracoder'], prompts: [{ name: 'a' }] })), { pbe: 3 });
    expect(plain).not.toHaveProperty('promptTemplateScopes');
    expect(formatPlan(plain)).not.toContain('prompt templates shape');
  });
});

// ---------------------------------------------------------------------------------------------
// The prompt builders

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
  examples: [{ input: "'ab'", output: "'AB'" }],
};
const DOCS: ApiDoc[] = [{ import_path: 'lib.swap', name: 'swap', signature: '(s)', description: 'Swaps.' }];
const LIB: ApiLibrary = { name: 'lib', summary: 'A library.', docs: DOCS, runtime: { kind: 'builtin' } };
const EXP: Experience[] = [
  { index: 0, subtask: 'Swap it.', code: "print(lib.swap('ab'))", observation: { ok: true, status: 'passed', stdout: 'ba\n' } },
];
const SAMPLING = { model: 'x', temperature: 0.2, top_p: 0.95, max_tokens: 64, seed: 3 };
const TEMPLATE: PromptTemplate = { system: 'TPL-SYSTEM: be exact.', instruction: 'TPL-INSTRUCTION: write it.' };

const final = (problem: SweepProblem, template?: PromptTemplate, experiences: Experience[] | null = EXP) =>
  finalMessages({
    problem,
    library: LIB,
    subtasks: ['Swap it.', 'Return.'],
    experiences,
    docs: DOCS,
    observationChars: 500,
    ...(template ? { template } : {}),
  });

describe('prompt builders without a template: byte for byte what they were (sha256 of their JSON at b71a2df)', () => {
  it('ExploraCoder final, CAPIR, EpiGen and rag', () => {
    expect(
      shaJson(finalMessages({ problem: PBE, library: LIB, subtasks: ['Swap it.'], experiences: EXP, docs: DOCS, observationChars: 500 })),
    ).toBe('37e7e13a64fe0b136a94e8a398d4872e5200f317aef1f554ab0843bc94ac13a1');
    expect(
      shaJson(
        finalMessages({
          problem: HE,
          library: LIB,
          subtasks: ['Swap it.', 'Return.'],
          experiences: null,
          docs: DOCS,
          observationChars: 500,
        }),
      ),
    ).toBe('edf58526ecaa47d8b81feaff2cd17b34f14ce0cf62fa11d5a2a0696decd5e042');
    expect(shaJson(capirMessages(HE, DOCS, 'lib', null))).toBe('57233e6ca71474b6cdeab7ac32172144e3ff508d4d27a47d10aa520f1593f06e');
    expect(shaJson(capirMessages(PBE, DOCS, 'lib', ['Swap it.']))).toBe('ff8349c10ddd0c9e9f360b56190526f235326afec7cc671954e6adc76cf3457a');
    expect(shaJson(ragRequestBody(HE, DOCS, 'lib', 'chat', SAMPLING, 0))).toBe(
      'a4fe184059932553a040907e203e7dae68dba55fca577751925d5724eae7046b',
    );
  });
});

describe("ExploraCoder's final solution with a template", () => {
  const CLOSING = 'Now write the complete function `f` (with its signature and the imports it needs) in one ```python code block.';
  const OWN_SYSTEM =
    'You are a senior Python programmer. You have just explored the library `lib`, which is new to you, by running experiments with it.';

  it("system replaces the step's system message, instruction its closing sentence; requirement, trace and docs stay", () => {
    for (const experiences of [EXP, null]) {
      const plain = final(HE, undefined, experiences);
      const templated = final(HE, TEMPLATE, experiences);
      expect(plain[0]).toEqual({ role: 'system', content: OWN_SYSTEM });
      expect(plain[1]!.content.endsWith(`\n\n${CLOSING}`)).toBe(true);
      expect(templated).toEqual([
        { role: 'system', content: TEMPLATE.system },
        { role: 'user', content: plain[1]!.content.slice(0, -CLOSING.length) + TEMPLATE.instruction },
      ]);
    }
  });

  it('each field alone replaces only its part; system "" sends no system message', () => {
    const plain = final(PBE);
    expect(final(PBE, { system: 'S' })).toEqual([{ role: 'system', content: 'S' }, plain[1]]);
    expect(final(PBE, { system: '' })).toEqual([plain[1]]);
    const onlyInstruction = final(PBE, { instruction: 'Write g.' });
    expect(onlyInstruction[0]).toEqual(plain[0]);
    expect(onlyInstruction[1]!.content).toBe(plain[1]!.content.replace(/Now write the complete function `g`[^\n]*$/, 'Write g.'));
    expect(onlyInstruction[1]!.content).not.toContain('Now write');
  });

  it("a statement task's closing sentence is replaced the same way", () => {
    const stmt: SweepProblem = { ...HE, entry_point: 'None', prompt: 'x = 1\nprint(' };
    const plain = final(stmt);
    expect(plain[1]!.content.endsWith('Now write the whole script, its last line finished, in one ```python code block.')).toBe(true);
    expect(final(stmt, { instruction: 'Finish it.' })[1]!.content).toBe(
      plain[1]!.content.replace(/Now write the whole script[^\n]*$/, 'Finish it.'),
    );
  });
});

describe("CAPIR and EpiGen with a template: rag's chat request, shaped as rag's is", () => {
  it("capir's messages are rag's templated chat messages; epigen's add the plan after them", () => {
    const rag = ragRequestBody(HE, DOCS, 'lib', 'chat', { ...SAMPLING, prompt: TEMPLATE }, 0) as { messages: ChatMessage[] };
    expect(capirMessages(HE, DOCS, 'lib', null, TEMPLATE)).toEqual(rag.messages);
    expect(rag.messages[0]).toEqual({ role: 'system', content: TEMPLATE.system });
    expect(rag.messages[1]!.content.startsWith(`${TEMPLATE.instruction} Use the library \`lib\``)).toBe(true);
    const epigen = capirMessages(HE, DOCS, 'lib', ['Swap it.'], TEMPLATE);
    expect(epigen[1]!.content).toBe(`${rag.messages[1]!.content}\nA plan for the task, one API subtask per step:\n1. Swap it.\n`);
    expect(JSON.stringify(capirMessages(HE, DOCS, 'lib', null, { system: '' }))).not.toContain('"role":"system"');
  });
});

describe("repair turns (self-repair, CAPIR + Self-Repair) continue the templated conversation in the method's own words", () => {
  const first = capirMessages(PBE, DOCS, 'lib', null, TEMPLATE);
  const plainFirst = capirMessages(PBE, DOCS, 'lib', null);

  it("self-repair's repair request: the first turn as templated, then the method's repair turn, unchanged by the template", () => {
    const templated = repairMessages(first, PBE, 'def g(s):\n    return s\n', 'AssertionError', 500);
    const plain = repairMessages(plainFirst, PBE, 'def g(s):\n    return s\n', 'AssertionError', 500);
    expect(templated.slice(0, 2)).toEqual(first);
    expect(templated.slice(2)).toEqual(plain.slice(2));
    expect(JSON.stringify(templated.slice(2))).not.toContain('TPL-');
  });

  it("CAPIR + Self-Repair's feedback and code requests likewise", () => {
    const feedback = feedbackMessages(first, PBE, 'def g(s):\n    raise KeyError()\n', 'KeyError', 500);
    const code = repairFromFeedbackMessages(feedback, 'It raises.', PBE);
    const plainCode = repairFromFeedbackMessages(
      feedbackMessages(plainFirst, PBE, 'def g(s):\n    raise KeyError()\n', 'KeyError', 500),
      'It raises.',
      PBE,
    );
    expect(code.slice(0, 2)).toEqual(first);
    expect(code.slice(2)).toEqual(plainCode.slice(2));
    expect(JSON.stringify(code.slice(2))).not.toContain('TPL-');
  });

  it("the language's system message and the family's instruction are what a template's absent fields leave", () => {
    expect(plainFirst[0]).toEqual({ role: 'system', content: languageOf(PBE).systemPrompt });
    expect(plainFirst[1]!.content.startsWith(familyOf(PBE).chatInstruction(PBE))).toBe(true);
  });
});

describe('traces and the report', () => {
  it("a trace may hold the cell's template; traces stored before do not", () => {
    expect(ExplorationTraceSchema.parse({ method: 'exploracoder', subtasks: [], prompt_template: TEMPLATE }).prompt_template).toEqual(
      TEMPLATE,
    );
    expect(ExplorationTraceSchema.parse({ method: 'exploracoder', subtasks: [] })).not.toHaveProperty('prompt_template');
    expect(() => ExplorationTraceSchema.parse({ method: 'x', subtasks: [], prompt_template: { instruction_tokens: ['a'] } })).toThrow();
  });

  it('the report says what a template shaped for each method of a templated cell, and nothing for default cells', () => {
    const data = synthReport();
    data.cells[0] = { ...data.cells[0]!, method: 'exploracoder', promptTemplate: TEMPLATE };
    data.cells[1] = { ...data.cells[1]!, method: 'self-repair', promptTemplate: TEMPLATE };
    for (const c of data.cells.slice(2)) c.promptTemplate = 'default';
    const html = renderSweepReport(data, { chartLibrary: '/* Chart.js v4 */' });
    const scopes = /<ul class="prompt-template-scopes">([\s\S]*?)<\/ul>/.exec(html)![1]!;
    expect(scopes).toContain(
      '<li><code>exploracoder</code>: the final solution (its system message and its closing instruction); the planner, the reranks, the exploration and debug prompts keep the paper&#39;s wording</li>',
    );
    expect(scopes).toContain('<li><code>self-repair</code>: the first answer');
    expect(scopes.match(/<li>/g)).toHaveLength(2);
    for (const c of data.cells) c.promptTemplate = 'default';
    expect(renderSweepReport(data, { chartLibrary: '/* Chart.js v4 */' })).not.toContain('prompt-template-scopes');
  });
});
