/**
 * evalplus's sanitizer for chat answers (`evalplus.sanitize.sanitize`, evalplus 0.3.1), written
 * anew on the same parser evalplus uses, tree-sitter-python 0.25.0 (through web-tree-sitter):
 *
 * 1. `longestValidCode` (evalplus's `code_extract`): of all runs of two or more consecutive lines of
 *    the answer, the one with the most non-blank lines that is valid Python (ties: the earliest
 *    start, then the earliest end). Markdown fences and prose are not read as such; they are lines
 *    that do not parse. evalplus asks CPython's `ast.parse` whether a run is valid Python; here
 *    tree-sitter's tree and CPython 3.11's rules stand in for it (pythonSyntax.ts).
 * 2. On that code, the top-level imports (all kept), classes, functions that contain a `return`
 *    somewhere, and assignments `name = ...` (the first definition of each name); with an entry
 *    point, only the definitions it reaches through the identifiers they contain. Decorated
 *    definitions, augmented assignments and other statements are dropped, as evalplus drops them.
 * 3. If that leaves nothing (no entry point in the answer, say), the code of step 1 as it is.
 *
 * Pure: the caller hands in a parser already set to tree-sitter-python (loading the wasm is I/O;
 * see infra/pythonParser.ts).
 */
import type { Node, Parser } from 'web-tree-sitter';
import { isPythonSyntax } from './pythonSyntax.js';

export { isPythonSyntax };

/** Python's `str.isspace()` characters, which `str.strip()` removes (JS `\s` differs: \x1c-\x1f, \x85, \ufeff). */
const PY_SPACE = '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, 'g');

/** Python's `s.strip()`. */
export function pyStrip(s: string): string {
  return s.replace(PY_STRIP, '');
}

/**
 * evalplus's `code_extract`: the lines i..j (j > i) of `text` split at '\n' that are valid Python
 * and have the most non-blank lines; the first line alone when no run is valid. Searched from the
 * longest end down for each start, skipping runs that could not beat the best so far or that reach
 * a line no continuation can mend (firstBrokenLine): the same choice as evalplus's loop over every
 * (i, j), with far fewer parses (a chat answer's prose and fences end most runs early).
 */
export function longestValidCode(parser: Parser, text: string): string {
  const lines = text.split('\n');
  // nonBlankBefore[k]: non-blank lines among lines[0..k-1].
  const nonBlankBefore = [0];
  for (const line of lines) nonBlankBefore.push(nonBlankBefore.at(-1)! + (pyStrip(line) ? 1 : 0));
  const count = (i: number, j: number): number => nonBlankBefore[j + 1]! - nonBlankBefore[i]!;
  let best = 0;
  let pair: [number, number] = [0, 0];
  for (let i = 0; i < lines.length; i++) {
    let found = -1;
    let foundCount = 0;
    for (let j = firstBrokenLine(lines, i) - 1; j > i; j--) {
      const c = count(i, j);
      if (c <= best || (found !== -1 && c < foundCount)) break;
      if (isPythonSyntax(parser, lines.slice(i, j + 1).join('\n'))) {
        // Runs that differ only by trailing blank lines have the same count: evalplus keeps the shortest.
        found = j;
        foundCount = c;
      }
    }
    if (found !== -1) {
      best = foundCount;
      pair = [i, found];
    }
  }
  return lines.slice(pair[0], pair[1] + 1).join('\n');
}

/** Characters that are an error anywhere outside a string or a comment. */
const NEVER_CODE = new Set(['`', '$', '?']);

/**
 * The first line, from line `start` on, at which Python's tokenizer fails whatever follows, reading
 * from `start`: a backtick, `$`, `?` or a `!` not before `=` outside strings and comments, a
 * single-quoted string the line leaves open, or the first code line indented ("unexpected
 * indent"); `lines.length` if none. Every run from `start` that reaches it is invalid, so
 * longestValidCode need not parse it. (Strings are read as 3.11 reads them: an f-string ends at
 * its quote, whatever its braces hold.)
 */
function firstBrokenLine(lines: readonly string[], start: number): number {
  let open: { quote: string } | null = null;
  let sawCode = false;
  for (let k = start; k < lines.length; k++) {
    const line = lines[k]!;
    let c = 0;
    if (!open && !sawCode) {
      const code = line.trimStart();
      if (code !== '' && !code.startsWith('#')) {
        if (code.length !== line.length) return k;
        sawCode = true;
      }
    }
    let continued = false;
    while (c < line.length) {
      const ch = line[c]!;
      if (open) {
        if (ch === '\\') {
          if (c === line.length - 1) continued = true;
          c += 2;
        } else if (line.startsWith(open.quote, c)) {
          c += open.quote.length;
          open = null;
        } else c++;
        continue;
      }
      if (ch === '#') break;
      if (ch === '"' || ch === "'") {
        const triple = line.startsWith(ch.repeat(3), c);
        open = { quote: triple ? ch.repeat(3) : ch };
        c += triple ? 3 : 1;
        continue;
      }
      if (NEVER_CODE.has(ch) || (ch === '!' && line[c + 1] !== '=')) return k;
      if (ch === '\\' && c === line.length - 1) continued = true;
      c++;
    }
    // A single-quoted string ends on its line unless a backslash carries it on.
    if (open && open.quote.length === 1 && !continued) return k;
    if (!sawCode && continued) sawCode = true;
  }
  return lines.length;
}

/** The name a definition binds: its first `identifier` child (none for `a, b = ...` or `x.y = ...`). */
function definitionName(node: Node): string | null {
  for (const child of node.children) if (child?.type === 'identifier') return child.text;
  return null;
}

/**
 * Whether evalplus's `traverse_tree` meets a `return_statement` in `node`. That walk stops early:
 * it counts leaves down and parents up in one counter and ends when, going up, the counter is 0;
 * a function whose `return` comes after such a point counts as having none. Kept as it is.
 */
function hasReturnStatement(node: Node): boolean {
  const cursor = node.walk();
  try {
    let depth = 0;
    let visitedChildren = false;
    for (;;) {
      if (!visitedChildren) {
        if (cursor.nodeType === 'return_statement') return true;
        if (!cursor.gotoFirstChild()) {
          depth++;
          visitedChildren = true;
        }
      } else if (cursor.gotoNextSibling()) {
        visitedChildren = false;
      } else if (!cursor.gotoParent() || depth === 0) {
        return false;
      } else {
        depth--;
      }
    }
  } finally {
    cursor.delete();
  }
}

/** Every identifier in `node`'s subtree (the names a definition may depend on). */
function identifiersIn(node: Node): Set<string> {
  const names = new Set<string>();
  const stack: Node[] = [node];
  while (stack.length > 0) {
    for (const child of stack.pop()!.children) {
      if (!child) continue;
      if (child.type === 'identifier') names.add(child.text);
      else stack.push(child);
    }
  }
  return names;
}

/** The names reachable from `entryPoint` through `deps` (the entry point included). */
function reachable(entryPoint: string, deps: ReadonlyMap<string | null, Set<string>>): Set<string | null> {
  const seen = new Set<string | null>([entryPoint]);
  const queue = [entryPoint];
  while (queue.length > 0) {
    for (const next of deps.get(queue.shift()!) ?? []) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return seen;
}

/** evalplus's `extract_target_code_or_empty`: steps 1 and 2. */
function targetCode(parser: Parser, answer: string, entryPoint: string | null): string {
  const code = longestValidCode(parser, answer);
  const tree = parser.parse(code);
  if (!tree) throw new Error('tree-sitter returned no tree (was the parser given a language?)');
  try {
    const imports: Node[] = [];
    const definitions: Array<[string | null, Node]> = [];
    // evalplus keeps one set per kind and checks all three: the first definition of a name wins.
    const defined = new Set<string | null>();
    for (const child of tree.rootNode.children) {
      if (!child) continue;
      if (child.type === 'import_statement' || child.type === 'import_from_statement') {
        imports.push(child);
      } else if (child.type === 'class_definition' || child.type === 'function_definition') {
        const name = definitionName(child);
        if (defined.has(name) || (child.type === 'function_definition' && !hasReturnStatement(child))) continue;
        definitions.push([name, child]);
        defined.add(name);
      } else if (child.type === 'expression_statement' && child.children[0]?.type === 'assignment') {
        const assignment = child.children[0];
        const name = definitionName(assignment);
        if (defined.has(name)) continue;
        definitions.push([name, assignment]);
        defined.add(name);
      }
    }
    const keep = entryPoint ? reachable(entryPoint, new Map(definitions.map(([name, node]) => [name, identifiersIn(node)]))) : null;
    const parts = imports.map((node) => node.text);
    for (const [name, node] of definitions) if (!keep || keep.has(name)) parts.push(node.text);
    return parts.join('\n');
  } finally {
    tree.delete();
  }
}

/**
 * evalplus's `sanitize(code, entrypoint)`: the answer's code that defines `entryPoint` and what it
 * depends on; without an entry point (null or ''), every kept definition.
 */
export function sanitizeEvalplus(parser: Parser, answer: string, entryPoint: string | null = null): string {
  const sanitized = pyStrip(targetCode(parser, answer, entryPoint));
  return sanitized ? sanitized : longestValidCode(parser, answer);
}
