/**
 * evalplus's sanitizer for chat answers (`evalplus.sanitize.sanitize`, evalplus 0.3.1), written
 * anew on the same parser evalplus uses, tree-sitter-python 0.25.0 (through web-tree-sitter):
 *
 * 1. `longestValidCode` (evalplus's `code_extract`): of all runs of two or more consecutive lines of
 *    the answer, the one with the most non-blank lines that is valid Python (ties: the earliest
 *    start, then the earliest end). Markdown fences and prose are not read as such; they are lines
 *    that do not parse. evalplus asks CPython's `ast.parse` whether a run is valid Python; here
 *    tree-sitter's tree stands in for it (`isPythonSyntax` lists where the two differ and how).
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

/** Python's `str.isspace()` characters, which `str.strip()` removes (JS `\s` differs: \x1c-\x1f, \x85, \ufeff). */
const PY_SPACE = '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, 'g');

/** Python's `s.strip()`. */
export function pyStrip(s: string): string {
  return s.replace(PY_STRIP, '');
}

/** Statements tree-sitter-python accepts for Python 2's sake, which Python 3 rejects. */
const PYTHON2_ONLY = new Set(['print_statement', 'exec_statement']);

/**
 * Whether CPython's `ast.parse` accepts `code` (evalplus's `syntax_check`), as far as
 * tree-sitter-python's tree tells: no ERROR or MISSING node, no Python 2 `print`/`exec`
 * statement, no compound statement without a body, no `try` without `except` or `finally`, no
 * parameter without a default after one with a default, and the indentation CPython's tokenizer
 * requires (`indentationIsValid`); tree-sitter lets these through. Not checked (the tree does not
 * show them): an assignment to a keyword, f-string quotes Python 3.11 rejects, and the like;
 * evalplus's choice may differ on such answers.
 */
export function isPythonSyntax(parser: Parser, code: string): boolean {
  const tree = parser.parse(code);
  if (!tree) throw new Error('tree-sitter returned no tree (was the parser given a language?)');
  try {
    const root = tree.rootNode;
    if (root.hasError) return false;
    if (root.descendantsOfType([...PYTHON2_ONLY]).length > 0) return false;
    // A header at the end of the code ('def f():') gets an empty block: "expected an indented block".
    if (root.descendantsOfType('block').some((b) => b && !b.namedChildren.some((c) => c?.type !== 'comment'))) return false;
    const handlers = ['except_clause', 'except_group_clause', 'finally_clause'];
    if (root.descendantsOfType('try_statement').some((t) => t && !t.namedChildren.some((c) => c && handlers.includes(c.type))))
      return false;
    if (root.descendantsOfType(['parameters', 'lambda_parameters']).some((p) => p && !parameterOrderIsValid(p))) return false;
    return indentationIsValid(root, code);
  } finally {
    tree.delete();
  }
}

/**
 * "non-default argument follows default argument": before the first `*`, `*args` or `**kwargs`, a
 * parameter without a default may not follow one with a default (the `/` marker changes nothing).
 */
function parameterOrderIsValid(parameters: Node): boolean {
  let sawDefault = false;
  for (const p of parameters.namedChildren) {
    if (!p) continue;
    const splat =
      p.type === 'typed_parameter' &&
      p.namedChildren.some((c) => c?.type === 'list_splat_pattern' || c?.type === 'dictionary_splat_pattern');
    if (splat || ['list_splat_pattern', 'dictionary_splat_pattern', 'keyword_separator'].includes(p.type)) return true;
    if (p.type === 'default_parameter' || p.type === 'typed_default_parameter') sawDefault = true;
    else if (p.type !== 'positional_separator' && p.type !== 'comment' && sawDefault) return false;
  }
  return true;
}

/** Nodes that begin a logical line of their own when they come first on a line. */
const LINE_STARTS = new Set([
  'decorator',
  'else_clause',
  'elif_clause',
  'except_clause',
  'except_group_clause',
  'finally_clause',
  'case_clause',
]);

/**
 * CPython's tokenizer on the lines that begin a statement or a clause: a line indented deeper than
 * the one before only as the first line of a block ("unexpected indent"), a dedent only to a level
 * of the enclosing blocks ("unindent does not match any outer indentation level"), and tabs that
 * give the same order counted as 8 columns or as 1 (TabError). Comment lines do not count.
 */
function indentationIsValid(root: Node, code: string): boolean {
  const starts: Array<{ at: number; opensBlock: boolean }> = [];
  const visit = (node: Node, parent: Node | null): void => {
    if (node.type !== 'comment' && parent) {
      const statement = parent.type === 'module' || parent.type === 'block';
      const afterDecorator = parent.type === 'decorated_definition' && node.type !== 'decorator';
      if (statement || afterDecorator || LINE_STARTS.has(node.type)) {
        const opensBlock = parent.type === 'block' && parent.namedChildren.find((c) => c?.type !== 'comment')?.id === node.id;
        starts.push({ at: node.startIndex, opensBlock });
      }
    }
    for (const child of node.namedChildren) if (child) visit(child, node);
  };
  visit(root, null);
  const levels: Array<[number, number]> = [[0, 0]];
  let lastLine = -1;
  for (const { at, opensBlock } of starts) {
    const lineStart = code.lastIndexOf('\n', at - 1) + 1;
    const prefix = code.slice(lineStart, at);
    if (!/^[ \t\f]*$/.test(prefix) || lineStart === lastLine) continue; // not first on its line
    lastLine = lineStart;
    const [col, altcol] = indentationOf(prefix);
    const [topCol, topAlt] = levels.at(-1)!;
    if (col > topCol) {
      if (!opensBlock || altcol <= topAlt) return false;
      levels.push([col, altcol]);
      continue;
    }
    while (levels.length > 1 && col < levels.at(-1)![0]) levels.pop();
    const [c, a] = levels.at(-1)!;
    if (col !== c || altcol !== a) return false;
  }
  return true;
}

/** A line's indentation as CPython's tokenizer counts it: tabs to the next multiple of 8, and tabs as 1. */
function indentationOf(prefix: string): [number, number] {
  let col = 0;
  let altcol = 0;
  for (const ch of prefix) {
    if (ch === ' ') {
      col++;
      altcol++;
    } else if (ch === '\t') {
      col = (Math.floor(col / 8) + 1) * 8;
      altcol++;
    } else {
      col = 0;
      altcol = 0;
    }
  }
  return [col, altcol];
}

/**
 * evalplus's `code_extract`: the lines i..j (j > i) of `text` split at '\n' that are valid Python
 * and have the most non-blank lines; the first line alone when no run is valid. Searched from the
 * longest end down for each start, skipping runs that could not beat the best so far: the same
 * choice as evalplus's loop over every (i, j), with fewer parses.
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
    for (let j = lines.length - 1; j > i; j--) {
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
