/**
 * API-doc corpora as users supply them (JSONL, one `ApiDoc` per line), the text a retriever
 * indexes for each doc, and how a doc is shown to a model.
 */
import type { z } from 'zod';
import { ApiDocSchema, type ApiDoc } from './library.js';

/** Past this many bad lines the rest are only counted: a wrong file would otherwise flood the terminal. */
const MAX_REPORTED_PROBLEMS = 20;

export class ApiDocsParseError extends Error {
  constructor(
    readonly source: string,
    /** One `source:line: field: problem` entry per problem found (at most MAX_REPORTED_PROBLEMS). */
    readonly problems: string[],
    omitted: number,
  ) {
    super(
      `${source}: invalid API-doc corpus:\n  ${problems.join('\n  ')}` +
        (omitted > 0 ? `\n  ... and ${omitted} more problem(s) not shown` : ''),
    );
    this.name = 'ApiDocsParseError';
  }
}

function fieldPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(line)';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const p of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[p] : undefined;
  return v;
}

/** Zod's wording is for programmers; a person fixing a JSONL file wants "must not be empty". */
function describeIssue(issue: z.core.$ZodIssue, value: unknown): string[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map(
      (k) => `${fieldPath([...issue.path, k])}: unknown field (allowed: ${Object.keys(ApiDocSchema.shape).join(', ')})`,
    );
  }
  const where = fieldPath(issue.path);
  if (issue.code === 'too_small' && issue.origin === 'string' && issue.minimum === 1) return [`${where}: must not be empty`];
  if (issue.code === 'invalid_type' && valueAt(value, issue.path) === undefined) return [`${where}: is required (${issue.expected})`];
  if (issue.code === 'invalid_type')
    return [`${where}: must be ${issue.expected === 'object' && issue.path.length === 0 ? 'a JSON object' : `a ${issue.expected}`}`];
  return [`${where}: ${issue.message}`];
}

/** Blank-looking text passes `min(1)` but gives a retriever and a model nothing. */
function extraChecks(doc: ApiDoc): string[] {
  const out: string[] = [];
  for (const field of ['import_path', 'name', 'description'] as const) {
    if (doc[field].trim() === '') out.push(`${field}: must not be empty`);
  }
  if (/\s/.test(doc.import_path.trim())) out.push('import_path: must not contain whitespace');
  return out;
}

/**
 * Parses a JSONL API-doc corpus. Blank lines are skipped. Every bad line is reported (up to a
 * cap) as `source:line: field: problem`; a repeated import_path names both lines; an empty corpus
 * is refused.
 */
export function parseApiDocsJsonl(text: string, source: string): ApiDoc[] {
  const docs: ApiDoc[] = [];
  const problems: string[] = [];
  const firstLineOf = new Map<string, number>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.replace(/\r$/, '');
    if (raw.trim() === '') continue;
    const at = `${source}:${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      problems.push(`${at}: not valid JSON (${(err as Error).message})`);
      continue;
    }
    const parsed = ApiDocSchema.safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) for (const p of describeIssue(issue, value)) problems.push(`${at}: ${p}`);
      continue;
    }
    const extra = extraChecks(parsed.data);
    if (extra.length > 0) {
      for (const p of extra) problems.push(`${at}: ${p}`);
      continue;
    }
    const first = firstLineOf.get(parsed.data.import_path);
    if (first !== undefined) {
      problems.push(`${at}: import_path: duplicate ${JSON.stringify(parsed.data.import_path)} (also on line ${first})`);
      continue;
    }
    firstLineOf.set(parsed.data.import_path, i + 1);
    docs.push(parsed.data);
  }
  if (problems.length > 0) {
    throw new ApiDocsParseError(source, problems.slice(0, MAX_REPORTED_PROBLEMS), Math.max(0, problems.length - MAX_REPORTED_PROBLEMS));
  }
  if (docs.length === 0) throw new ApiDocsParseError(source, [`${source}: no API docs (the corpus is empty)`], 0);
  return docs;
}

/** Abbreviations whose period does not end a sentence (lower-cased, without the final period). */
const NON_TERMINAL = new Set(['e.g', 'i.e', 'vs', 'cf', 'approx', 'resp']);

/**
 * The first sentence of a description: up to the first `.`, `!` or `?` followed by whitespace or
 * the end (so `str.strip` and `3.5` do not end it, nor `e.g.`), or the first paragraph when no
 * sentence ends in it. Whitespace is collapsed.
 */
export function firstSentence(text: string): string {
  const paragraph = text.trim().split(/\n\s*\n/)[0] ?? '';
  const flat = paragraph.replace(/\s+/g, ' ');
  const end = /[.!?](?=\s|$)/g;
  for (let m = end.exec(flat); m; m = end.exec(flat)) {
    const before = flat
      .slice(0, m.index)
      .split(' ')
      .pop()!
      .toLowerCase()
      .replace(/^[^a-z]+/, '');
    if (m[0] === '.' && NON_TERMINAL.has(before)) continue;
    return flat.slice(0, m.index + 1);
  }
  return flat;
}

/** What retrievers index for a doc: its import path and the first sentence of its description (the paper's best index). */
export function indexText(doc: ApiDoc): string {
  return `${doc.import_path}: ${firstSentence(doc.description)}`;
}

/**
 * The doc's first line: its signature under the full import path, whichever way the corpus wrote
 * it (`str.replace(old, new)`, `replace(old, new)`, `(old, new)` or something else).
 */
function headerLine(doc: ApiDoc): string {
  const sig = doc.signature.trim().replace(/\s+/g, ' ');
  if (sig === '') return doc.import_path;
  if (sig.startsWith(doc.import_path)) return sig;
  if (sig.startsWith(`${doc.name}(`)) return doc.import_path + sig.slice(doc.name.length);
  if (sig.startsWith('(')) return doc.import_path + sig;
  return `${doc.import_path}: ${sig}`;
}

const INDENT = '    ';

/**
 * One doc as a model sees it in a prompt: the signature under its import path, then the
 * description and any examples indented beneath it. No trailing newline; same doc, same text.
 */
export function formatApiDoc(doc: ApiDoc): string {
  const lines = [headerLine(doc)];
  for (const line of doc.description.trim().split('\n')) lines.push(line.trim() === '' ? '' : INDENT + line.trimEnd());
  for (const example of doc.examples ?? []) {
    const exampleLines = example.replace(/\s+$/, '').split('\n');
    if (exampleLines.length === 1) lines.push(`${INDENT}Example: ${exampleLines[0]!.trim()}`);
    else lines.push(`${INDENT}Example:`, ...exampleLines.map((l) => (l.trim() === '' ? '' : INDENT + INDENT + l.trimEnd())));
  }
  return lines.join('\n');
}
