/**
 * Scoring a set of saved answers of one dataset, as a sweep's shard and cell score them: each
 * answer through SampleScorer (its record), then the records folded into the cell's results
 * (domain/sweep/results.ts summarizeCell) and its files (cellFileTexts; the peers' files,
 * domain/sweep/peerFiles.ts). scripts/evaluate.ts is this over a problems file and a samples file.
 */
import type { SweepProblem } from '../../domain/datasets/problems.js';
import type { Generation } from '../../domain/scoring/sampleRecord.js';
import { generationFields } from '../../domain/scoring/sampleRecord.js';
import { peerFiles, type SampleOutcome } from '../../domain/sweep/peerFiles.js';
import { cellFileTexts, summarizeCell, type CellSummary } from '../../domain/sweep/results.js';
import type { SampleRecord } from '../../domain/sweep/records.js';
import { mapLimit } from '../mapLimit.js';
import { SampleScorer, type SampleScorerOptions, type ScoredSample } from './sampleScorer.js';

/** An answer to score: its task (an index into the problems), its place among the task's samples, and the answer. */
export interface SavedAnswer {
  taskIndex: number;
  sampleIndex: number;
  generation: Generation;
}

export interface ScoreAnswersInput extends Omit<SampleScorerOptions, 'problems' | 'execute'> {
  /** The dataset's problems, in order: an answer's taskIndex is its task's place here. */
  problems: readonly SweepProblem[];
  answers: readonly SavedAnswer[];
  /** k of pass@k. */
  k: number[];
  /** The cell's settings, as results.json and bigcode's `config` name them (n_samples decides PAL's headline). */
  cell: Record<string, unknown>;
  /** Samples in flight at once. */
  inFlight: number;
  /** Runs before any sample does, once the runners are started (start-up timing). */
  onStarted?(): void;
  /** After each sample is scored. */
  onScored?(done: number, total: number): void;
  /** The samples' file or folder name, which a peer's files may name the model from (CellFiles.samplesName). */
  samplesName?: string;
}

export interface ScoredAnswers {
  /** Each answer's record (and run), in the answers' order. */
  scored: ScoredSample[];
  summary: CellSummary;
  results: Record<string, unknown>;
  /** The cell's files by name: generations.json, references.json, samples.jsonl, results.json's content is `results`; the peers' files. */
  files: Record<string, string>;
}

/** The records of the answers, the cell's results and its files. */
export async function scoreAnswers(input: ScoreAnswersInput, date: string): Promise<ScoredAnswers> {
  const { problems, answers } = input;
  const attempted = [...new Set(answers.map((a) => a.taskIndex))].sort((a, b) => a - b).map((t) => problems[t]!);
  const scorer = new SampleScorer({ ...input, problems: attempted, execute: true });
  await scorer.start();
  input.onStarted?.();
  let done = 0;
  const scored = await mapLimit([...answers], input.inFlight, async ({ taskIndex, sampleIndex, generation }) => {
    const problem = problems[taskIndex]!;
    const result = await scorer.score(
      problem,
      generationFields(problem, taskIndex, sampleIndex, generation),
      `${problem.task_id}@${sampleIndex}`,
    );
    input.onScored?.(++done, answers.length);
    return result;
  });
  const records: SampleRecord[] = scored.map((s) => s.record);
  const { summary, results } = summarizeCell({
    problems: [...problems],
    records: [...records].sort((a, b) => a.task_index - b.task_index || a.sample_index - b.sample_index),
    k: input.k,
    cell: input.cell,
    wallSeconds: 0,
    resultsKey: '',
  });
  const own = cellFileTexts(problems, records);
  const samples = own['samples.jsonl']
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as SampleOutcome);
  const files = { ...own, ...peerFiles(summary, JSON.parse(own['generations.json']) as string[][], samples, date, input.samplesName) };
  return { scored, summary, results, files };
}
