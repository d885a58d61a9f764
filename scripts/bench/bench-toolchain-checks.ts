/**
 * `tsx scripts/bench/bench-toolchain-checks.ts [--rounds 3]`: how long a fresh process takes to
 * check every process language's toolchain (what start-sweep does before anything starts, for the
 * languages of its datasets), the checks one after another (as before 2026-11-26) and side by side
 * (as now), alternating, each in a fresh Node process so that nothing is remembered in memory.
 * Answers kept between runs (`.tools/multiple/probes/`) are used by both: the first round makes
 * them. Prints the milliseconds of each round, and which languages are missing here.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { z } from 'zod';

const ROOT = join(import.meta.dirname, '..', '..');
const opts = z
  .object({ rounds: z.coerce.number().int().positive() })
  .parse(new Command().option('--rounds <n>', 'alternate the two ways this many times', '3').parse().opts());

/** One fresh process: import the registry, then time the checks; prints { ms, missing }. */
function timeIn(mode: 'one after another' | 'side by side'): { ms: number; missing: string[] } {
  const script = `
import { LANGUAGES, isProcessLanguageId } from ${JSON.stringify(join(ROOT, 'domain/languages/registry.ts'))};
import { toolchainFor } from ${JSON.stringify(join(ROOT, 'infra/sandbox/toolchainRegistry.ts'))};
const languages = Object.keys(LANGUAGES).filter(isProcessLanguageId);
const started = performance.now();
const checks = [];
if (${JSON.stringify(mode)} === 'side by side') checks.push(...(await Promise.all(languages.map((l) => toolchainFor(l).check()))));
else for (const l of languages) checks.push(await toolchainFor(l).check());
const ms = performance.now() - started;
process.stdout.write(JSON.stringify({ ms, missing: languages.filter((_, k) => !checks[k].ok) }));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  return z.object({ ms: z.number(), missing: z.array(z.string()) }).parse(JSON.parse(out));
}

for (let round = 1; round <= opts.rounds; round++) {
  for (const mode of ['one after another', 'side by side'] as const) {
    const { ms, missing } = timeIn(mode);
    console.log(
      `round ${round}, ${mode}: ${ms.toFixed(0)} ms (load ${loadavg()[0]!.toFixed(1)})${missing.length ? `; missing here: ${missing.join(', ')}` : ''}`,
    );
  }
}
