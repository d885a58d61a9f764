/**
 * scripts/evaluate.ts's scoring: the problems and samples read and checked (evaluate-input.ts),
 * then scored through the one scoring path a sweep's shard and cell use (infra/scoring/scoreAnswers.ts),
 * with evaluate.ts's progress on stderr. Imported once the sandbox is starting: it loads the
 * families and the scoring path meanwhile.
 */
import { basename } from 'node:path';
import { languageOf } from '../../domain/families/registry.js';
import { answerSanitizer, type AnswerSanitizer, type Sanitizer } from '../../domain/llm/sanitizer.js';
import { cellFigures, evalplusDate } from '../../domain/sweep/peerFiles.js';
import { textCheckingOf } from '../../domain/sweep/textScores.js';
import { diskReferenceOutputs } from '../../infra/referenceOutputs.js';
import { scoreAnswers } from '../../infra/scoring/scoreAnswers.js';
import { defaultCacheDir, type EvaluateArgs } from './evaluate-args.js';
import { readEvaluateInput, type EvaluateInput } from './evaluate-input.js';
import type { ProblemsInput } from './evaluate-problems-input.js';
import { toolchainProblem } from './evaluate-process.js';
import { timeoutMsOf, type EvaluateSandbox } from './evaluate-sandbox.js';
import { UsageError } from './evaluate-usage.js';

/** --sanitize's reader, its parser loaded only then. */
async function sanitizerOf(name: Sanitizer): Promise<AnswerSanitizer> {
  const { loadPythonParser } = await import('../../infra/pythonParser.js');
  return answerSanitizer(name, await loadPythonParser());
}

/** What the samples scored to: the input as read, the scoring path's output, and evaluate.ts's metrics line. */
export type Evaluation = { input: EvaluateInput; maxPerTask: number; metricsLine: Record<string, unknown> } & Awaited<
  ReturnType<typeof scoreAnswers>
>;

/** The samples read, checked and scored; `mainAt`: when evaluate.ts's main started (for --verbose's start-up line). */
export async function evaluateAnswers(
  { opts, task, family, familyOptions }: EvaluateArgs,
  { problemsText, problemsFile }: ProblemsInput,
  { pool, hint, early, startedAt }: EvaluateSandbox,
  mainAt: number,
): Promise<Evaluation> {
  const input = readEvaluateInput({
    problemsText,
    problemsFile,
    samplesFile: opts.samples,
    ...(family ? { family } : {}),
    ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
    ...(opts.nSamples !== undefined ? { nSamples: opts.nSamples } : {}),
    ...(opts.form ? { form: opts.form } : {}),
    ...(opts.sanitize ? { sanitize: { name: opts.sanitize, answers: await sanitizerOf(opts.sanitize) } } : {}),
    options: familyOptions,
    ignoreIncomplete: opts.ignoreIncomplete,
    ...(opts.python ? { python: opts.python } : {}),
  });
  const { samples, attempted } = input;
  for (const note of input.notes) process.stderr.write(`evaluate: ${note}\n`);
  const textScored = textCheckingOf(attempted[0]!) !== null;
  const checkedAt = performance.now();
  if (!textScored) {
    const language = languageOf(attempted[0]!).id;
    if (opts.shareProcess && language !== 'js')
      process.stderr.write(
        `evaluate: --share-process: only JavaScript programs share a process; ${language} programs run a process each\n`,
      );
    process.stderr.write(
      `evaluate: running ${samples.length} samples of ${attempted.length} ${input.family} problems, ${opts.workers} at once\n`,
    );
  }
  const maxPerTask = Math.max(...input.answers.map((a) => a.sampleIndex + 1));
  const scored = await scoreAnswers(
    {
      problems: input.problems,
      answers: input.answers,
      k: opts.k,
      cell: { dataset: task?.name ?? input.family, n_samples: maxPerTask, ...task?.cell, ...input.cell },
      runnerFor: async (language, runtime, readableDirs) => {
        const problem = await toolchainProblem(language);
        if (problem !== null) throw new UsageError(`${problemsFile}: ${problem}`);
        return pool.forLanguage(language, runtime, readableDirs);
      },
      references: diskReferenceOutputs(opts.cacheDir ?? defaultCacheDir()),
      timeoutMs: timeoutMsOf(opts),
      inFlight: input.answers.length,
      samplesName: basename(opts.samples),
      onStarted: () => {
        if (!opts.verbose || textScored) return;
        const ms = (t: number) => `${t.toFixed(0)} ms`;
        process.stderr.write(
          `evaluate: start-up: modules loaded at ${ms(mainAt)}, sandbox started at ${ms(startedAt)} (${hint === early ? `${hint}'s process runner, from the first row` : `${early}'s runner`}), ` +
            `input checked at ${ms(checkedAt)}, sandbox ready and first program sent at ${ms(performance.now())} (since this node process started)\n`,
        );
      },
      onScored: (done, total) => {
        if (!textScored && (done % 100 === 0 || done === total)) process.stderr.write(`evaluate: ${done}/${total}\n`);
      },
    },
    evalplusDate(new Date()),
  );
  return { ...scored, input, maxPerTask, metricsLine: cellFigures(scored.summary, 'evaluate') };
}
