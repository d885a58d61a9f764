/**
 * The describe step's answers the synthesize step reads (bigcode's `--load_data_path`), in either
 * form: bigcode's generations file of humanevalexplaindescribe-<language> (a JSON list with one
 * list of descriptions per task, in the dataset's order, as its main.py saves them), or JSON Lines
 * of `{task_id, description}` (several rows of one task: its descriptions in their order). Each
 * task gets its descriptions, every one a string; a file of another count of tasks, a row naming
 * no task or a task left without one is refused naming the file and the place.
 */
import { z } from 'zod';
import { parseJsonl } from '../../datasets/jsonl.js';

const DescriptionRowSchema = z.looseObject({ task_id: z.string().min(1), description: z.string() });

const kindOf = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;

/** Each task's descriptions (taskIds' order), from the file's text; throws naming `source` and the place. */
export function readDescriptions(text: string, source: string, taskIds: readonly string[]): string[][] {
  const trimmed = text.trim();
  if (trimmed === '') throw new Error(`${source}: empty, expected the describe step's descriptions`);
  return trimmed.startsWith('[') ? fromBigcodeLists(trimmed, source, taskIds) : fromRows(text, source, taskIds);
}

function fromBigcodeLists(text: string, source: string, taskIds: readonly string[]): string[][] {
  let lists: unknown;
  try {
    lists = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `${source}: not JSON (${(error as Error).message}); expected bigcode's describe generations: one list of descriptions per task`,
    );
  }
  if (!Array.isArray(lists)) throw new Error(`${source}: expected a list with one list of descriptions per task`);
  if (lists.length !== taskIds.length)
    throw new Error(
      `${source}: ${lists.length} lists of descriptions, but the problems have ${taskIds.length} tasks ` +
        "(one list per task, in the problems file's order: describe and synthesize must read the same rows)",
    );
  return lists.map((list, t) => {
    if (!Array.isArray(list)) throw new Error(`${source}[${t}] (task ${taskIds[t]}): is ${kindOf(list)}, not a list of descriptions`);
    if (list.length === 0) throw new Error(`${source}[${t}] (task ${taskIds[t]}): no descriptions`);
    return list.map((description, i) => {
      if (typeof description !== 'string')
        throw new Error(`${source}[${t}][${i}] (task ${taskIds[t]}): is ${kindOf(description)}, not a description (a string)`);
      return description;
    });
  });
}

function fromRows(text: string, source: string, taskIds: readonly string[]): string[][] {
  const index = new Map(taskIds.map((id, t) => [id, t]));
  const byTask: string[][] = taskIds.map(() => []);
  for (const { line, row } of parseJsonl(text, DescriptionRowSchema, source)) {
    const t = index.get(row.task_id);
    if (t === undefined) throw new Error(`${source}:${line}: task_id ${JSON.stringify(row.task_id)} is not a task of the problems file`);
    byTask[t]!.push(row.description);
  }
  const missing = taskIds.filter((_, t) => byTask[t]!.length === 0);
  if (missing.length > 0)
    throw new Error(
      `${source}: no description for ${missing.length} of the ${taskIds.length} tasks (${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', ...' : ''})`,
    );
  return byTask;
}
