/**
 * Running programs written against a renamed library (MonkeyEval: pandas -> monkey; BeatNumEval:
 * numpy -> beatnum) on the real one, as PyCodeGPT's evaluator does: a program that uses a renamed
 * name in its original form is refused, any other program has its private names mapped back to the
 * originals; what the run prints or raises is mapped the other way before anyone sees it.
 *
 * Unlike PyCodeGPT (plain substring replacement over the whole text), the mapping here works on
 * Python identifier tokens only: strings and comments are left alone (a column named 'mk' stays
 * 'mk'); expressions inside f-strings are code and are mapped. A program is refused only for an
 * original name used as a whole identifier (`len`, `DataFrame`), never for one inside a compound
 * (`array_equal`); compounds of private names are mapped as the prompts were renamed
 * (`new_kf` -> `new_df`, see originalIdentifier).
 *
 * A program comes in two forms. A string is private throughout (an exploration snippet). Parts
 * `{ solution, rest }` are the model's solution (prompt + completion, private names) and the rest
 * (the dataset's test and check call, written against the original library, as MonkeyEval and
 * BeatNumEval ship them): only the solution is checked and mapped, the rest is appended unchanged.
 * The dataset loader (domain/families/renamed-library/loader.ts) keeps tests original and gives entry
 * points as the mapped solution defines them.
 */
import type { LibraryRuntime, PreparedProgram } from './library.js';

export type RenamedRuntime = Extract<LibraryRuntime, { kind: 'renamed' }>;

// ----------------------------------------------------------------------------- Python identifiers

export interface IdentifierToken {
  name: string;
  /** Offsets into the source, end exclusive. */
  start: number;
  end: number;
}

const ID_START = /[\p{ID_Start}_]/u;
const ID_CONTINUE = /[\p{ID_Continue}]/u;
const STRING_PREFIX = /^(?:[rRbBuUfF]|[rR][bBfF]|[bBfF][rR])$/;

/**
 * Identifier tokens of Python source: names in code, including those in f-string replacement
 * fields; nothing inside string literals or comments, no digits of numbers (`1e5`, `0x1f`).
 * Lenient: an unterminated string runs to the end of its line (or, triple-quoted, of the source),
 * as Python would report it, so broken programs still scan.
 */
export function pythonIdentifiers(source: string): IdentifierToken[] {
  const out: IdentifierToken[] = [];
  scanCode(source, 0, source.length, out, undefined);
  return out;
}

/**
 * Scans code from `from` to `to`. With `closer` (inside an f-string field), stops at the `}`, `!`
 * or `:` that ends the expression at bracket depth 0 and returns its offset; else returns `to`.
 */
function scanCode(src: string, from: number, to: number, out: IdentifierToken[], closer: 'field' | undefined): number {
  let i = from;
  let depth = 0;
  while (i < to) {
    const c = src[i]!;
    if (c === '#') {
      if (closer) return i; // not valid in a field; let Python say so
      while (i < to && src[i] !== '\n') i++;
      continue;
    }
    if (c === '"' || c === "'") {
      i = scanString(src, i, i, to, out);
      continue;
    }
    if (closer && depth === 0 && (c === '}' || c === ':' || (c === '!' && src[i + 1] !== '='))) return i;
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth = Math.max(0, depth - 1);
    if (isDigit(c) || (c === '.' && isDigit(src[i + 1] ?? ''))) {
      i = skipNumber(src, i, to);
      continue;
    }
    const code = src.codePointAt(i)!;
    const char = String.fromCodePoint(code);
    if (ID_START.test(char)) {
      const start = i;
      i += char.length;
      while (i < to) {
        const next = String.fromCodePoint(src.codePointAt(i)!);
        if (!ID_CONTINUE.test(next)) break;
        i += next.length;
      }
      const name = src.slice(start, i);
      if ((src[i] === '"' || src[i] === "'") && STRING_PREFIX.test(name)) {
        i = scanString(src, start, i, to, out);
        continue;
      }
      out.push({ name, start, end: i });
      continue;
    }
    i++;
  }
  return to;
}

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}

function skipNumber(src: string, start: number, to: number): number {
  const hex = /^0[xX]/.test(src.slice(start, start + 2));
  let i = start;
  while (i < to) {
    const c = src[i]!;
    if (/[0-9a-zA-Z_.]/.test(c) || ((c === '+' || c === '-') && !hex && /[eE]/.test(src[i - 1]!))) i++;
    else break;
  }
  return i;
}

/** A string literal starting at `start` (prefix included), quote at `quoteAt`; returns its end. */
function scanString(src: string, start: number, quoteAt: number, to: number, out: IdentifierToken[]): number {
  const prefix = src.slice(start, quoteAt).toLowerCase();
  const isF = prefix.includes('f');
  const isRaw = prefix.includes('r');
  const q = src[quoteAt]!;
  const triple = src.startsWith(q.repeat(3), quoteAt);
  const delimiter = triple ? q.repeat(3) : q;
  let i = quoteAt + delimiter.length;
  while (i < to) {
    const c = src[i]!;
    if (c === '\\') {
      i += 2; // even raw strings cannot end on an escaped quote
      continue;
    }
    if (!triple && c === '\n') return i; // unterminated: Python stops at the line's end
    if (src.startsWith(delimiter, i)) return i + delimiter.length;
    if (isF && c === '{') {
      if (src[i + 1] === '{') {
        i += 2;
        continue;
      }
      i = scanField(src, i + 1, to, out, isRaw);
      continue;
    }
    i++;
  }
  return to;
}

/** An f-string replacement field after its `{`: expression, conversion, format spec with nested fields. */
function scanField(src: string, from: number, to: number, out: IdentifierToken[], isRaw: boolean): number {
  let i = scanCode(src, from, to, out, 'field');
  if (src[i] === '!') i += 2;
  if (src[i] === ':') {
    i++;
    while (i < to && src[i] !== '}') {
      if (src[i] === '{') i = scanField(src, i + 1, to, out, isRaw);
      else if (src[i] === '\n' || src[i] === '"' || src[i] === "'")
        return i; // malformed; the string scan resumes
      else i++;
    }
  }
  return src[i] === '}' ? i + 1 : i;
}

// ----------------------------------------------------------------------------- the mapping

interface Maps {
  toOriginal: Map<string, string>;
  toPrivate: Map<string, string>;
  /** Originals, longest first, for output that is not tokenized. */
  originalsByLength: string[];
  /** Private names, longest first, for compound identifiers. */
  privatesByLength: string[];
}

const mapsCache = new WeakMap<Record<string, string>, Maps>();

/**
 * The two directions of the runtime's mapping. Throws when the mapping is not one-to-one or a
 * private name is also an original one: such a mapping cannot be undone token by token.
 */
export function renamedMaps(runtime: RenamedRuntime): Maps {
  const cached = mapsCache.get(runtime.mapping);
  if (cached) return cached;
  const toPrivate = new Map<string, string>();
  const toOriginal = new Map<string, string>();
  for (const [original, renamed] of Object.entries(runtime.mapping)) {
    if (!isIdentifier(original) || !isIdentifier(renamed)) {
      throw new Error(
        `renamed runtime ${runtime.renamed}: mapping ${JSON.stringify(original)} -> ${JSON.stringify(renamed)} is not a pair of Python identifiers`,
      );
    }
    const other = toOriginal.get(renamed);
    if (other !== undefined) throw new Error(`renamed runtime ${runtime.renamed}: both ${other} and ${original} are renamed to ${renamed}`);
    toPrivate.set(original, renamed);
    toOriginal.set(renamed, original);
  }
  for (const renamed of toOriginal.keys()) {
    if (toPrivate.has(renamed)) {
      throw new Error(
        `renamed runtime ${runtime.renamed}: ${renamed} is both a private name and an original one (renamed to ${toPrivate.get(renamed)})`,
      );
    }
  }
  const originalsByLength = [...toPrivate.keys()].sort((a, b) => b.length - a.length || a.localeCompare(b));
  const privatesByLength = [...toOriginal.keys()].sort((a, b) => b.length - a.length || a.localeCompare(b));
  const maps: Maps = { toOriginal, toPrivate, originalsByLength, privatesByLength };
  mapsCache.set(runtime.mapping, maps);
  return maps;
}

function isIdentifier(name: string): boolean {
  return /^[\p{ID_Start}_][\p{ID_Continue}]*$/u.test(name);
}

/** 1-based line of an offset. */
function lineOf(source: string, offset: number): number {
  let line = 1;
  for (let i = source.indexOf('\n'); i !== -1 && i < offset; i = source.indexOf('\n', i + 1)) line++;
  return line;
}

export interface OriginalNameUse {
  name: string;
  /** 1-based line of its first use. */
  line: number;
}

/** Original (renamed-away) names the source uses as identifiers, each once, in order of first use. */
export function originalNamesUsed(runtime: RenamedRuntime, source: string): OriginalNameUse[] {
  const { toPrivate } = renamedMaps(runtime);
  const seen = new Map<string, OriginalNameUse>();
  for (const token of pythonIdentifiers(source)) {
    if (toPrivate.has(token.name) && !seen.has(token.name)) seen.set(token.name, { name: token.name, line: lineOf(source, token.start) });
  }
  return [...seen.values()];
}

/**
 * Real names (Python's, pandas', numpy's) that contain a private name where compound identifiers
 * are mapped (see originalIdentifier), found by scanning their namespaces: left as they are.
 */
const REAL_COMPOUND_NAMES = new Set([
  'to_numpy',
  'nan_to_num',
  '_collections',
  '_collections_abc',
  'piecewise',
  'symmetric_difference',
  'symmetric_difference_update',
  'difference_update',
  'mkdir',
  'mkdtemp',
  'mkstemp',
  'mktemp',
  'mkfifo',
  'mknod',
  'mktime',
]);

/**
 * An identifier of the private world in original names. A keyword as a whole is mapped
 * (`sip` -> `drop`). Other identifiers are mapped the way the prompts were renamed, by substring:
 * the tasks' tests use the original variable names (`merged_series`, `myarray`) where the renamed
 * prompts define `unionerd_collections`, `mynumset`. A private name inside an identifier is mapped
 * where at least one of its ends is a part boundary (`_`, a digit, a change of case, the
 * identifier's end), so `fromkeys` keeps its `mk`.
 */
function originalIdentifier(name: string, maps: Maps): string {
  const whole = maps.toOriginal.get(name);
  if (whole !== undefined) return whole;
  if (REAL_COMPOUND_NAMES.has(name)) return name;
  let result = '';
  let copied = 0;
  let i = 0;
  while (i < name.length) {
    const found = maps.privatesByLength.find((p) => name.startsWith(p, i) && (startsPart(name, i) || endsPart(name, i, p)));
    if (found === undefined) {
      i++;
      continue;
    }
    result += name.slice(copied, i) + maps.toOriginal.get(found)!;
    i += found.length;
    copied = i;
  }
  return copied === 0 ? name : result + name.slice(copied);
}

function replaceIdentifiers(source: string, rename: (name: string) => string): string {
  let result = '';
  let last = 0;
  for (const token of pythonIdentifiers(source)) {
    const replacement = rename(token.name);
    if (replacement === token.name) continue;
    result += source.slice(last, token.start) + replacement;
    last = token.end;
  }
  return result + source.slice(last);
}

/** The parts of a program: the model's solution (private names) and the dataset's test (original names). */
export interface ProgramParts {
  solution: string;
  rest: string;
}

/**
 * A program written against the private library, made runnable on the original: refused (error type
 * `OriginalApiUsed`, naming each original name and its line) when its private part uses an original
 * name as an identifier, as PyCodeGPT counts such a completion as a failure; else its private
 * identifiers are replaced by the originals. With parts, only the solution is checked and mapped
 * and the rest follows it unchanged (`solution + '\n' + rest`). The refusal message names only
 * what the program itself wrote; do not pass it through presentRenamedOutput (that would spell out
 * the private counterparts).
 */
export function prepareRenamedProgram(runtime: RenamedRuntime, program: string | ProgramParts): PreparedProgram {
  if (typeof program === 'string') return prepareRenamedSolution(runtime, program);
  const prepared = prepareRenamedSolution(runtime, program.solution);
  if (!prepared.ok || !program.rest) return prepared;
  return { ok: true, program: `${prepared.program}\n${program.rest}` };
}

/** The private part of a program, checked and mapped (see prepareRenamedProgram). */
export function prepareRenamedSolution(runtime: RenamedRuntime, solution: string): PreparedProgram {
  const used = originalNamesUsed(runtime, solution);
  if (used.length > 0) {
    const listed = used
      .slice(0, 8)
      .map((use) => `\`${use.name}\` (line ${use.line})`)
      .join(', ');
    const more = used.length > 8 ? ` and ${used.length - 8} more` : '';
    return {
      ok: false,
      error: {
        type: 'OriginalApiUsed',
        message:
          `${listed}${more}: ${used.length === 1 ? 'this name is' : 'these names are'} renamed in this environment; ` +
          `use the names of the ${runtime.renamed} library as its documentation gives them`,
      },
    };
  }
  return { ok: true, program: mapToOriginal(runtime, solution) };
}

/** Private identifiers (whole or in compounds, see originalIdentifier) replaced by the originals; strings and comments untouched. */
export function mapToOriginal(runtime: RenamedRuntime, code: string): string {
  const maps = renamedMaps(runtime);
  return replaceIdentifiers(code, (name) => originalIdentifier(name, maps));
}

/**
 * Output of a run (stdout, stderr, exception type, message, traceback) with the original names
 * replaced by the private ones, so that a model never sees the originals. The text is not Python,
 * so original names are replaced wherever they stand as a word or as a part of a compound name:
 * delimited by the start or end of the name, `_`, a digit, or a change of case
 * (`DataFrameGroupBy` -> `KnowledgeFrameGroupBy`, `site-packages/pandas/core` -> `.../monkey/core`,
 * `max_rows` -> `get_max_rows`, as the renamed documentation spells it), never inside a word
 * (`address` keeps its `add`).
 */
export function presentRenamedOutput(runtime: RenamedRuntime, text: string): string {
  const maps = renamedMaps(runtime);
  return text
    .split('\n')
    .map((line) => presentLine(maps, line))
    .join('\n');
}

/**
 * Python's own traceback framing: English words of the interpreter, not names of the library, so
 * they are never renamed (pandas' `last` would turn "most recent call last" into "most recent call
 * final_item").
 */
const PYTHON_FRAMING_LINES = new Set([
  'Traceback (most recent call last):',
  'During handling of the above exception, another exception occurred:',
  'The above exception was the direct cause of the following exception:',
]);
/** A traceback's frame line: only the file's path and the function's name are the library's. */
const FRAME_LINE = /^(\s*File ")(.*)(", line \d+, in )(.*)$/;

function presentLine(maps: Maps, line: string): string {
  if (PYTHON_FRAMING_LINES.has(line.trim())) return line;
  const frame = FRAME_LINE.exec(line);
  if (frame) return frame[1]! + presentWords(maps, frame[2]!) + frame[3]! + presentWords(maps, frame[4]!);
  return presentWords(maps, line);
}

function presentWords({ toPrivate, originalsByLength }: Maps, text: string): string {
  return text.replace(/[A-Za-z0-9_]+/g, (word) => {
    const whole = toPrivate.get(word);
    if (whole !== undefined) return whole;
    let result = '';
    let i = 0;
    let copied = 0;
    while (i < word.length) {
      const found = startsPart(word, i) ? originalsByLength.find((name) => word.startsWith(name, i) && endsPart(word, i, name)) : undefined;
      if (found === undefined) {
        i++;
        continue;
      }
      result += word.slice(copied, i) + toPrivate.get(found)!;
      i += found.length;
      copied = i;
    }
    return result + word.slice(copied);
  });
}

function isLower(c: string | undefined): boolean {
  return c !== undefined && c >= 'a' && c <= 'z';
}
function isUpper(c: string | undefined): boolean {
  return c !== undefined && c >= 'A' && c <= 'Z';
}

/** Whether a part of a compound name may start at `at`: after `_` or a digit, or where the case changes. */
function startsPart(word: string, at: number): boolean {
  if (at === 0) return true;
  const before = word[at - 1]!;
  if (before === '_' || isDigit(before)) return true;
  const first = word[at];
  // fooBar -> Bar; ABCDataFrame -> DataFrame
  return isUpper(first) && (isLower(before) || (isUpper(before) && isLower(word[at + 1])));
}

/** Whether `name`, found at `at`, ends a part of the word (a plural s of a long name included: DataFrames). */
function endsPart(word: string, at: number, name: string): boolean {
  let end = at + name.length;
  if (name.length >= 5 && word[end] === 's' && end + 1 === word.length) end++;
  if (end === word.length) return true;
  const after = word[end]!;
  if (after === '_' || isDigit(after)) return true;
  const last = word[end - 1]!;
  return isUpper(after) && (isLower(last) || isDigit(last));
}
