/**
 * Which tasks of a dataset a sweep runs, as bigcode-evaluation-harness selects them: by id
 * (`tasks:`), then from index `limit_start`, at most `limit`. Applied to every dataset of the
 * sweep, in the dataset's own order, by the CLI (to check and count) and by the storage activity
 * (to store the sweep's problems): one function, so both see the same tasks.
 */
export interface TaskSelection {
  /** Task ids to keep (as the dataset writes them, in text: MBPP's 11 is "11"). */
  tasks?: readonly string[];
  /** Index, in the selected tasks, of the first one run. */
  start?: number;
  limit?: number;
}

/** A sweep config's selection. */
export function selectionOf(config: { tasks?: readonly string[]; limit_start?: number; limit?: number }): TaskSelection {
  return {
    ...(config.tasks ? { tasks: config.tasks } : {}),
    ...(config.limit_start !== undefined ? { start: config.limit_start } : {}),
    ...(config.limit !== undefined ? { limit: config.limit } : {}),
  };
}

/** The selected items; `idOf` reads an item's task id. */
export function selectTasks<T>(items: readonly T[], selection: TaskSelection, idOf: (item: T) => string): T[] {
  const wanted = selection.tasks ? new Set(selection.tasks) : null;
  const chosen = wanted ? items.filter((item) => wanted.has(idOf(item))) : items;
  const start = selection.start ?? 0;
  return chosen.slice(start, selection.limit === undefined ? undefined : start + selection.limit);
}

/** Rows to read of a dataset generated in order so that the selection sees every task it needs. */
export function rowsNeeded(selection: TaskSelection): number | undefined {
  if (selection.tasks || selection.limit === undefined) return undefined;
  return (selection.start ?? 0) + selection.limit;
}

/**
 * What is wrong with a selection over the given datasets' task ids (before start and limit): ids
 * no dataset has, a dataset none of whose tasks is selected, a start past the end. Null when fine.
 */
export function selectionProblem(selection: TaskSelection, idsByDataset: ReadonlyMap<string, readonly string[]>): string | null {
  if (selection.tasks) {
    const known = new Set([...idsByDataset.values()].flat());
    const unknown = selection.tasks.filter((id) => !known.has(id));
    if (unknown.length)
      return `tasks: ${unknown
        .slice(0, 5)
        .map((id) => JSON.stringify(id))
        .join(', ')}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ''} in no dataset of the sweep`;
  }
  for (const [name, ids] of idsByDataset) {
    const byId = selectTasks(ids, { ...(selection.tasks ? { tasks: selection.tasks } : {}) }, (id) => id);
    if (selection.tasks && byId.length === 0)
      return `dataset ${name}: tasks selects none of its tasks (list some of its ids, or give it a sweep of its own)`;
    const start = selection.start ?? 0;
    if (start >= byId.length)
      return `limit_start: ${start} is past the last of the ${byId.length} ${selection.tasks ? 'selected ' : ''}tasks of dataset ${name}`;
  }
  return null;
}
