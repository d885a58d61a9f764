/**
 * A task the dataset itself gets wrong, found while scoring a sample (Spider: its gold query fails
 * on its database): no sample of the task can be scored, and scoring it as a wrong answer would
 * hide the problem in the numbers. Callers stop and name it: a sweep's shard fails for good
 * (`DatasetProblem`), evaluate.ts exits 2 with the message.
 */
export class DatasetProblemError extends Error {
  override name = 'DatasetProblemError';
}
