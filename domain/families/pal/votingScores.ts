/**
 * PAL's score kind: a sample's `answer` (the answer its program gave, null when the run gave none:
 * bigcode's "failed: ...", left out of the vote; `comparable` whether float() takes both it and the
 * reference), and the cell's `voting` figures, PAL's accuracy as bigcode computes it, both ways it
 * chooses a task's answer from its samples' answers: `greedy`, the first sample's answer;
 * `majorityVoting`, the most common one. Each with bigcode's num_failed_execution, the tasks whose
 * chosen answer (none: "") float() does not take. A cell keeps per task its distinct answers only.
 */
import { z } from 'zod';
import { majorityOf } from '../../metrics/pal.js';
import { declareScoreKind, type PerTaskRow } from '../../scoring/scoreKind.js';

const AnswerSampleSchema = z.object({ kind: z.literal('answer'), answer: z.string().nullable(), comparable: z.boolean() });

const VotingScoreSchema = z.object({ accuracy: z.number(), numFailedExecution: z.number() });
/** bigcode's PAL figures for one way of choosing each task's answer. */
export type VotingScore = z.output<typeof VotingScoreSchema>;

const VotingFiguresSchema = z.object({ kind: z.literal('voting'), greedy: VotingScoreSchema, majorityVoting: VotingScoreSchema });
type VotingFigures = z.output<typeof VotingFiguresSchema>;

/** A task's distinct answers, in first-seen order: how many samples gave each, and how it scores. */
type AnswerTally = Map<string, { votes: number; correct: boolean; comparable: boolean }>;

/** bigcode's pal_code_exec over the tasks' tallies: a task without an answer answers "", which float() refuses. */
function votingScore(tasks: readonly AnswerTally[], choose: (answers: AnswerTally) => string | undefined): VotingScore {
  let correct = 0;
  let failed = 0;
  for (const answers of tasks) {
    const chosen = choose(answers);
    const tally = chosen === undefined ? undefined : answers.get(chosen);
    if (!tally?.comparable) failed++;
    else if (tally.correct) correct++;
  }
  return { accuracy: tasks.length ? correct / tasks.length : 0, numFailedExecution: failed };
}

/** PAL's figures under bigcode's names: its two evaluation types, each {accuracy, num_failed_execution}. */
function votingJson(figures: VotingFigures): Record<string, unknown> {
  const json = (s: VotingScore) => ({ accuracy: s.accuracy, num_failed_execution: s.numFailedExecution });
  return { greedy: json(figures.greedy), majority_voting: json(figures.majorityVoting) };
}

const PerTaskAnswersSchema = z
  .array(z.object({ answer: z.string(), votes: z.number().int().positive(), correct: z.boolean().optional() }))
  .optional();
type PerTaskAnswers = NonNullable<z.output<typeof PerTaskAnswersSchema>>;

export const VOTING_SCORES = declareScoreKind<z.output<typeof AnswerSampleSchema>, AnswerTally, null, VotingFigures>({
  sampleKind: 'answer',
  sampleSchema: AnswerSampleSchema,
  recordScore: (score) => ({ kind: 'answer', answer: score.answer as string | null, comparable: score.comparable as boolean }),
  rowFields: (sample) => ({ answer: sample.answer }),
  runs: true,
  newCell: () => null,
  add: (_cell, task, sample, { passed }) => {
    const answers = task ?? new Map();
    if (sample.answer !== null) {
      const tally = answers.get(sample.answer);
      if (tally) tally.votes++;
      else answers.set(sample.answer, { votes: 1, correct: passed, comparable: sample.comparable });
    }
    return answers;
  },
  figures: (_cell, tasks) => {
    if (!tasks.some((t) => t.state !== undefined)) return null;
    const answersOf = tasks.map((t) => t.state ?? (new Map() as AnswerTally));
    return {
      kind: 'voting',
      greedy: votingScore(answersOf, (answers) => answers.keys().next().value),
      majorityVoting: votingScore(answersOf, (answers) => majorityOf(new Map([...answers].map(([a, { votes }]) => [a, votes])))),
    };
  },
  cellKind: 'voting',
  cellSchema: VotingFiguresSchema,
  // `correct`: the answer scores (is right and comparable), so that a comparison can score the task's vote.
  perTaskJson: (answers) => ({
    answers: [...answers].map(([answer, { votes, correct, comparable }]) => ({ answer, votes, correct: correct && comparable })),
  }),
  perTaskShape: { answers: PerTaskAnswersSchema },
  resultsJson: votingJson,
  // bigcode's pal-*-greedy runs one sample per task, pal-*-majority_voting several; both are kept.
  metricsLine: (figures, parts) => {
    const headline = parts.nSamples > 1 ? figures.majorityVoting : figures.greedy;
    return {
      ...parts.passAtK,
      ...parts.alsoText,
      accuracy: headline.accuracy,
      num_failed_execution: headline.numFailedExecution,
      ...votingJson(figures),
    };
  },
  progressLine: ({ greedy, majorityVoting }) =>
    `accuracy greedy ${greedy.accuracy.toFixed(4)} (${greedy.numFailedExecution} failed), ` +
    `majority voting ${majorityVoting.accuracy.toFixed(4)} (${majorityVoting.numFailedExecution} failed)`,
  report: {
    order: 50,
    intro:
      "PAL's accuracy, as bigcode computes it: each task's answer is its first sample's (<b>greedy</b>) or its samples' most common (<b>majority voting</b>), runs that gave no answer left out; <b>failed</b> counts the tasks whose chosen answer is not a number (bigcode's num_failed_execution).",
    tableId: 'voting-scores-table',
    headers: () => ['greedy accuracy', 'failed', 'majority-voting accuracy', 'failed'],
    rows: (figures, _ks, f) => [
      [
        { num: true, html: f.pct(figures.greedy.accuracy) },
        { num: true, html: f.int(figures.greedy.numFailedExecution) },
        { num: true, html: f.pct(figures.majorityVoting.accuracy) },
        { num: true, html: f.int(figures.majorityVoting.numFailedExecution) },
      ],
    ],
  },
  // Whether the answer a vote picks is right, 0 or 1 per task (results stored before `correct` have none).
  compare: (a, b) => {
    const answersOf = (t: PerTaskRow) => t.answers as PerTaskAnswers | undefined;
    const voted = (t: PerTaskRow) => answersOf(t) !== undefined && answersOf(t)!.every((x) => x.correct !== undefined);
    if (!(a.every(voted) && b.every(voted))) return [];
    const scoreOf = (t: PerTaskRow, answer: string | undefined) => (answersOf(t)!.find((x) => x.answer === answer)?.correct ? 1 : 0);
    return [
      ['majority-voting accuracy', (t) => scoreOf(t, majorityOf(new Map(answersOf(t)!.map((x) => [x.answer, x.votes]))))],
      ['greedy accuracy', (t) => scoreOf(t, answersOf(t)![0]?.answer)],
    ];
  },
});
