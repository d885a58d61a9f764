/**
 * Wording of config problems for a person editing the file: unknown keys with a suggestion, and
 * zod's generic messages reworded. Shared by the sweep config and the dataset entries of families.
 */
import type { z } from 'zod';

/** Zod's default messages relayed by resolvePbeParams, in the wording of the other issues. */
export function rewordZodMessage(message: string): string {
  const bound = /^Too (?:small|big): expected (\w+) to (?:be|have) ([<>]=?)\s*(\S+)(?: (items|characters))?$/.exec(message);
  if (bound) {
    const [, origin, op, value] = bound;
    if (origin === 'array') return `must have ${op} ${value} item(s)`;
    if (origin === 'string') return `must have ${op} ${value} character(s)`;
    return `must be ${op} ${value}`;
  }
  const type = /^Invalid input: expected (\w+), received (\w+)$/.exec(message);
  if (type) return `must be ${EXPECTED_NAMES[type[1]!] ?? type[1]}, got ${type[2]}`;
  return message;
}

export function unknownKeyMessage(key: string, known: readonly string[]): string {
  if (/^api_?key$/i.test(key)) {
    return 'unknown key: API keys never go in the config; put the key in an environment variable and give its name in api_key_env';
  }
  const suggestion = closest(key, known);
  return suggestion ? `unknown key (did you mean ${suggestion}?)` : `unknown key (allowed: ${known.join(', ')})`;
}

/** The known key within edit distance 2 of `key` (or differing only in case/`-` vs `_`), if any. */
function closest(key: string, known: readonly string[]): string | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/-/g, '_');
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const d = norm(candidate) === norm(key) ? 0 : editDistance(key, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

export const EXPECTED_NAMES: Record<string, string> = {
  number: 'a number',
  int: 'an integer',
  string: 'a string',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping',
};

/** Zod's generic messages, reworded for a person editing a config file. Custom messages pass through. */
export function issueMessage(issue: z.core.$ZodIssue, value: unknown): string {
  switch (issue.code) {
    case 'invalid_type': {
      if (value === undefined) return 'is required';
      const expected = EXPECTED_NAMES[issue.expected] ?? issue.expected;
      // API key look-alikes are never echoed.
      const shown = issue.path[issue.path.length - 1] === 'api_key_env' ? typeof value : typeName(value);
      return `must be ${expected}, got ${shown}`;
    }
    case 'too_small':
    case 'too_big': {
      if (issue.message && !issue.message.startsWith('Too ')) return issue.message;
      const op = issue.code === 'too_small' ? (issue.inclusive ? '>=' : '>') : issue.inclusive ? '<=' : '<';
      const bound = issue.code === 'too_small' ? issue.minimum : issue.maximum;
      if (issue.origin === 'array') return `must have ${op} ${String(bound)} item(s)`;
      if (issue.origin === 'string') return `must have ${op} ${String(bound)} character(s)`;
      return `must be ${op} ${String(bound)}, got ${String(value)}`;
    }
    case 'invalid_value':
      if (value === undefined) return `is required: one of ${issue.values.map((v) => String(v)).join(', ')}`;
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, got ${typeName(value)}`;
    default:
      return issue.message;
  }
}

/** A value as a message shows it. */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'number' && Number.isNaN(value)) return 'NaN';
  if (typeof value === 'string') return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
  return `${typeof value} ${String(value)}`;
}
