/**
 * MonkeyEval / BeatNumEval (PyCodeGPT's renamed pandas / numpy tasks) as a sweep dataset: the rows
 * normalized for `DatasetRowSchema` / `normalizeRow` (form `completion`), and the private library
 * the tasks are written against (docs, summary, planner demos from the library's usage, renamed runtime).
 *
 * The published files, and what each holds:
 * - `real_{monkey,beatnum}_eval_v3.jsonl(.gz)`: the tasks. The prompt is in private names (renamed
 *   by plain substring replacement: `compute_mean_along_rows` became `compute_average_along_rows`),
 *   the test and entry point are the original ones.
 * - `{pandas,numpy}_keywords.jsonl`: despite its name one JSON object, original -> private name.
 * - `{pandas,numpy}_keyword_mapping.json`: per private keyword, the tasks using it and a
 *   description `# name(signature): text`, plain and paraphrased (numpy's has a trailing comma,
 *   which is accepted and reported).
 *
 * Programs are prepared by renamedRuntime.ts as `{ solution, rest }`: the solution (prompt +
 * completion) is mapped back to the original names, the rest (test + `check(entry_point)`) runs as
 * published. So entry points are given as the prompt spells them (the test gets a line binding
 * that name to the mapped one where they differ), and a statement completion (entry point `none`,
 * `def check():`) gets `def check(_candidate=None):` and the entry point `None`, since the sweep
 * always calls `check(entry_point)`.
 *
 * Everything the loader changes or finds odd is returned as a quirk, one per row or file.
 */
import { z } from 'zod';
import type { ApiDoc, DatasetLibrary } from '../../apidocs/library.js';
import { renamedDemos } from '../../apidocs/usageDemos.js';
import { mapToOriginal, originalNamesUsed, pythonIdentifiers, renamedMaps, type RenamedRuntime } from '../../apidocs/renamedRuntime.js';
import { parseJsonl } from '../../datasets/jsonl.js';
import { pyCodeGptCheck } from '../../datasets/problems.js';

export type PrivateLibraryKind = 'monkey' | 'beatnum';

/** A task as `DatasetRowSchema` accepts it; run it with form `completion`. */
export interface PrivateLibraryRow {
  task_id: string;
  prompt: string;
  entry_point: string;
  test: string;
  canonical_solution: string;
}
export const PRIVATE_LIBRARY_FORM = 'completion' as const;

/** Something the loader fixed or noticed: `task_id` is a task's id, or `file:line` for a file, or `*` for a whole dataset. */
export interface DatasetQuirk {
  task_id: string;
  problem: string;
}

export interface PrivateLibraryInput {
  /** Text of real_{monkey,beatnum}_eval_v3.jsonl (gunzipped). */
  rows: string;
  /** Text of {pandas,numpy}_keywords.jsonl: original -> private name. */
  keywords: string;
  /** Text of {pandas,numpy}_keyword_mapping.json: descriptions per private keyword. */
  mapping: string;
  kind: PrivateLibraryKind;
  /** File names for error messages and quirks; default the published names. */
  source?: { rows?: string; keywords?: string; mapping?: string };
}

export interface PrivateLibraryDataset {
  problems: PrivateLibraryRow[];
  library: DatasetLibrary;
  quirks: DatasetQuirk[];
}

export class PrivateLibraryError extends Error {
  override name = 'PrivateLibraryError';
}

interface KindInfo {
  original: string;
  renamed: string;
  /** How the tasks import the private library: `import monkey as mk`. */
  alias: string;
  /** Owner class of a method whose description names none. */
  defaultOwner: string;
  /** Classes a method description may name, most specific first. */
  owners: string[];
  summary: string;
  files: { rows: string; keywords: string; mapping: string };
}

const KINDS: Record<PrivateLibraryKind, KindInfo> = {
  monkey: {
    original: 'pandas',
    renamed: 'monkey',
    alias: 'mk',
    defaultOwner: 'KnowledgeFrame',
    owners: ['KnowledgeFrame', 'Collections', 'Index', 'Timestamp'],
    summary:
      'monkey is a Python library for labelled, tabular data, imported as `import monkey as mk`. Its KnowledgeFrame is a ' +
      'two-dimensional table with labelled rows (an index) and columns; a Collections is a labelled one-dimensional column. ' +
      'Both offer selection, filtering, arithmetic, grouping, reshaping, missing-value handling and conversion. ' +
      'Names are private throughout a program: the documented names replace common ones too, including some Python builtins ' +
      'and methods of str, list and dict, and a program that uses a name this library renamed is refused.',
    files: { rows: 'real_monkey_eval_v3.jsonl', keywords: 'pandas_keywords.jsonl', mapping: 'pandas_keyword_mapping.json' },
  },
  beatnum: {
    original: 'numpy',
    renamed: 'beatnum',
    alias: 'bn',
    defaultOwner: 'ndnumset',
    owners: ['ndnumset'],
    summary:
      'beatnum is a Python library for n-dimensional numeric arrays (numsets), imported as `import beatnum as bn`. A numset ' +
      '(type `bn.ndnumset`, made with `bn.numset`) holds elements of one dtype in a shape; the library creates, reshapes, ' +
      'stacks, splits, indexes and searches numsets, and computes element-wise and along axes (sums, averages, extremes, ' +
      'logic), with linear algebra in `bn.linalg`. Names are private throughout a program: the documented names replace ' +
      'common ones too, including some Python builtins and methods of str and list, and a program that uses a name this ' +
      'library renamed is refused.',
    files: { rows: 'real_beatnum_eval_v3.jsonl', keywords: 'numpy_keywords.jsonl', mapping: 'numpy_keyword_mapping.json' },
  },
};

/** Python builtins: a renamed one called bare (`length(x)`) is documented as `builtins.<name>`. */
const PYTHON_BUILTINS = new Set([
  'abs',
  'all',
  'any',
  'len',
  'map',
  'max',
  'min',
  'round',
  'slice',
  'sum',
  'format',
  'filter',
  'sorted',
  'zip',
  'list',
  'dict',
  'set',
]);

export function loadPrivateLibraryDataset(input: PrivateLibraryInput): PrivateLibraryDataset {
  const info = KINDS[input.kind];
  if (!info) throw new PrivateLibraryError(`kind must be monkey or beatnum, got ${JSON.stringify(input.kind)}`);
  const files = { ...info.files, ...input.source };
  const quirks: DatasetQuirk[] = [];

  const mapping = parseKeywords(input.keywords, files.keywords, quirks);
  const runtime: RenamedRuntime = { kind: 'renamed', original: info.original, renamed: info.renamed, mapping };
  try {
    renamedMaps(runtime);
  } catch (error) {
    throw new PrivateLibraryError(`${files.keywords}: ${(error as Error).message}`);
  }
  if (mapping[info.original] !== info.renamed) {
    throw new PrivateLibraryError(
      `${files.keywords}: must rename ${info.original} to ${info.renamed} (kind ${input.kind}), has ${JSON.stringify(mapping[info.original])}`,
    );
  }
  const descriptions = parseDescriptions(input.mapping, files.mapping, quirks);
  const problems = normalizeRows(input.rows, files.rows, runtime, quirks);
  const usage = apiUsage(problems, info);
  const docs = buildDocs(descriptions, runtime, info, usage, files.mapping, quirks);
  if (docs.length === 0) throw new PrivateLibraryError(`${files.mapping}: no keyword describes a name of ${files.keywords}`);
  // Library-level usage demos, renamed as the docs are; never a task's solution (usageDemos.ts).
  const planner_examples = renamedDemos(info.original, renamedMaps(runtime).toPrivate);
  return {
    problems: problems.map(({ row }) => row),
    library: { library: { name: info.renamed, summary: info.summary, docs, runtime }, planner_examples },
    quirks,
  };
}

// ----------------------------------------------------------------------------- files

/** 1-based line of an offset. */
function lineAt(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

/**
 * JSON, accepting (and reporting as quirks) commas before a closing bracket, which the published
 * numpy_keyword_mapping.json has. Syntax errors name the file and line.
 */
function parseLenientJson(text: string, file: string, quirks: DatasetQuirk[]): unknown {
  let cleaned = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') {
        cleaned += c + (text[i + 1] ?? '');
        i++;
        continue;
      }
      if (c === '"') inString = false;
      cleaned += c;
      continue;
    }
    if (c === '"') inString = true;
    if (c === ',') {
      const next = /^\s*([}\]])/.exec(text.slice(i + 1));
      if (next) {
        quirks.push({ task_id: `${file}:${lineAt(text, i)}`, problem: `trailing comma before ${next[1]} (not JSON): accepted` });
        cleaned += ' '; // keeps offsets, so later errors still point at the right line
        continue;
      }
    }
    cleaned += c;
  }
  try {
    return JSON.parse(cleaned);
  } catch (error) {
    const message = (error as Error).message.split('\n')[0]!;
    throw new PrivateLibraryError(`${file}:${jsonErrorLine(cleaned)}: not valid JSON (${message})`);
  }
}

/** Whether JSON.parse fails on `text` only because the text stops early. */
function isTruncationError(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch (error) {
    const message = (error as Error).message;
    if (/end of JSON input|Unterminated string/.test(message)) return true;
    const position = /position (\d+)/.exec(message);
    return position !== null && Number(position[1]) >= text.trimEnd().length;
  }
}

/**
 * Line of the first syntax error of a text JSON.parse refused: the error's position when the
 * message gives one, else the first line whose prefix is wrong, not merely unfinished (Node's
 * messages quote some context instead of a position).
 */
function jsonErrorLine(text: string): number {
  try {
    JSON.parse(text);
  } catch (error) {
    const position = /position (\d+)/.exec((error as Error).message);
    if (position) return lineAt(text, Number(position[1]));
  }
  const lines = text.split('\n');
  let good = 0; // prefixes of up to `good` lines are fine
  let bad = lines.length; // the prefix of `bad` lines is wrong
  while (bad - good > 1) {
    const middle = (good + bad) >> 1;
    if (isTruncationError(lines.slice(0, middle).join('\n'))) good = middle;
    else bad = middle;
  }
  return bad;
}

/** Line of `"key"` in a JSON text, for errors about that key's value. */
function lineOfKey(text: string, key: string): number | undefined {
  const at = text.indexOf(JSON.stringify(key));
  return at === -1 ? undefined : lineAt(text, at);
}

function issueAt(text: string, file: string, path: readonly PropertyKey[], message: string): PrivateLibraryError {
  const key = [...path].reverse().find((p): p is string => typeof p === 'string');
  const line = key === undefined ? undefined : lineOfKey(text, key);
  return new PrivateLibraryError(`${file}${line ? `:${line}` : ''}: ${path.map(String).join('.') || '(file)'}: ${message}`);
}

const KeywordsSchema = z.record(z.string(), z.string().min(1));

function parseKeywords(text: string, file: string, quirks: DatasetQuirk[]): Record<string, string> {
  const parsed = KeywordsSchema.safeParse(parseLenientJson(text, file, quirks));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw issueAt(
      text,
      file,
      issue.path,
      issue.path.length ? `must be a non-empty string (the private name)` : 'must be a JSON object: original name -> private name',
    );
  }
  if (Object.keys(parsed.data).length === 0) throw new PrivateLibraryError(`${file}: no names`);
  return parsed.data;
}

const DescriptionsSchema = z.looseObject({
  keyword_description: z.record(z.string(), z.string()).optional(),
  paraphrased_keyword_description: z.record(z.string(), z.string()),
});

function parseDescriptions(text: string, file: string, quirks: DatasetQuirk[]): Map<string, { text: string; plain?: string }> {
  const parsed = DescriptionsSchema.safeParse(parseLenientJson(text, file, quirks));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw issueAt(text, file, issue.path, issue.message);
  }
  const out = new Map<string, { text: string; plain?: string }>();
  const plain = parsed.data.keyword_description ?? {};
  for (const [keyword, paraphrased] of Object.entries(parsed.data.paraphrased_keyword_description)) {
    const text = paraphrased.trim() || plain[keyword]?.trim();
    if (!text) {
      quirks.push({
        task_id: `${file}:${lineOfKey(JSON.stringify(parsed.data), keyword) ?? 0}`,
        problem: `keyword ${keyword}: empty description, left out of the docs`,
      });
      continue;
    }
    out.set(keyword, { text, ...(plain[keyword] ? { plain: plain[keyword] } : {}) });
  }
  return out;
}

// ----------------------------------------------------------------------------- rows

const RowSchema = z.looseObject({
  task_id: z.string().min(1),
  prompt: z.string().min(1),
  entry_point: z.string().min(1),
  canonical_solution: z.union([z.string(), z.array(z.string()).min(1)]),
  test: z.string().min(1),
});

interface LoadedRow {
  row: PrivateLibraryRow;
  line: number;
}

function normalizeRows(text: string, file: string, runtime: RenamedRuntime, quirks: DatasetQuirk[]): LoadedRow[] {
  let parsed;
  try {
    parsed = parseJsonl(text, RowSchema, file);
  } catch (error) {
    throw new PrivateLibraryError((error as Error).message);
  }
  if (parsed.length === 0) throw new PrivateLibraryError(`${file}: no tasks`);
  const seen = new Map<string, number>();
  const statementTasks: string[] = [];
  const rows: LoadedRow[] = [];
  for (const { line, row } of parsed) {
    const earlier = seen.get(row.task_id);
    if (earlier !== undefined) throw new PrivateLibraryError(`${file}:${line}: task_id: ${row.task_id} already on line ${earlier}`);
    seen.set(row.task_id, line);
    const canonical = Array.isArray(row.canonical_solution) ? row.canonical_solution[0]! : row.canonical_solution;
    const note = (problem: string) => quirks.push({ task_id: row.task_id, problem });
    const check = pyCodeGptCheck(row);
    let test = row.test;
    let entryPoint = row.entry_point;
    switch (check.kind) {
      case 'no-check':
        note(`${file}:${line}: test defines no check(...) function: every program fails with a NameError`);
        break;
      case 'statement':
        entryPoint = 'None';
        statementTasks.push(row.task_id);
        test = check.test;
        break;
      case 'none-with-parameter':
        entryPoint = 'None';
        note(
          `entry_point is "none" (a statement to complete) but the test's check takes (${check.parameters}): called as check(None) (PyCodeGPT called check() and failed)`,
        );
        break;
      case 'function': {
        const fixed = fixEntryPoint(row.entry_point, row.prompt, runtime, note);
        entryPoint = fixed.entryPoint;
        test = row.test + fixed.testSuffix;
        if (check.checkTakesNoCandidate)
          note(`entry_point is ${row.entry_point} but the test's check() takes no candidate: every program fails with a TypeError`);
        break;
      }
    }
    for (const [part, code] of [
      ['prompt', row.prompt],
      ['canonical solution', row.prompt + canonical],
    ] as const) {
      const used = originalNamesUsed(runtime, code);
      if (used.length === 0) continue;
      const names = used.map((u) => `\`${u.name}\` (line ${u.line})`).join(', ');
      note(
        `${part} uses the original name(s) ${names}: such a program is refused${part === 'prompt' ? ' whatever the completion' : ''}, as PyCodeGPT's evaluator refuses it`,
      );
      if (part === 'prompt') break;
    }
    for (const literal of canonical.matchAll(/(["'])((?:\\.|(?!\1)[^\\\n])*)\1/g)) {
      const words = literal[2]!.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [];
      const renamed = words.filter((word) => mapToOriginal(runtime, word) !== word);
      if (renamed.length === 0) continue;
      note(
        `canonical solution has the string ${literal[0]} with private name(s) (${renamed.join(', ')}): strings are not mapped ` +
          `back, so a test expecting ${JSON.stringify(renamed.map((w) => mapToOriginal(runtime, w)).join(', '))} there fails`,
      );
    }
    rows.push({ line, row: { task_id: row.task_id, prompt: row.prompt, entry_point: entryPoint, test, canonical_solution: canonical } });
  }
  if (statementTasks.length > 0) {
    quirks.push({
      task_id: '*',
      problem:
        `${statementTasks.length} statement completions (entry_point "none", def check():): the test's check takes an ignored ` +
        `parameter and entry_point is None, so that check(entry_point) runs them (${statementTasks.join(', ')})`,
    });
  }
  return rows;
}

/**
 * The entry point as the prompt spells it, which is how a model names the function, and the line
 * the test needs to find it. The renamed prompts renamed the function too, by substring
 * (`compute_mean_along_rows` became `compute_average_along_rows`, `get_minimum_value`
 * `get_get_minimum_value`), while entry points stayed original. When the prompt defines exactly
 * one top-level function and it is not the entry point, that function is; since the solution is
 * mapped back before it runs (defining the original name again), the test binds the prompt's name
 * to the mapped one.
 */
function fixEntryPoint(
  entryPoint: string,
  prompt: string,
  runtime: RenamedRuntime,
  note: (problem: string) => void,
): { entryPoint: string; testSuffix: string } {
  const defs = [...prompt.matchAll(/^(?:async\s+)?def\s+([\p{ID_Start}_][\p{ID_Continue}]*)\s*\(/gmu)].map((m) => m[1]!);
  const suffixFor = (name: string) => {
    const mapped = mapToOriginal(runtime, name);
    return mapped === name
      ? ''
      : `\n# The prompt's name for the function, which the solution defines as ${mapped} once mapped back.\n${name} = ${mapped}\n`;
  };
  if (defs.includes(entryPoint)) return { entryPoint, testSuffix: suffixFor(entryPoint) };
  if (defs.length === 1) {
    const name = defs[0]!;
    const mapped = mapToOriginal(runtime, name);
    note(
      `entry_point ${entryPoint} is not defined by the prompt, which defines ${name}: entry_point set to ${name}` +
        (mapped === name ? '' : `; the solution defines ${mapped} once mapped back, so the test binds ${name} = ${mapped}`),
    );
    return { entryPoint: name, testSuffix: suffixFor(name) };
  }
  note(
    `entry_point ${entryPoint} is not defined by the prompt, which defines ${defs.length ? defs.join(', ') : 'no function'}: ` +
      `left as is (check(${entryPoint}) fails with a NameError)`,
  );
  return { entryPoint, testSuffix: '' };
}

// ----------------------------------------------------------------------------- docs

interface Usage {
  /** Module-qualified uses: `beatnum.linalg.normlizattion`. */
  qualified: Map<string, Set<string>>;
  /** Names used as an attribute of something that is not the library. */
  method: Set<string>;
  /** Names called bare: `length(x)`. */
  bare: Set<string>;
}

interface NameUse {
  name: string;
  /** Dotted chain ending in this name (`bn.linalg.normlizattion`), or the name alone. */
  chain: string[];
  isAttribute: boolean;
  isCall: boolean;
}

/** Every identifier of the code with the attribute chain it ends. */
function nameUses(code: string): NameUse[] {
  const tokens = pythonIdentifiers(code);
  const uses: NameUse[] = [];
  const chains: string[][] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const previous = tokens[i - 1];
    let before = token.start - 1;
    while (before >= 0 && /\s/.test(code[before]!)) before--;
    const isAttribute = code[before] === '.';
    // Only a plain name before the dot continues a chain (`x[0].foo` is no `x.foo`).
    const continues = isAttribute && previous !== undefined && /^\s*\.\s*$/.test(code.slice(previous.end, token.start));
    const chain = continues ? [...chains[i - 1]!, token.name] : [token.name];
    chains.push(chain);
    const isCall = /^\s*\(/.test(code.slice(token.end, token.end + 20));
    uses.push({ name: token.name, chain, isAttribute, isCall });
  }
  return uses;
}

function apiUsage(rows: LoadedRow[], info: KindInfo): Usage {
  const usage: Usage = { qualified: new Map(), method: new Set(), bare: new Set() };
  for (const { row } of rows) {
    for (const use of nameUses(row.prompt + row.canonical_solution)) {
      if (use.chain.length > 1 && (use.chain[0] === info.alias || use.chain[0] === info.renamed)) {
        const path = [info.renamed, ...use.chain.slice(1)].join('.');
        if (!usage.qualified.has(use.name)) usage.qualified.set(use.name, new Set());
        usage.qualified.get(use.name)!.add(path);
      } else if (use.isAttribute) usage.method.add(use.name);
      else if (use.isCall) usage.bare.add(use.name);
    }
  }
  return usage;
}

interface ParsedDescription {
  signature: string;
  description: string;
  params: string;
}

/** `# name(params) -> 'ret': text` -> signature `name(params) -> 'ret'`, description `text`. */
function parseDescription(keyword: string, text: string): ParsedDescription | undefined {
  const body = text.replace(/^#\s*/, '').trim();
  if (!body.startsWith(`${keyword}(`)) return undefined;
  let i = keyword.length;
  let depth = 0;
  let quote: string | undefined;
  let close = -1;
  for (; i < body.length; i++) {
    const c = body[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === '(' || c === '[' || c === '{' || c === '<') depth++;
    else if (c === ')' || c === ']' || c === '}' || c === '>') {
      if (c === '>' && body[i - 1] === '-') continue; // an arrow, not a bracket
      depth--;
      if (depth === 0 && c === ')') {
        close = i;
        break;
      }
    }
  }
  if (close === -1) return undefined;
  let end = close + 1;
  const arrow = /^\s*->\s*/.exec(body.slice(end));
  if (arrow) {
    end += arrow[0].length;
    quote = undefined;
    for (; end < body.length; end++) {
      const c = body[end]!;
      if (quote) {
        if (c === quote) quote = undefined;
        continue;
      }
      if (c === "'" || c === '"') quote = c;
      else if (c === ':') break;
    }
  }
  const rest = /^\s*:\s*/.exec(body.slice(end));
  if (!rest) return undefined;
  const description = body.slice(end + rest[0].length).trim();
  if (!description) return undefined;
  return { signature: body.slice(0, end).trim(), description, params: body.slice(keyword.length + 1, close) };
}

function buildDocs(
  descriptions: Map<string, { text: string; plain?: string }>,
  runtime: RenamedRuntime,
  info: KindInfo,
  usage: Usage,
  file: string,
  quirks: DatasetQuirk[],
): ApiDoc[] {
  const { toOriginal } = renamedMaps(runtime);
  const docs: ApiDoc[] = [];
  for (const [keyword, { text, plain }] of descriptions) {
    const original = toOriginal.get(keyword);
    if (original === undefined) {
      quirks.push({
        task_id: file,
        problem: `keyword ${keyword} is described but is no private name of the keywords file: left out of the docs`,
      });
      continue;
    }
    const parsed = parseDescription(keyword, text);
    if (!parsed)
      quirks.push({
        task_id: file,
        problem: `keyword ${keyword}: description is not "# ${keyword}(...): text"; kept whole as the description`,
      });
    const signature = parsed?.signature ?? '';
    const description = parsed?.description ?? text.replace(/^#\s*/, '').trim();
    docs.push({ import_path: importPath(keyword, original, parsed, plain ?? text, info, usage), name: keyword, signature, description });
  }
  return docs;
}

/**
 * Where a keyword lives, best guess first: how the tasks call it from the library
 * (`bn.linalg.normlizattion` -> `beatnum.linalg.normlizattion`); a renamed Python builtin the tasks
 * call bare (`builtins.length`); a method (`self` first, or called as one) of the class its
 * description names (default KnowledgeFrame / ndnumset); else a function of the library.
 */
function importPath(
  keyword: string,
  original: string,
  parsed: ParsedDescription | undefined,
  text: string,
  info: KindInfo,
  usage: Usage,
): string {
  const qualified = usage.qualified.get(keyword);
  if (qualified && qualified.size > 0) return [...qualified].sort((a, b) => a.length - b.length || a.localeCompare(b))[0]!;
  if (keyword === info.renamed) return info.renamed;
  if (/^[A-Z]/.test(keyword) && parsed && !/^\s*self\b/.test(parsed.params)) return `${info.renamed}.${keyword}`;
  // A builtin the tasks call bare and never as a method (`length(kf.index)`), whatever class the
  // description was taken from.
  if (PYTHON_BUILTINS.has(original) && usage.bare.has(keyword) && !usage.method.has(keyword)) return `builtins.${keyword}`;
  const isMethod = parsed ? /^\s*self\b/.test(parsed.params) : usage.method.has(keyword);
  if (isMethod || usage.method.has(keyword)) {
    const owner = info.owners.find((name) => new RegExp(`\\b${name}\\b`).test(text)) ?? info.defaultOwner;
    return `${info.renamed}.${owner}.${keyword}`;
  }
  return `${info.renamed}.${keyword}`;
}
