/**
 * MonkeyEval (pandas renamed to `monkey`) through a sweep on the real stack with real pandas in the
 * sandbox: the loader, the renamed runtime for final programs and exploration snippets, and the rule
 * that a model never sees the original names, not even in a traceback from inside pandas.
 */
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getText } from '../../infra/s3.js';
import { loadPrivateLibraryDataset } from '../../domain/families/renamed-library/loader.js';
import { sweepResultsKey } from '../../domain/sweep/keys.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { runTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type Reply, type ScriptedLlmServer, type ScriptedRequest } from '../support/scripted-llm-server.js';
import type { KnownProblem } from '../sweep/support.js';
import { classify, SEED, type Classified } from './support.js';
import { naturalLanguageOf } from '../../methods/exploracoder/requirement.js';

const REF = path.join(PROJECT_ROOT, '..', 'shared', 'reference', 'private-library');
const ROWS = path.join(REF, 'real_monkey_eval_v3.jsonl.gz');
const KEYWORDS = path.join(REF, 'pandas_keywords.jsonl');
const MAPPING = path.join(REF, 'pandas_keyword_mapping.json');
const LIMIT = 4;

const { config, env } = testConfig();
const bucket = testBucket(config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-monkey-'));
const loaded = loadPrivateLibraryDataset({
  rows: gunzipSync(readFileSync(ROWS)).toString('utf8'),
  keywords: readFileSync(KEYWORDS, 'utf8'),
  mapping: readFileSync(MAPPING, 'utf8'),
  kind: 'monkey',
});
const problems: KnownProblem[] = loaded.problems.slice(0, LIMIT).map((p, index) => ({
  dataset: 'monkey',
  index,
  task_id: p.task_id,
  prompt: p.prompt,
  entry_point: p.entry_point,
  canonical_solution: String(p.canonical_solution),
  full: false,
  requirement: naturalLanguageOf(p.prompt) || p.prompt.trim(),
}));
const seen: Classified[] = [];
let server: ScriptedLlmServer;

function block(code: string): string {
  return `\`\`\`python\n${code}\n\`\`\`\n`;
}

beforeAll(async () => {
  server = await startScriptedLlmServer((req: ScriptedRequest): Reply => {
    const c = classify(req, problems);
    seen.push(c);
    switch (c.role) {
      case 'plan':
        return { content: '1. Build a small KnowledgeFrame and look at it.\n2. Apply the operation the task asks for.\n' };
      case 'rerank':
      case 'global':
        return {
          content: [...c.text.matchAll(/^\[\d+\] (\S+?):/gm)]
            .map((m) => m[1]!)
            .slice(0, 2)
            .join('\n'),
        };
      case 'explore':
        // Subtask 1's snippets fail inside pandas itself: their traceback runs through its files.
        return c.subtask === 0
          ? { content: block("import monkey as mk\nkf = mk.KnowledgeFrame({'a': [1, 2]})\nprint(kf.sip('zz', axis=1))") }
          : { content: block("import monkey as mk\nprint(mk.KnowledgeFrame({'b': [3]}).columns.convert_list())") };
      case 'debug':
        return {
          content: block("import monkey as mk\nkf = mk.KnowledgeFrame({'a': [1, 2]})\nprint(kf.sip('a', axis=1).columns.convert_list())"),
        };
      default:
        // final, and direct's answers: the dataset's own canonical completion (in monkey's names).
        return { content: block(c.problem.prompt + c.problem.canonical_solution) };
    }
  });
});
afterAll(async () => {
  await server.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe('MonkeyEval through a sweep', () => {
  it('runs renamed programs on real pandas and never shows the model a pandas name', async () => {
    const id = `monkey-${uniqueSuffix()}`;
    const file = path.join(dir, 'sweep.yaml');
    writeFileSync(
      file,
      `id: ${id}
datasets:
  - name: monkey
    family: renamed-library
    path: ${ROWS}
    library: { private_library: monkey, keywords: ${KEYWORDS}, mapping: ${MAPPING} }
models:
  - id: chat
    base_url: ${server.url}
    model: scripted
    concurrency: 4
    request_timeout_s: 30
methods: [direct, exploracoder-debug]
method_options: { candidates: 2 }
temperatures: [0.8]
n_samples: 1
k: [1]
limit: ${LIMIT}
timeout_s: 20
seed: ${SEED}
`,
    );
    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
    expect(run.code, run.output).toBe(0);
    // The loader says which rows it had to fix (PandasEval/0: the prompt's function name differs).
    expect(run.output).toMatch(/dataset monkey: PandasEval\/0: /);

    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!) as {
      cells: Array<{ cell: { method: string }; resultsKey: string }>;
    };
    for (const cell of results.cells) {
      const detail = JSON.parse((await getText(bucket, cell.resultsKey))!) as {
        per_task: Array<{ task_id: string; c: number; s: number }>;
      };
      // PandasEval/0's published test expects a column its canonical solution does not create;
      // 1-3 pass when (and only when) monkey's names are mapped back onto real pandas.
      expect(
        detail.per_task.map((t) => [t.task_id, t.c]),
        cell.cell.method,
      ).toEqual([
        ['PandasEval/0', 0],
        ['PandasEval/1', 1],
        ['PandasEval/2', 1],
        ['PandasEval/3', 1],
      ]);
    }

    // Exploration saw pandas fail (a KeyError from inside its code) — in monkey's names only.
    const debug = seen.filter((c) => c.role === 'debug');
    expect(debug.length).toBeGreaterThan(0);
    expect(debug[0]!.text).toMatch(/KeyError/);
    expect(debug[0]!.text).toMatch(/monkey/);
    for (const c of seen) {
      expect(c.text, `${c.role} request for ${c.problem.task_id}`).not.toMatch(/pandas|DataFrame|\bpd\./);
    }
    const finals = seen.filter((c) => c.role === 'final');
    expect(finals.length).toBe(LIMIT);
    for (const f of finals) expect(f.text).toContain("print(kf.sip('a', axis=1).columns.convert_list())");
  });
});
