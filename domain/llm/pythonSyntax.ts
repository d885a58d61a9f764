/**
 * Whether CPython 3.11's `ast.parse` accepts a piece of code, told from tree-sitter-python's tree:
 * what evalplus's `syntax_check` asks when its sanitizer looks for the longest valid run of lines.
 * tree-sitter parses a superset of Python (it recovers, and it reads Python 2 and 3.12 too), so on
 * top of "no ERROR or MISSING node" the rules CPython 3.11 applies and the tree still shows are
 * checked here (`violatesPython311`), and the indentation its tokenizer requires
 * (`indentationIsValid`). 3.11: the tests' Python, evalplus's reference here, and the sandbox's,
 * so code this rejects would not run there either.
 */
import type { Node, Parser } from 'web-tree-sitter';

/**
 * Whether CPython 3.11's `ast.parse` accepts `code`, as far as the tree tells. Not checked (the
 * tree does not show them, or no answer is expected to hold them): string escapes and the like;
 * evalplus's choice may differ on such answers.
 */
export function isPythonSyntax(parser: Parser, code: string): boolean {
  const tree = parser.parse(code);
  if (!tree) throw new Error('tree-sitter returned no tree (was the parser given a language?)');
  try {
    const root = tree.rootNode;
    if (root.hasError) return false;
    return !violatesPython311(root) && indentationIsValid(root, code);
  } finally {
    tree.delete();
  }
}

/** Python 3's hard keywords: never a name (tree-sitter reads `async = 1` as an assignment). */
const KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);

/** Targets `del`, `+=` and an annotation may name. */
const SIMPLE_TARGETS = new Set(['identifier', 'attribute', 'subscript']);

/** Whether any node breaks a rule of CPython 3.11's parser that tree-sitter does not enforce. */
function violatesPython311(root: Node): boolean {
  const cursor = root.walk();
  try {
    for (;;) {
      if (breaksRule(cursor.currentNode)) return true;
      if (cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) if (!cursor.gotoParent()) return false;
    }
  } finally {
    cursor.delete();
  }
}

function breaksRule(node: Node): boolean {
  switch (node.type) {
    // Python 2: `print "x"` and `exec "x"` (`print >>f, x` is an expression in Python 3).
    case 'print_statement':
      return node.namedChildren[0]?.type !== 'chevron';
    case 'exec_statement':
    case '<>':
      return true;
    // Python 3.12: `def f[T]`, `class A[T]`, `type X = int` (`List[int]` is a type_parameter too).
    case 'type_parameter':
      return ['function_definition', 'class_definition'].includes(node.parent?.type ?? '');
    case 'type_alias_statement':
      return true;
    // A header at the end of the code ('def f():') gets an empty block: "expected an indented block".
    case 'block':
      return !node.namedChildren.some((c) => c?.type !== 'comment');
    case 'try_statement':
      return !node.namedChildren.some((c) => c && ['except_clause', 'except_group_clause', 'finally_clause'].includes(c.type));
    case 'parameters':
    case 'lambda_parameters':
      return !parametersAreValid(node);
    case 'argument_list':
      return !argumentOrderIsValid(node);
    case 'identifier':
      return KEYWORDS.has(node.text);
    // `x := 1` as a statement or the value of an assignment needs parentheses.
    case 'named_expression':
      return ['expression_statement', 'assignment', 'augmented_assignment'].includes(node.parent?.type ?? '');
    case 'delete_statement':
      return !node.namedChildren.every((c) => !c || c.type === 'comment' || isDeleteTarget(c));
    case 'augmented_assignment':
      return !isSimpleTarget(node.childForFieldName('left'));
    case 'assignment':
      return node.childForFieldName('type') !== null && !isSimpleTarget(node.childForFieldName('left'));
    case 'assert_statement':
      return node.namedChildren.filter((c) => c && c.type !== 'comment').length > 2;
    // `from x import a, b,`: a trailing comma needs the parentheses.
    case 'import_from_statement':
      return node.lastChild?.type === ',' && !node.children.some((c) => c?.type === '(');
    // `(i for i in 1, 2)`, `f(x for x in y, 1)`: an unparenthesized tuple after `in`.
    case 'for_in_clause':
      return node.childrenForFieldName('right').length > 1;
    case 'list_comprehension':
    case 'set_comprehension':
    case 'generator_expression':
      return ['list_splat', 'dictionary_splat'].includes(node.childForFieldName('body')?.type ?? '');
    // "leading zeros in decimal integer literals are not permitted" (Python 2's octal 0777).
    case 'integer':
      return /^0[\d_]*[1-9]/.test(node.text) && !/[jJ]$/.test(node.text);
    case 'string_start':
      return node.text.includes('`');
    case 'string':
      return !stringIsValid(node);
    case 'concatenated_string':
      return new Set(node.namedChildren.map((s) => s?.type === 'string' && isBytes(s))).size > 1;
    case 'type_conversion':
      return !['!r', '!s', '!a'].includes(node.text);
    default:
      return false;
  }
}

function isSimpleTarget(node: Node | null): boolean {
  if (!node) return false;
  // `(x)` is a parenthesized expression, or a tuple pattern without a comma.
  const parenthesized =
    node.type === 'parenthesized_expression' || (node.type === 'tuple_pattern' && !node.children.some((c) => c?.type === ','));
  if (parenthesized) return isSimpleTarget(node.namedChildren.find((c) => c?.type !== 'comment') ?? null);
  return SIMPLE_TARGETS.has(node.type);
}

function isDeleteTarget(node: Node): boolean {
  if (SIMPLE_TARGETS.has(node.type)) return true;
  if (['tuple', 'list', 'expression_list', 'parenthesized_expression', 'tuple_pattern', 'list_pattern', 'pattern_list'].includes(node.type))
    return node.namedChildren.every((c) => !c || c.type === 'comment' || isDeleteTarget(c));
  return false;
}

function prefixOf(str: Node): string {
  const start = str.namedChildren.find((c) => c?.type === 'string_start');
  return (start?.text ?? '').replace(/['"]+$/, '').toLowerCase();
}

function isBytes(str: Node): boolean {
  return prefixOf(str).includes('b');
}

/**
 * Bytes hold ASCII only; an f-string's expressions may not hold a backslash, a `#` or the string's
 * own quote (Python 3.11: 3.12 lifted these).
 */
function stringIsValid(str: Node): boolean {
  const prefix = prefixOf(str);
  if (prefix.includes('b')) {
    for (const c of str.namedChildren) if (c?.type === 'string_content' && [...c.text].some((ch) => ch.charCodeAt(0) > 0x7f)) return false;
  }
  if (!prefix.includes('f')) return true;
  const quote = (str.namedChildren.find((c) => c?.type === 'string_start')?.text ?? '').slice(prefix.length);
  for (const part of str.namedChildren) {
    if (part?.type !== 'interpolation') continue;
    const expression = part.childForFieldName('expression');
    if (!expression) continue;
    const text = expression.text;
    if (text.includes('\\') || text.includes('#') || text.includes(quote)) return false;
  }
  return true;
}

/**
 * Parameters: one without a default may not follow one with a default before the first `*`,
 * `*args` or `**kwargs`; nothing after `**kwargs`; a bare `*` needs a named parameter after it;
 * `/` not first.
 */
function parametersAreValid(parameters: Node): boolean {
  const list = parameters.namedChildren.filter((p): p is Node => p !== null && p.type !== 'comment');
  let sawDefault = false;
  let starred = false;
  for (const [i, p] of list.entries()) {
    const inner = p.type === 'typed_parameter' ? p.namedChildren.find((c) => c?.type !== 'type') : null;
    const kind = inner && ['list_splat_pattern', 'dictionary_splat_pattern'].includes(inner.type) ? inner.type : p.type;
    if (kind === 'dictionary_splat_pattern') return i === list.length - 1;
    if (kind === 'positional_separator') {
      if (i === 0 || starred) return false;
      continue;
    }
    if (kind === 'keyword_separator') {
      const next = list[i + 1];
      if (!next || next.type === 'dictionary_splat_pattern') return false;
      starred = true;
      continue;
    }
    if (kind === 'list_splat_pattern') {
      starred = true;
      continue;
    }
    if (kind === 'default_parameter' || kind === 'typed_default_parameter') sawDefault = true;
    else if (sawDefault && !starred) return false;
  }
  return true;
}

/**
 * Call arguments: no positional one after a keyword one or after `**`, no `*` after `**`
 * ("positional argument follows keyword argument (unpacking)").
 */
function argumentOrderIsValid(args: Node): boolean {
  let keyword = false;
  let doubleStar = false;
  for (const a of args.namedChildren) {
    if (!a || a.type === 'comment') continue;
    if (a.type === 'keyword_argument') keyword = true;
    else if (a.type === 'dictionary_splat') doubleStar = true;
    else if (a.type === 'list_splat') {
      if (doubleStar) return false;
    } else if (keyword || doubleStar) return false;
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
