/**
 * A cell's samples paired with their solutions, as the peers' per-sample result files list them
 * (BigCodeBench's and evalplus's eval_results.json): the solutions are the cell's generations.json
 * (a list per task, `[]` for a task without samples), the samples its samples.jsonl rows, both in
 * task then sample order (CellFiles).
 */

/** Each sample with its solution; throws naming the first sample generations.json has none for. */
export function samplesWithSolutions<S extends { task_id: string }>(
  samples: readonly S[],
  generations: readonly string[][],
): Array<{ sample: S; solution: string }> {
  const solutions = generations.filter((list) => list.length > 0);
  let task = -1;
  let previous: string | undefined;
  let index = 0;
  return samples.map((sample) => {
    if (sample.task_id !== previous) {
      task += 1;
      index = 0;
      previous = sample.task_id;
    }
    const solution = solutions[task]?.[index++];
    if (solution === undefined) throw new Error(`generations.json has no solution for sample ${index} of task ${sample.task_id}`);
    return { sample, solution };
  });
}
