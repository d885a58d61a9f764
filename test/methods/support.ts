/**
 * A scripted model that plays every role of the multi-step methods, so tests can check the
 * protocol (what each request contains, in which order, how often) and the results it implies.
 *
 * Per task (PBE World), the plan has two subtasks. Subtask 1: every candidate raises, and in the
 * debug round only candidate 1's fix works (it prints a marker). Subtask 2: candidate 0 raises,
 * candidate 1 runs but prints nothing, candidates 2.. print markers: a passing candidate with output
 * (2) must be selected. Final answers are the task's canonical solution. rag/direct answers are
 * canonical for sample 1 and wrong for sample 0 (self-repair shares that first answer, and its
 * repair is canonical).
 */
import { writeFileSync } from 'node:fs';
import YAML from 'yaml';
import type { Reply, ScriptedRequest } from '../support/scripted-llm-server.js';
import type { KnownProblem } from '../sweep/support.js';

export type Role = 'plan' | 'rerank' | 'global' | 'explore' | 'debug' | 'final' | 'generate' | 'feedback' | 'repair';

export interface Classified {
  role: Role;
  problem: KnownProblem;
  /** explore / debug: 0-based subtask; debug: the failed candidate's index. */
  subtask?: number;
  candidate?: number;
  text: string;
}

function contents(req: ScriptedRequest): Array<{ role: string; content: string }> {
  return req.body.messages as Array<{ role: string; content: string }>;
}

export function identifyTask(text: string, problems: KnownProblem[]): KnownProblem {
  let matches = problems.filter((p) => text.includes(p.prompt.trim()));
  // The planner is told the task's requirement in words, not its stub.
  if (matches.length === 0)
    matches = problems.filter((p) => p.requirement !== undefined && text.includes(`[Task]\n${p.requirement}\n[Subtasks]`));
  if (matches.length !== 1) throw new Error(`request matches ${matches.length} problems`);
  return matches[0]!;
}

export function classify(req: ScriptedRequest, problems: KnownProblem[]): Classified {
  const messages = contents(req);
  const system = messages[0]!.content;
  const text = messages.map((m) => m.content).join('\n');
  const problem = identifyTask(text, problems);
  const user = messages[messages.length - 1]!.content;
  const seedIndex = Number(req.body.seed) - SEED;
  if (system.includes('plans how to solve')) return { role: 'plan', problem, text };
  if (system.includes('a programming step needs')) return { role: 'rerank', problem, text };
  if (system.includes('APIs a program needs')) return { role: 'global', problem, text };
  if (system.includes('senior Python programmer')) return { role: 'final', problem, text };
  if (system.includes('never used by writing small experiments')) {
    if (user.startsWith('This experiment for the subtask')) {
      const m = /MARK-s(\d)-c(\d)/.exec(user);
      return { role: 'debug', problem, ...(m ? { subtask: Number(m[1]), candidate: Number(m[2]) } : { candidate: seedIndex }), text };
    }
    const m = /Current subtask \((\d+) of \d+\)/.exec(user);
    return { role: 'explore', problem, subtask: Number(m![1]) - 1, candidate: seedIndex, text };
  }
  if (user.includes('Do not write the code yet')) return { role: 'feedback', problem, text };
  if (messages.length > 2) return { role: 'repair', problem, text };
  return { role: 'generate', problem, text };
}

export const SEED = 1000;

function block(code: string): string {
  return `Here is the experiment:\n\`\`\`python\n${code}\n\`\`\`\n`;
}

/** One text, or with the API's n > 1 one per choice. */
function choices(req: ScriptedRequest, text: (choice: number) => string): string | string[] {
  const n = Number(req.body.n ?? 1);
  return n > 1 ? Array.from({ length: n }, (_, j) => text(j)) : text(0);
}

export function exploraScript(problems: KnownProblem[], seen: Classified[] = []) {
  return (req: ScriptedRequest): Reply => {
    const c = classify(req, problems);
    seen.push(c);
    const canonical = c.problem.canonical_solution;
    switch (c.role) {
      case 'plan':
        return {
          content:
            'Plan:\n1. Find out what the first step does to the example inputs.\n2. Apply the second step to what the first produced.\n',
        };
      case 'rerank':
      case 'global': {
        // Name the first two offered import paths, as a model that read the list would.
        const offered = [...c.text.matchAll(/^\[\d+\] (\S+?):/gm)].map((m) => m[1]!);
        return { content: offered.slice(0, 2).join('\n') };
      }
      case 'explore': {
        const j = c.candidate!;
        if (c.subtask === 0) return { content: block(`raise ValueError('MARK-s0-c${j} does not work')`) };
        if (j === 0) return { content: block(`raise KeyError('MARK-s1-c0')`) };
        if (j === 1) return { content: block(`x = 'MARK-s1-c1 silent'`) };
        return { content: block(`print('MARK-s1-c${j}', 'abc'.upper())`) };
      }
      case 'debug':
        return {
          content: block(c.candidate === 1 ? `print('MARK-s0-d1 fixed')` : `raise ValueError('MARK-s0-c${c.candidate} still broken')`),
        };
      case 'final':
        return { content: choices(req, () => `Solution:\n\`\`\`python\n${canonical}\`\`\`\n`) };
      case 'generate': {
        const lines = canonical.split('\n');
        const def = lines.findIndex((l) => l.startsWith('def '));
        const wrong = `${lines.slice(0, def + 1).join('\n')}\n    return s + '#'\n`;
        // Choice j of a request answers sample seed - SEED + j.
        return { content: choices(req, (j) => `\`\`\`python\n${Number(req.body.seed) - SEED + j === 0 ? wrong : canonical}\`\`\`\n`) };
      }
      case 'repair':
        return { content: `\`\`\`python\n${canonical}\`\`\`\n` };
      case 'feedback':
        return { content: 'The code does not do what the examples show.' };
    }
  };
}

export interface ScriptedSweep {
  id: string;
  /** Written as YAML, in config order; `pbe` is a PBE World dataset of these parameters. */
  datasets: Array<{ name: string; pbe?: { count: number; seed: number; library?: 'private' }; [key: string]: unknown }>;
  /** The scripted server's URL. */
  baseUrl: string;
  /** The request's `model` (also tells apart the requests of sweeps sharing a server). */
  model?: string;
  /** More keys of the model: concurrency, request_timeout_s (default 20), samples_per_request... */
  modelOptions?: Record<string, unknown>;
  methods: string[];
  methodOptions?: Record<string, unknown>;
  nSamples: number;
  k: number[];
  /** More top-level keys of the config (e.g. a `prompts:` axis). */
  extra?: Record<string, unknown>;
}

/**
 * A sweep config against the scripted chat model at temperature 0.8 with the tests' seed, written
 * to `file` as YAML (what a user would write).
 */
export function writeScriptedSweep(file: string, s: ScriptedSweep): void {
  const config = {
    id: s.id,
    datasets: s.datasets.map(({ pbe, ...rest }) =>
      pbe ? { ...rest, family: 'pbe-world', pbe_world: pbe } : { family: 'humaneval', ...rest },
    ),
    models: [{ id: 'chat', base_url: s.baseUrl, model: s.model ?? 'scripted', request_timeout_s: 20, ...s.modelOptions }],
    methods: s.methods,
    ...(s.methodOptions ? { method_options: s.methodOptions } : {}),
    temperatures: [0.8],
    n_samples: s.nSamples,
    k: s.k,
    timeout_s: 5,
    seed: SEED,
    ...s.extra,
  };
  writeFileSync(file, YAML.stringify(config));
}
