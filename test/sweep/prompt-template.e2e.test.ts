/**
 * Prompt templates end to end: a sweep over HumanEval with a completions model given bigcode's
 * instruct layout (and a prefix), a chat model given its own system message and instruction, and a
 * completions model without a template, against a scripted server that answers right only when
 * asked with the template exactly. The requests carry the templates byte for byte, pass@1 follows,
 * results record each cell's template, and the report names it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepResultsKey } from '../../domain/sweep/keys.js';
import { getText } from '../../infra/s3.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { runTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { HUMANEVAL, humanEvalProblems } from './support.js';

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
});
afterAll(async () => {
  await server.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe('a sweep with prompt templates, against a scripted server', () => {
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
    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
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

    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
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
