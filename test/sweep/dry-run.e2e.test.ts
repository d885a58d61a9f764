/**
 * `start-sweep --dry-run` on a config with prices and a warm cache: a first sweep (3 tasks) leaves its
 * answers in the LLM cache; the dry run of the same grid on 6 tasks prints per cell and in total the
 * requests, prompt tokens (counted with the embedded model's tokenizer for the model it names,
 * estimated and marked for the other), completion tokens (max_tokens bound; expected from the 3
 * cached answers of each model), money in each model's currency, and the power of the grid's model
 * comparison with its warning; it sends nothing and stores nothing.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepConfigKey } from '../../domain/sweep/keys.js';
import { formatMoney } from '../../domain/sweep/price.js';
import { MAX_GENERATED_SAMPLES_PER_TASK } from '../../domain/sweep/sharding.js';
import { getText } from '../../infra/s3.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { runTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { countTokens, startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { HUMANEVAL } from './support.js';

const { config, env } = testConfig();
const bucket = testBucket(config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-dry-run-'));
const ANSWER = '    x = 1\n    return x + 1\n';
let server: ScriptedLlmServer;
/** The refusals' endpoint: apart from the first case's, whose requests it counts while they run. */
let refusals: ScriptedLlmServer;

beforeAll(async () => {
  [server, refusals] = await Promise.all([
    startScriptedLlmServer(() => ({ content: ANSWER })),
    startScriptedLlmServer(() => ({ content: ANSWER })),
  ]);
});
afterAll(async () => {
  await Promise.all([server.close(), refusals.close()]);
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

function write(id: string, limit: number, url = server.url): string {
  const file = path.join(dir, `${id}.yaml`);
  writeFileSync(
    file,
    `id: ${id}
datasets:
  - name: he
    family: humaneval
    path: ${HUMANEVAL}
models:
  - id: qwen
    base_url: ${url}
    model: qwen2.5-coder-0.5b-instruct
    max_tokens: 512
    price: {input_per_mtok: 0.15, output_per_mtok: 0.6, currency: USD}
  - id: gpt
    base_url: ${url}
    model: scripted-gpt
    api: completions
    max_tokens: 300
    price: {input_per_mtok: 2, output_per_mtok: 8, currency: EUR}
methods: [direct]
temperatures: [0]
n_samples: 1
k: [1]
limit: ${limit}
`,
  );
  return file;
}

/** The forecast table's row of a cell (or total), split into its columns. */
function row(output: string, name: string): string[] {
  const line = output.split('\n').find((l) => l.startsWith(`${name} `) && /tokens|USD|EUR|-/.test(l) && l.split(/\s{2,}/).length >= 7);
  if (!line) throw new Error(`no forecast row ${name} in:\n${output}`);
  return line.trim().split(/\s{2,}/);
}
const num = (s: string) => Number(s.replace(/[~,]/g, ''));

// The cases run at once (ids and endpoints of their own): their commands' start-ups overlap.
describe.concurrent('start-sweep --dry-run: tokens, money and power', () => {
  it('forecasts a priced grid from the cache of an earlier run, and starts nothing', async () => {
    const suffix = uniqueSuffix();
    const warm = await runTs('scripts/start-sweep.ts', ['--config', write(`warm-${suffix}`, 3), '--no-progress'], env);
    expect(warm.code, warm.output).toBe(0);
    const sent = server.requests().length;
    expect(sent).toBe(6); // 3 tasks x 2 models

    const id = `dry-${suffix}`;
    const dry = await runTs('scripts/start-sweep.ts', ['--config', write(id, 6), '--dry-run', '--min-difference', '0.1'], env);
    expect(dry.code, dry.output).toBe(0);
    const out = dry.output;

    // Per cell: requests, prompt tokens, completion max, expected, cost max, expected.
    const perAnswer = countTokens(ANSWER);
    const qwen = row(out, 'he.qwen.direct.t0');
    const gpt = row(out, 'he.gpt.direct.t0');
    expect(qwen[1]).toBe('6');
    expect(gpt[1]).toBe('6');
    expect(qwen[2]).toMatch(/^[\d,]+$/); // counted with the model's own tokenizer: no ~
    expect(gpt[2]).toMatch(/^~[\d,]+$/); // estimated from characters
    expect(out).toMatch(/prompt tokens of qwen: counted with its own tokenizer \(.*qwen2\.5-coder-0\.5b-instruct\.gguf\)/);
    expect(out).toMatch(/~ prompt tokens: ESTIMATED from characters \(3\.3 per token\): explora has no tokenizer of the model/);
    expect(num(qwen[3]!)).toBe(6 * 512);
    expect(num(gpt[3]!)).toBe(6 * 300);
    expect(qwen[4]).toBe(`~${6 * perAnswer}`);
    expect(gpt[4]).toBe(`~${6 * perAnswer}`);
    expect(out).toContain(
      `expected completion tokens of qwen: ${perAnswer.toFixed(1)} per answer, the mean of 3 earlier answers in the LLM cache (to this sweep's own first prompts)`,
    );

    // Money: tokens x price per million, each model in its own currency.
    const usd = (prompt: number, completion: number) => (prompt * 0.15 + completion * 0.6) / 1e6;
    const eur = (prompt: number, completion: number) => (prompt * 2 + completion * 8) / 1e6;
    const [pq, pg] = [num(qwen[2]!), num(gpt[2]!)];
    expect(qwen[5]).toBe(formatMoney({ amount: usd(pq, 6 * 512), currency: 'USD' }));
    expect(qwen[6]).toBe(`~${formatMoney({ amount: usd(pq, 6 * perAnswer), currency: 'USD' })}`);
    expect(gpt[5]).toBe(formatMoney({ amount: eur(pg, 6 * 300), currency: 'EUR' }));
    const total = row(out, 'total');
    expect(total[1]).toBe('12');
    expect(num(total[2]!)).toBe(pq + pg);
    expect(num(total[3]!)).toBe(6 * 512 + 6 * 300);
    expect(total[4]).toBe(`~${12 * perAnswer}`);
    expect(total[5]).toBe(
      `${formatMoney({ amount: usd(pq, 6 * 512), currency: 'USD' })} + ${formatMoney({ amount: eur(pg, 6 * 300), currency: 'EUR' })}`,
    );

    // Power: 6 tasks x 1 sample cannot decide the model comparison the grid implies.
    expect(out).toMatch(/he\s+6\s+1\s+none\s+1/);
    expect(out).toMatch(
      /warning: dataset he: 1 model comparison \(e\.g\. he\.qwen\.direct\.t0 vs he\.gpt\.direct\.t0\) cannot decide a difference of 10\.0 points at 6 tasks x n = 1/,
    );

    // Nothing was sent or stored.
    expect(server.requests().length).toBe(sent);
    expect(await getText(bucket, sweepConfigKey(id))).toBeNull();
  });

  it('refuses n_samples over what one task can generate before any work, naming the file and the field; sends and stores nothing', async () => {
    const id = `many-${uniqueSuffix()}`;
    const file = write(id, 1, refusals.url);
    const n = MAX_GENERATED_SAMPLES_PER_TASK + 1;
    writeFileSync(file, readFileSync(file, 'utf8').replace('n_samples: 1\n', `n_samples: ${n}\n`));
    const sentBefore = refusals.requests().length;
    const runs = await Promise.all(
      [['--dry-run'], ['--no-progress'], ['--generation-only', '--no-progress']].map((flags) =>
        runTs('scripts/start-sweep.ts', ['--config', file, ...flags], env),
      ),
    );
    for (const refused of runs) {
      expect(refused.code, refused.output).not.toBe(0);
      expect(refused.output).toContain(`${file}: n_samples: ${n} is over the ${MAX_GENERATED_SAMPLES_PER_TASK} samples of one task`);
    }
    expect(refusals.requests().length).toBe(sentBefore);
    expect(await getText(bucket, sweepConfigKey(id))).toBeNull();
  });

  it('refuses bad power flags, naming them, and power flags without --dry-run', async () => {
    const file = write(`flags-${uniqueSuffix()}`, 2, refusals.url);
    const [bad, alone] = await Promise.all([
      runTs('scripts/start-sweep.ts', ['--config', file, '--dry-run', '--baseline', '1.5'], env),
      runTs('scripts/start-sweep.ts', ['--config', file, '--min-difference', '0.1', '--no-progress'], env),
    ]);
    expect(bad.code).not.toBe(0);
    expect(bad.output).toMatch(/--baseline 1\.5: must be a number between 0 and 1/);
    expect(alone.code).not.toBe(0);
    expect(alone.output).toMatch(/--min-difference: only with --dry-run/);
  });
});
