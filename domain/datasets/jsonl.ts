/**
 * Reading rows from text: JSON Lines, or a JSON array whose item i stands for line i + 1, each row
 * validated; every error names the source, the line (or item) and the field.
 */
import type { z } from 'zod';
import { issuesLine } from './issues.js';

export class JsonlRowError extends Error {
  override name = 'JsonlRowError';
}

/** A validated row and its 1-based line. */
export interface Sourced<T> {
  line: number;
  row: T;
}

/** Parses JSON Lines text, validating each row; blank lines are skipped. Errors name the source and the 1-based line. */
export function parseJsonl<T>(text: string, schema: z.ZodType<T>, source: string): Array<Sourced<T>> {
  const rows: Array<Sourced<T>> = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new JsonlRowError(`${source}:${i + 1}: not valid JSON (${(error as Error).message})`);
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw new JsonlRowError(`${source}:${i + 1}: ${issuesLine(parsed.error)}`);
    rows.push({ line: i + 1, row: parsed.data });
  }
  return rows;
}

/**
 * A JSON array's items, validated; `line` is the item's index + 1 and errors say `[index]`.
 * `shape` says what the array must hold, for a file that is not one.
 */
export function parseJsonArray<T>(text: string, schema: z.ZodType<T>, source: string, shape: string): Array<Sourced<T>> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${source}: not valid JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(value)) throw new Error(`${source}: must be ${shape}`);
  return value.map((item, i) => {
    const parsed = schema.safeParse(item);
    if (!parsed.success) throw new Error(`${source}: [${i}]: ${issuesLine(parsed.error)}`);
    return { line: i + 1, row: parsed.data };
  });
}

/** Whether a file's text is a JSON array (else JSON Lines). */
export function isJsonArray(text: string): boolean {
  return text.trimStart().startsWith('[');
}

/** The items of a JSON array file as JSON Lines text (item i on line i + 1), so that errors name the item's line. */
export function jsonArrayAsJsonl(text: string, source: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${source}: not valid JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(value)) throw new Error(`${source}: a .json problems file must be a JSON array of rows`);
  return value.map((row) => JSON.stringify(row) + '\n').join('');
}

/** The first row of a JSON Lines or JSON array text and its line (null when there is none), unvalidated. */
export function firstRow(text: string, source: string): Sourced<unknown> | null {
  if (isJsonArray(text)) {
    const first = jsonArrayAsJsonl(text, source).split('\n', 1)[0]!;
    return first === '' ? null : { line: 1, row: JSON.parse(first) as unknown };
  }
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === '') continue;
    try {
      return { line: i + 1, row: JSON.parse(raw) as unknown };
    } catch (error) {
      throw new JsonlRowError(`${source}:${i + 1}: not valid JSON (${(error as Error).message})`);
    }
  }
  return null;
}
