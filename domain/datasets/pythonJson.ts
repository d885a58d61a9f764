/**
 * JSON as Python's `json` module writes and reads it: besides standard JSON, the bare literals
 * `NaN`, `Infinity` and `-Infinity`, and integers of any size. Datasets made with Python (evalplus's
 * test inputs) hold both; JavaScript's JSON.parse refuses the first and rounds the second. So the
 * members that are data for Python are kept as their raw text (Python decodes them, exactly), and
 * the row is validated from a copy where each non-finite literal reads as null.
 */

export interface PythonJsonObject {
  /** The row parsed, each non-finite literal read as null (large integers rounded): for validation only. */
  value: unknown;
  /** Each top-level member's value as written, by key: what Python's json.loads reads exactly. */
  raw: Record<string, string>;
}

const NON_FINITE = ['-Infinity', 'Infinity', 'NaN'] as const;

/** One line of JSON (Python's dialect) to its validated copy and its members' raw text; throws with the reason. */
export function parsePythonJsonObject(text: string): PythonJsonObject {
  let strict = '';
  const raw: Record<string, string> = {};
  let depth = 0;
  let i = 0;
  // Top-level member being read: its key, then where its value starts in `text`.
  let key: string | null = null;
  let valueStart = -1;
  let expectKey = false;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"') {
      const end = stringEnd(text, i);
      const literal = text.slice(i, end);
      if (depth === 1 && expectKey) {
        key = JSON.parse(literal) as string;
        expectKey = false;
      }
      strict += literal;
      i = end;
      continue;
    }
    const nonFinite = NON_FINITE.find((w) => text.startsWith(w, i));
    if (nonFinite) {
      strict += 'null';
      i += nonFinite.length;
      continue;
    }
    if (ch === '{' || ch === '[') {
      depth++;
      if (depth === 1 && ch === '{') expectKey = true;
    } else if (ch === '}' || ch === ']') {
      if (depth === 1 && key !== null && valueStart >= 0) raw[key] = text.slice(valueStart, i).trim();
      depth--;
    } else if (depth === 1 && ch === ':' && key !== null) {
      valueStart = i + 1;
    } else if (depth === 1 && ch === ',') {
      if (key !== null && valueStart >= 0) raw[key] = text.slice(valueStart, i).trim();
      key = null;
      valueStart = -1;
      expectKey = true;
    }
    strict += ch;
    i++;
  }
  return { value: JSON.parse(strict) as unknown, raw };
}

/** The index just after the JSON string literal that starts at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '\\') i += 2;
    else if (ch === '"') return i + 1;
    else i++;
  }
  throw new SyntaxError(`unterminated string starting at position ${start}`);
}
