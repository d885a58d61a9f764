/**
 * Prompt templates end to end, against scripted servers:
 * - a sweep over HumanEval with a completions model given bigcode's instruct layout (and a prefix),
 *   a chat model given its own system message and instruction, and a completions model without a
 *   template, against a server that answers right only when asked with the template exactly. The
 *   requests carry the templates byte for byte, pass@1 follows, results record each cell's
 *   template, and the report names it; and a `prompts:` axis over one model;
 * - in the multi-step methods: a sweep of self-repair, CAPIR + Self-Repair and ExploraCoder on PBE
 *   World with a `prompts:` axis (the default prompts, and a template with a system message and an
 *   instruction), against the scripted model of test/methods/support.ts. What the server received:
 *   the template in exactly the requests that write a solution (first answers, ExploraCoder's
 *   finals) and in the repair conversations that continue them, never in a planner, rerank,
 *   exploration or debug request; those are sent once for both templates (the LLM cache). Results,
 *   traces and the report record the template and say what it shaped.
 *
 * The three sweeps only wait (on Temporal, the sandbox, the scripted servers): they run at once,
 * each with task queues of its own and models (or a server) of its own.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolvePbeParams } from '../../domain/pbe/params.js';
import { cellTraceKey, sweepResultsKey } from '../../domain/sweep/keys.js';
import { getText } from '../../infra/s3.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { runTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type ScriptedLlmServer, type ScriptedRequest } from '../support/scripted-llm-server.js';
import { classify, exploraScript, identifyTask, SEED, writeScriptedSweep, type Classified } from '../methods/support.js';
import { HUMANEVAL, humanEvalProblems, pbeProblems } from './support.js';

const { config, env } = testConfig();
const bucket = testBucket(config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-prompt-template-'));
// The first three HumanEval tests compare with ==, so `return None` fails them.
const LIMIT = 3;
const problems = humanEvalProblems(LIMIT);

const INSTRUCT = {
  prefix: '# prefix\n',
  instruction: 'Complete the function.',
  tokens: ['### Instruction:\n', '\n', '### Response:\n'] as const,
};
const instructPrompt = (prompt: string) =>
  `${INSTRUCT.prefix}${INSTRUCT.tokens[0]}${INSTRUCT.instruction}${INSTRUCT.tokens[1]}${INSTRUCT.tokens[2]}${prompt}`;
const CHAT = { system: 'You write Python: "quoted", and \\ kept.', instruction: 'Write this function, please.' };
const chatMessages = (prompt: string) => [
  { role: 'system', content: CHAT.system },
  { role: 'user', content: `${CHAT.instruction}\n\n\`\`\`python\n${prompt}\`\`\`\n` },
];

let server: ScriptedLlmServer;
let multiStepServer: ScriptedLlmServer;
const received: Array<{ model: string; body: Record<string, unknown> }> = [];

beforeAll(async () => {
  server = await startScriptedLlmServer((req) => {
    received.push({ model: String(req.body.model), body: req.body });
    if (req.api === 'completions') {
      // Right only for the instruct prompt, byte for byte; text after a stop word is cut.
      const p = problems.find((x) => req.body.prompt === instructPrompt(x.prompt));
      return { content: p ? `${p.canonical_solution}\nprint("after a stop word")\n` : '    return None\n' };
    }
    const messages = JSON.stringify(req.body.messages);
    const p = problems.find((x) => messages === JSON.stringify(chatMessages(x.prompt)));
    return {
      content: p ? `Here:\n\`\`\`python\n${p.prompt}${p.canonical_solution}\`\`\`\n` : '```python\ndef nothing():\n    return None\n```\n',
    };
  });
  multiStepServer = await startScriptedLlmServer(multiStepScript());
});
afterAll(async () => {
  await Promise.all([server.close(), multiStepServer.close()]);
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe.concurrent('a sweep with prompt templates, against a scripted server', () => {
  it('sends each template exactly, scores what it brings, records it in results and names it in the report', async () => {
    const id = `prompt-template-${uniqueSuffix()}`;
    const file = path.join(dir, 'sweep.json');
    writeFileSync(
      file,
      JSON.stringify({
        id,
        datasets: [{ name: 'humaneval', family: 'humaneval', path: HUMANEVAL }],
        models: [
          {
            id: 'instruct',
            base_url: server.url,
            model: 'scripted-instruct',
            api: 'completions',
            concurrency: 2,
            prompt: { prefix: INSTRUCT.prefix, instruction: INSTRUCT.instruction, instruction_tokens: INSTRUCT.tokens },
          },
          { id: 'chat', base_url: server.url, model: 'scripted-chat', api: 'chat', concurrency: 2, prompt: CHAT },
          { id: 'plain', base_url: server.url, model: 'scripted-plain', api: 'completions', concurrency: 2 },
        ],
        methods: ['direct'],
        temperatures: [0],
        n_samples: 2,
        k: [1],
        limit: LIMIT,
        timeout_s: 10,
      }),
    );
    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], testConfig().env);
    expect(run.code, run.output).toBe(0);

    // What arrived: the templates byte for byte; the plain model's prompt is the task's own.
    const prompts = (model: string) => received.filter((r) => r.model === model).map((r) => r.body.prompt);
    expect(new Set(prompts('scripted-instruct'))).toEqual(new Set(problems.map((p) => instructPrompt(p.prompt))));
    expect(new Set(prompts('scripted-plain'))).toEqual(new Set(problems.map((p) => p.prompt)));
    const chats = received.filter((r) => r.model === 'scripted-chat').map((r) => JSON.stringify(r.body.messages));
    expect(new Set(chats)).toEqual(new Set(problems.map((p) => JSON.stringify(chatMessages(p.prompt)))));
    for (const r of received) expect(r.body).not.toHaveProperty('prompt_template');
    expect(received.filter((r) => r.model === 'scripted-instruct')).toHaveLength(LIMIT * 2);

    // pass@1: right only when asked with the template; results record each cell's template.
    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!);
    const byModel = new Map<string, { cell: Record<string, unknown>; passAtK: Record<string, number> }>(
      results.cells.map((c: { cell: { model: string } }) => [c.cell.model, c]),
    );
    expect(byModel.get('instruct')!.passAtK['pass@1']).toBe(1);
    expect(byModel.get('chat')!.passAtK['pass@1']).toBe(1);
    expect(byModel.get('plain')!.passAtK['pass@1']).toBe(0);
    expect(byModel.get('instruct')!.cell.prompt_template).toEqual({
      prefix: INSTRUCT.prefix,
      instruction: INSTRUCT.instruction,
      instruction_tokens: [...INSTRUCT.tokens],
    });
    expect(byModel.get('chat')!.cell.prompt_template).toEqual(CHAT);
    expect(byModel.get('plain')!.cell.prompt_template).toBe('default');

    // The report names each cell's template and spells the templates out.
    const out = path.join(dir, 'report');
    const report = await runTs('scripts/report.ts', [id, '--out', out], env);
    expect(report.code, report.output).toBe(0);
    const html = readFileSync(path.join(out, `report-${id}.html`), 'utf8');
    const table = /<table class="grid metrics" id="passk-table">([\s\S]*?)<\/table>/.exec(html)![1]!;
    expect(table).toContain('<th rowspan="2">prompt</th>');
    expect(table.match(/>template \d<\/a><\/td>/g)).toHaveLength(2);
    expect(table).toContain('<td>default</td>');
    expect(html).toContain('Write this function, please.');
    expect(html).toContain('### Instruction:\\n');
  });

  it('runs a prompts: axis: one model, a cell per template, each asked with its own, named in ids, results and the report', async () => {
    const id = `prompt-axis-${uniqueSuffix()}`;
    const file = path.join(dir, 'axis.json');
    writeFileSync(
      file,
      JSON.stringify({
        id,
        datasets: [{ name: 'humaneval', family: 'humaneval', path: HUMANEVAL }],
        models: [{ id: 'completer', base_url: server.url, model: 'scripted-axis', api: 'completions', concurrency: 2 }],
        methods: ['direct'],
        temperatures: [0],
        prompts: [
          { name: 'default' },
          { name: 'instruct', prefix: INSTRUCT.prefix, instruction: INSTRUCT.instruction, instruction_tokens: INSTRUCT.tokens },
        ],
        n_samples: 1,
        k: [1],
        limit: LIMIT,
        timeout_s: 10,
      }),
    );
    const dry = await runTs('scripts/start-sweep.ts', ['--config', file, '--dry-run', '--no-cache-forecast'], env);
    expect(dry.code, dry.output).toBe(0);
    expect(dry.output).toContain('1 temperature x 2 prompt templates = 2 cells');

    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], testConfig().env);
    expect(run.code, run.output).toBe(0);
    const prompts = received.filter((r) => r.model === 'scripted-axis').map((r) => r.body.prompt);
    expect(prompts.sort()).toEqual([...problems.map((p) => p.prompt), ...problems.map((p) => instructPrompt(p.prompt))].sort());

    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!);
    const cells = results.cells.map((c: { cell: Record<string, unknown>; passAtK: Record<string, number> }) => [
      c.cell.cell,
      c.cell.prompt,
      c.passAtK['pass@1'],
    ]);
    expect(cells).toEqual([
      ['humaneval.completer.direct.t0.p-default', 'default', 0],
      ['humaneval.completer.direct.t0.p-instruct', 'instruct', 1],
    ]);

    const out = path.join(dir, 'axis-report');
    const report = await runTs('scripts/report.ts', [id, '--out', out], env);
    expect(report.code, report.output).toBe(0);
    const html = readFileSync(path.join(out, `report-${id}.html`), 'utf8');
    const table = /<table class="grid metrics" id="passk-table">([\s\S]*?)<\/table>/.exec(html)![1]!;
    expect(table).toContain('<td>default: default</td>');
    expect(table).toMatch(/<td>instruct: <a href="#prompt-template-1">template 1<\/a><\/td>/);
    expect(html).toContain('completer · direct · t0 · instruct');
  });
});

const PARAMS = resolvePbeParams({ count: 2, seed: 61 });
const pbeTasks = pbeProblems(PARAMS, 'pbe');
const N = 2;
const TPL = {
  system: 'TPL-SYSTEM: you write exact, plain Python.',
  instruction: 'TPL-INSTRUCTION: solve the task below with the library.',
};

type Message = { role: string; content: string };
const messagesOf = (req: ScriptedRequest) => req.body.messages as Message[];

/** A templated request, by what it asks for. */
type TemplatedRole = 'first' | 'final' | 'feedback' | 'repair';
const templated: Array<{ role: TemplatedRole; messages: Message[] }> = [];
const untemplated: Classified[] = [];

/**
 * Requests asked with the template's system message: the final solution is right only when it
 * ends with the template's instruction; a first answer is wrong for sample 0 (so it is repaired)
 * and right otherwise; feedback and repairs as in test/methods/support.ts. Every other request: its script.
 */
function multiStepScript() {
  const base = exploraScript(pbeTasks);
  return (req: ScriptedRequest) => {
    const messages = messagesOf(req);
    if (messages[0]!.content !== TPL.system) {
      untemplated.push(classify(req, pbeTasks));
      return base(req);
    }
    const problem = identifyTask(messages.map((m) => m.content).join('\n'), pbeTasks);
    const user = messages[messages.length - 1]!.content;
    const code = (text: string) => `\`\`\`python\n${text}\`\`\`\n`;
    const wrong = () => {
      const lines = problem.canonical_solution.split('\n');
      const def = lines.findIndex((l) => l.startsWith('def '));
      return `${lines.slice(0, def + 1).join('\n')}\n    return s + '#'\n`;
    };
    const n = Number(req.body.n ?? 1);
    const role: TemplatedRole =
      messages.length > 2
        ? user.includes('Do not write the code yet')
          ? 'feedback'
          : 'repair'
        : user.startsWith('Requirement (')
          ? 'final'
          : 'first';
    templated.push({ role, messages });
    switch (role) {
      case 'feedback':
        return { content: 'The code does not do what the examples show.' };
      case 'repair':
        return { content: code(problem.canonical_solution) };
      case 'final':
        return { content: Array.from({ length: n }, () => code(user.endsWith(TPL.instruction) ? problem.canonical_solution : wrong())) };
      case 'first':
        return {
          content: Array.from({ length: n }, (_, j) => code(Number(req.body.seed) - SEED + j === 0 ? wrong() : problem.canonical_solution)),
        };
    }
  };
}

const METHODS = ['self-repair', 'capir-self-repair', 'exploracoder'];

describe.concurrent('a prompts: axis over multi-step methods, against a scripted server', () => {
  it('puts the template in the solution-writing requests only, shares every other step across templates, and records it', async () => {
    const id = `template-multistep-${uniqueSuffix()}`;
    const file = path.join(dir, 'multistep.yaml');
    writeScriptedSweep(file, {
      id,
      datasets: [{ name: 'pbe', pbe: { count: PARAMS.count, seed: PARAMS.seed } }],
      baseUrl: multiStepServer.url,
      modelOptions: { concurrency: 8 },
      methods: METHODS,
      // Wrong first answers (no runtime error) are repaired in both repair methods.
      methodOptions: { repair_check: 'outputs' },
      nSamples: N,
      k: [1],
      extra: { prompts: [{ name: 'default' }, { name: 'tpl', ...TPL }] },
    });
    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], testConfig().env);
    expect(run.code, run.output).toBe(0);
    const tasks = pbeTasks.length;

    // Templated requests, per task: self-repair's N first answers and the repair of sample 0;
    // CAPIR + Self-Repair's N first answers, feedback and repair of sample 0; ExploraCoder's N finals.
    const count = (role: TemplatedRole) => templated.filter((t) => t.role === role).length;
    expect({ first: count('first'), final: count('final'), feedback: count('feedback'), repair: count('repair') }).toEqual({
      first: 2 * N * tasks,
      final: N * tasks,
      feedback: tasks,
      repair: 2 * tasks,
    });
    for (const t of templated) {
      const [system, user] = t.messages;
      expect(system).toEqual({ role: 'system', content: TPL.system });
      if (t.role === 'final') {
        // ExploraCoder's final: the instruction replaces the closing sentence; trace and docs stay.
        expect(user!.content.endsWith(`\n\n${TPL.instruction}`)).toBe(true);
        expect(user!.content).toContain('Your exploration trace');
        expect(user!.content).not.toContain('Now write the complete function');
      } else {
        // rag's layout (self-repair) or CAPIR's: the instruction first, then the library sentence.
        expect(user!.content.startsWith(`${TPL.instruction} Use the library`)).toBe(true);
      }
      // Turns after the first keep the method's wording.
      for (const later of t.messages.slice(2)) expect(later.content).not.toContain('TPL-');
    }

    // Nothing else carries the template; planner, reranks, exploration and debug were asked once
    // for both templates (the default cells' requests, answered from the cache for the tpl cells).
    for (const c of untemplated) expect(c.text, c.role).not.toContain('TPL-');
    const roles = (role: string) => untemplated.filter((c) => c.role === role).length;
    expect(roles('plan')).toBe(tasks);
    expect(roles('explore')).toBe(tasks * 2 /* subtasks */ * 5 /* candidates */);
    expect(roles('final')).toBe(N * tasks);
    expect(multiStepServer.requests().filter((r) => r.attempt > 1)).toEqual([]);

    // Results: pass@1 1 everywhere (repairs fix sample 0; the finals are right only with the
    // template's instruction in the tpl cells), each cell's template recorded.
    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!) as {
      cells: Array<{ cell: { cell: string; prompt?: string; prompt_template?: unknown }; passAtK: Record<string, number> }>;
    };
    expect(results.cells.map((c) => [c.cell.cell, c.cell.prompt, c.cell.prompt_template, c.passAtK['pass@1']])).toEqual(
      METHODS.flatMap((m) => [
        [`pbe.chat.${m}.t0.8.p-default`, 'default', 'default', 1],
        [`pbe.chat.${m}.t0.8.p-tpl`, 'tpl', TPL, 1],
      ]),
    );

    // Traces hold the template of templated cells only.
    for (const m of METHODS) {
      const trace = (prompt: string) =>
        getText(bucket, cellTraceKey(id, `pbe.chat.${m}.t0.8.p-${prompt}`, 0)).then((t) => JSON.parse(t!) as Record<string, unknown>);
      expect((await trace('tpl')).prompt_template, m).toEqual(TPL);
      expect(await trace('default'), m).not.toHaveProperty('prompt_template');
    }
    // trace.ts and report.ts read what the sweep stored: both start at once.
    const out = path.join(dir, 'multistep-report');
    const [summary, report] = await Promise.all([
      runTs('scripts/trace.ts', [id, '--cell', 'pbe.chat.exploracoder.t0.8.p-tpl', '--task', '0', '--summary'], env),
      runTs('scripts/report.ts', [id, '--out', out], env),
    ]);
    expect(summary.code, summary.output).toBe(0);
    expect(summary.output).toContain(`prompt template: ${JSON.stringify(TPL)} (shapes the final solution`);

    // The report spells the template out and says what it shaped in each method.
    expect(report.code, report.output).toBe(0);
    const html = readFileSync(path.join(out, `report-${id}.html`), 'utf8');
    expect(html).toContain('TPL-INSTRUCTION: solve the task below with the library.');
    const scopes = /<ul class="prompt-template-scopes">([\s\S]*?)<\/ul>/.exec(html)![1]!;
    expect(scopes.match(/<li><code>([^<]+)<\/code>/g)).toEqual(METHODS.map((m) => `<li><code>${m}</code>`));
  });
});
