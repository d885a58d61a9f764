/**
 * Prompt templates in the multi-step methods, end to end: a sweep of self-repair, CAPIR +
 * Self-Repair and ExploraCoder on PBE World with a `prompts:` axis (the default prompts, and a
 * template with a system message and an instruction), against the scripted model of support.ts.
 * What the server received: the template in exactly the requests that write a solution (first
 * answers, ExploraCoder's finals) and in the repair conversations that continue them, never in a
 * planner, rerank, exploration or debug request; those are sent once for both templates (the LLM
 * cache). Results, traces and the report record the template and say what it shaped.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
import { pbeProblems } from '../sweep/support.js';
import { classify, exploraScript, identifyTask, SEED, writeScriptedSweep, type Classified } from './support.js';

const { env } = testConfig();
const bucket = testBucket(testConfig().config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-template-multistep-'));
const PARAMS = resolvePbeParams({ count: 2, seed: 61 });
const problems = pbeProblems(PARAMS, 'pbe');
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
 * and right otherwise; feedback and repairs as in support.ts. Every other request: support.ts's script.
 */
function script() {
  const base = exploraScript(problems);
  return (req: ScriptedRequest) => {
    const messages = messagesOf(req);
    if (messages[0]!.content !== TPL.system) {
      untemplated.push(classify(req, problems));
      return base(req);
    }
    const problem = identifyTask(messages.map((m) => m.content).join('\n'), problems);
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

let server: ScriptedLlmServer;
beforeAll(async () => {
  server = await startScriptedLlmServer(script());
});
afterAll(async () => {
  await server.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const METHODS = ['self-repair', 'capir-self-repair', 'exploracoder'];

describe('a prompts: axis over multi-step methods, against a scripted server', () => {
  it('puts the template in the solution-writing requests only, shares every other step across templates, and records it', async () => {
    const id = `template-multistep-${uniqueSuffix()}`;
    const file = path.join(dir, 'sweep.yaml');
    writeScriptedSweep(file, {
      id,
      datasets: [{ name: 'pbe', pbe: { count: PARAMS.count, seed: PARAMS.seed } }],
      baseUrl: server.url,
      modelOptions: { concurrency: 8 },
      methods: METHODS,
      // Wrong first answers (no runtime error) are repaired in both repair methods.
      methodOptions: { repair_check: 'outputs' },
      nSamples: N,
      k: [1],
      extra: { prompts: [{ name: 'default' }, { name: 'tpl', ...TPL }] },
    });
    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
    expect(run.code, run.output).toBe(0);
    const tasks = problems.length;

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
    expect(server.requests().filter((r) => r.attempt > 1)).toEqual([]);

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
    const summary = await runTs('scripts/trace.ts', [id, '--cell', 'pbe.chat.exploracoder.t0.8.p-tpl', '--task', '0', '--summary'], env);
    expect(summary.code, summary.output).toBe(0);
    expect(summary.output).toContain(`prompt template: ${JSON.stringify(TPL)} (shapes the final solution`);

    // The report spells the template out and says what it shaped in each method.
    const out = path.join(dir, 'report');
    const report = await runTs('scripts/report.ts', [id, '--out', out], env);
    expect(report.code, report.output).toBe(0);
    const html = readFileSync(path.join(out, `report-${id}.html`), 'utf8');
    expect(html).toContain('TPL-INSTRUCTION: solve the task below with the library.');
    const scopes = /<ul class="prompt-template-scopes">([\s\S]*?)<\/ul>/.exec(html)![1]!;
    expect(scopes.match(/<li><code>([^<]+)<\/code>/g)).toEqual(METHODS.map((m) => `<li><code>${m}</code>`));
  });
});
