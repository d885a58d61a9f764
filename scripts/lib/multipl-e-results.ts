/**
 * MultiPL-E's results files, written into its completions directory as its evaluation step does:
 * `<name>.results.json.gz` per problem (domain/sweep/peerFiles.ts multiplEResultsJson), one result per
 * completion in the file's order.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { familyOf } from '../../domain/families/registry.js';
import { multiplEResultsJson, type MultiplEOutcome } from '../../domain/sweep/peerFiles.js';
import type { SavedAnswer } from '../../infra/scoring/scoreAnswers.js';
import type { ScoredSample } from '../../infra/scoring/sampleScorer.js';
import { multiplECompletionFiles } from './evaluate-samples.js';

/** Writes each completion file's results beside it; returns how many files were written. */
export function writeMultiplEResults(
  dir: string,
  problems: readonly SweepProblem[],
  answers: readonly SavedAnswer[],
  scored: readonly ScoredSample[],
): number {
  const byTask = new Map<string, MultiplEOutcome[]>();
  answers.forEach((answer, i) => {
    const problem = problems[answer.taskIndex]!;
    const { record, run } = scored[i]!;
    const outcomes = byTask.get(problem.task_id) ?? [];
    outcomes.push({
      // MultiPL-E's program: the prompt and the completion (cut at the stop tokens), then the tests.
      program: `${record.solution}\n${familyOf(problem).tests(problem, null)}`,
      status: record.status,
      ...(run ? { run: { stdout: run.stdout, stderr: run.stderr, exitCode: run.exitCode } } : {}),
    });
    byTask.set(problem.task_id, outcomes);
  });
  let written = 0;
  for (const { file, value } of multiplECompletionFiles(dir)) {
    const outcomes = byTask.get(value.name);
    if (!outcomes) continue;
    const out = path.join(dir, `${path.basename(file).replace(/\.json(\.gz)?$/, '')}.results.json.gz`);
    writeFileSync(out, gzipSync(multiplEResultsJson(value, outcomes)));
    written++;
  }
  return written;
}
