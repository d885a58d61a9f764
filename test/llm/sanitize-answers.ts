/**
 * Chat answers for the evalplus sanitizer's fidelity test (sanitize-reference.test.ts): written by
 * hand in the shapes chat models answer in, each with the entry point evalplus would pass (its
 * task's `entry_point`; null where a caller gives none). The expected outputs are not written here:
 * the test asks evalplus's own `sanitize` for them.
 */

const F = '```';

export interface ChatAnswerCase {
  what: string;
  answer: string;
  entryPoint: string | null;
}

export const CHAT_ANSWERS: readonly ChatAnswerCase[] = [
  {
    what: 'one fenced block with prose around it',
    entryPoint: 'add',
    answer: `Here is the function you asked for:\n\n${F}python\ndef add(a, b):\n    return a + b\n${F}\n\nIt adds the two numbers.`,
  },
  {
    what: 'bare code, no fence',
    entryPoint: 'add',
    answer: 'def add(a, b):\n    return a + b\n',
  },
  {
    what: 'bare code with prose before and after',
    entryPoint: 'is_even',
    answer: "Sure! Here's a solution:\ndef is_even(n):\n    return n % 2 == 0\nThis checks whether n is divisible by two.",
  },
  {
    what: 'two blocks: an implementation and a usage example',
    entryPoint: 'square',
    answer: `${F}python\ndef square(x):\n    return x * x\n${F}\n\nExample usage:\n\n${F}python\nprint(square(3))\nprint(square(4))\n${F}\n`,
  },
  {
    what: 'two blocks: the longer one wins even without the entry point',
    entryPoint: 'f',
    answer: `${F}python\ndef f(x):\n    return x\n${F}\nor a longer helper:\n${F}python\ndef g(x):\n    y = x + 1\n    z = y * 2\n    w = z - 3\n    return w\n${F}\n`,
  },
  {
    what: 'helper function the entry point calls, and an unused one',
    entryPoint: 'solve',
    answer: `${F}python\ndef helper(x):\n    return x * 2\n\ndef unused(y):\n    return y - 1\n\ndef solve(xs):\n    return [helper(x) for x in xs]\n${F}`,
  },
  {
    what: 'a class the entry point uses',
    entryPoint: 'make_stack',
    answer: `${F}python\nclass Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, x):\n        self.items.append(x)\n\ndef make_stack(xs):\n    s = Stack()\n    for x in xs:\n        s.push(x)\n    return s.items\n${F}`,
  },
  {
    what: 'imports outside the function are all kept',
    entryPoint: 'mean',
    answer: `${F}python\nimport math\nfrom typing import List\nimport os, sys\n\ndef mean(xs: List[float]) -> float:\n    return math.fsum(xs) / len(xs)\n${F}`,
  },
  {
    what: 'imports inside the function',
    entryPoint: 'root',
    answer: `${F}python\ndef root(x):\n    import math\n    from functools import reduce\n    return math.sqrt(x)\n${F}`,
  },
  {
    what: 'global assignments, used and unused',
    entryPoint: 'scale',
    answer: `${F}python\nFACTOR = 3\nUNUSED = 'no'\nOFFSET: int = 1\n\ndef scale(x):\n    return x * FACTOR + OFFSET\n${F}`,
  },
  {
    what: 'a global that depends on another global and a function',
    entryPoint: 'lookup',
    answer: `${F}python\ndef build(n):\n    return {i: i * i for i in range(n)}\n\nN = 10\nTABLE = build(N)\n\ndef lookup(i):\n    return TABLE[i]\n${F}`,
  },
  {
    what: 'if __name__ == "__main__" block is dropped',
    entryPoint: 'double',
    answer: `${F}python\ndef double(x):\n    return 2 * x\n\nif __name__ == "__main__":\n    print(double(21))\n    assert double(2) == 4\n${F}`,
  },
  {
    what: 'decorated entry point',
    entryPoint: 'fib',
    answer: `${F}python\nfrom functools import lru_cache\n\n@lru_cache(maxsize=None)\ndef fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n${F}`,
  },
  {
    what: 'decorated helper, plain entry point',
    entryPoint: 'area',
    answer: `${F}python\nimport functools\n\n@functools.cache\ndef pi():\n    return 3.14159\n\ndef area(r):\n    return pi() * r * r\n${F}`,
  },
  {
    what: 'nested functions',
    entryPoint: 'outer',
    answer: `${F}python\ndef outer(xs):\n    def inner(x):\n        def innermost(y):\n            return y + 1\n        return innermost(x) * 2\n    return [inner(x) for x in xs]\n${F}`,
  },
  {
    what: 'entry point without a return statement is dropped',
    entryPoint: 'show',
    answer: `${F}python\ndef show(x):\n    print(x)\n\ndef other():\n    return 1\n${F}`,
  },
  {
    what: 'no entry point in the answer',
    entryPoint: 'missing',
    answer: `${F}python\nimport re\n\ndef something_else(s):\n    return re.sub("a", "b", s)\n${F}`,
  },
  {
    what: 'no entry point given: every definition kept',
    entryPoint: null,
    answer: `${F}python\nimport re\nX = 1\n\ndef a():\n    return X\n\ndef b():\n    return 2\n\nprint(a())\n${F}`,
  },
  {
    what: 'empty answer',
    entryPoint: 'f',
    answer: '',
  },
  {
    what: 'prose only',
    entryPoint: 'f',
    answer: "I'm sorry, I cannot help with that request.\nPlease provide more details.",
  },
  {
    what: 'a syntax error in the middle of the code',
    entryPoint: 'g',
    answer: `${F}python\ndef f(x):\n    return x +\n\ndef g(x):\n    return x * 2\n\ndef h(y):\n    return y\n${F}`,
  },
  {
    what: 'a syntax error at the end (answer cut off)',
    entryPoint: 'count',
    answer: `${F}python\ndef count(xs):\n    n = 0\n    for x in xs:\n        n += 1\n    return n\n\ndef broken(:\n`,
  },
  {
    what: 'unclosed fence',
    entryPoint: 'inc',
    answer: `Answer:\n${F}python\ndef inc(x):\n    return x + 1\n`,
  },
  {
    what: 'code block with an untagged fence and tilde fence',
    entryPoint: 'neg',
    answer: `~~~\ndef neg(x):\n    return -x\n~~~\n\n${F}\ndef pos(x):\n    return x\n${F}`,
  },
  {
    what: 'recursive entry point and mutual recursion',
    entryPoint: 'is_even',
    answer: `${F}python\ndef is_even(n):\n    return True if n == 0 else is_odd(n - 1)\n\ndef is_odd(n):\n    return False if n == 0 else is_even(n - 1)\n${F}`,
  },
  {
    what: 'redefinition: the first definition of a name wins',
    entryPoint: 'f',
    answer: `${F}python\ndef f():\n    return 1\n\ndef f():\n    return 2\n\nf = 3\n${F}`,
  },
  {
    what: 'a variable and a function of the same name',
    entryPoint: 'g',
    answer: `${F}python\nvalue = 10\n\ndef value():\n    return 5\n\ndef g():\n    return value\n${F}`,
  },
  {
    what: 'tuple assignment and attribute assignment at top level',
    entryPoint: 'h',
    answer: `${F}python\nimport sys\na, b = 1, 2\nsys.x = 3\nc = d = 4\n\ndef h():\n    return a + b + c + d\n${F}`,
  },
  {
    what: 'augmented assignment and top-level expressions are dropped',
    entryPoint: 'total',
    answer: `${F}python\nTOTAL = 0\nTOTAL += 5\nprint(TOTAL)\n\ndef total():\n    return TOTAL\n${F}`,
  },
  {
    what: 'a class with a method whose name is the entry point',
    entryPoint: 'twoSum',
    answer: `${F}python\nclass Solution:\n    def twoSum(self, nums, target):\n        seen = {}\n        for i, n in enumerate(nums):\n            if target - n in seen:\n                return [seen[target - n], i]\n            seen[n] = i\n${F}`,
  },
  {
    what: 'thinking text before the code',
    entryPoint: 'rev',
    answer: `<think>\nThe user wants to reverse a string. s[::-1] works.\n</think>\n\n${F}python\ndef rev(s):\n    return s[::-1]\n${F}`,
  },
  {
    what: 'doctest and docstring in the function',
    entryPoint: 'add',
    answer: `${F}python\ndef add(x: int, y: int) -> int:\n    """Add two numbers.\n\n    >>> add(2, 3)\n    5\n    """\n    return x + y\n${F}`,
  },
  {
    what: 'comments at the top level and in the function',
    entryPoint: 'abs_',
    answer: `${F}python\n# the absolute value\n# of a number\ndef abs_(x):\n    # negative numbers flip\n    return -x if x < 0 else x\n# done\n${F}`,
  },
  {
    what: 'Python 2 print statement in a second block',
    entryPoint: 'hello',
    answer: `${F}python\ndef hello():\n    return "hi"\n${F}\n\n${F}python\nprint "hello"\nprint hello()\n${F}`,
  },
  {
    what: 'indented code (copied from inside a list item)',
    entryPoint: 'first',
    answer: `1. Define the function:\n\n    ${F}python\n    def first(xs):\n        return xs[0]\n    ${F}\n`,
  },
  {
    what: 'async function, lambda assignment and a type alias',
    entryPoint: 'run',
    answer: `${F}python\nimport asyncio\nsquare = lambda x: x * x\n\nasync def fetch(x):\n    await asyncio.sleep(0)\n    return square(x)\n\ndef run(x):\n    return asyncio.run(fetch(x))\n${F}`,
  },
  {
    what: 'try/except imports at top level and a conditional definition',
    entryPoint: 'dump',
    answer: `${F}python\ntry:\n    import ujson as json\nexcept ImportError:\n    import json\n\nif True:\n    def helper():\n        return 1\n\ndef dump(x):\n    return json.dumps(x) + str(helper())\n${F}`,
  },
  {
    what: 'unicode identifiers and strings',
    entryPoint: 'grüßen',
    answer: `Voilà la solution :\n${F}python\nGRUSS = "Grüß dich, 世界 🚀"\n\ndef grüßen(name):\n    return f"{GRUSS} {name}"\n${F}`,
  },
  {
    what: 'a one-line answer',
    entryPoint: 'f',
    answer: 'def f(x): return x',
  },
  {
    what: 'a single word answer',
    entryPoint: 'f',
    answer: 'Done',
  },
  {
    what: 'blank lines before and after the code',
    entryPoint: 'k',
    answer: '\n\n\ndef k():\n    return 1\n\n\n\n',
  },
  {
    what: 'prose lines that are valid Python between code lines',
    entryPoint: 'p',
    answer: `Explanation\n${F}python\ndef p(x):\n    return x\n${F}\nNote: the function returns x\nOutput: 5\n`,
  },
  {
    what: 'match statement and walrus',
    entryPoint: 'kind',
    answer: `${F}python\ndef kind(x):\n    if (n := len(str(x))) > 3:\n        return "long"\n    match x:\n        case 0:\n            return "zero"\n        case _:\n            return "other"\n${F}`,
  },
  {
    what: 'dedent that matches no outer level',
    entryPoint: 'q',
    answer: `${F}python\ndef q(x):\n        y = x\n    return y\n\ndef r():\n    return 0\n${F}`,
  },
  {
    what: 'non-default argument after a default one',
    entryPoint: 'bad',
    answer: `${F}python\ndef bad(a=1, b):\n    return a + b\n\ndef good(a, b=1):\n    return a + b\n${F}`,
  },
  {
    what: 'CRLF line ends',
    entryPoint: 'crlf',
    answer: `Code:\r\n${F}python\r\ndef crlf(x):\r\n    return x\r\n${F}\r\n`,
  },
  {
    what: 'tests of the function in a block after it',
    entryPoint: 'clamp',
    answer: `${F}python\ndef clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n\n\nassert clamp(5, 0, 3) == 3\nassert clamp(-1, 0, 3) == 0\n${F}`,
  },
  {
    what: 'an else clause indented to no level of the if',
    entryPoint: 'sign',
    answer: `${F}python\ndef sign(x):\n    if x < 0:\n        return -1\n  else:\n        return 1\n\ndef zero():\n    return 0\n${F}`,
  },
  {
    what: 'tab-indented code, and a keyword-only parameter after *args',
    entryPoint: 'tabbed',
    answer: `${F}python\ndef tabbed(a, b=2, *rest, key, **kw):\n\tif a:\n\t\treturn a + b\n\treturn key\n${F}`,
  },
  {
    what: 'a lambda with a parameter without default after a default',
    entryPoint: 'ok',
    answer: `${F}python\nbad = lambda a=1, b: a\n\ndef ok(x, /, y=1, *, z):\n    return x + y + z\n${F}`,
  },
  {
    what: 'an f-string with a backslash in its expression (Python 3.11 rejects it)',
    entryPoint: 'show_lines',
    answer: `${F}python\ndef join_lines(xs):\n    return "\\n".join(xs)\n\ndef show_lines(xs):\n    return f"{'\\n'.join(xs)}"\n${F}`,
  },
  {
    what: 'prose with ?, $ and !, a shell line, a string left open by a backslash',
    entryPoint: 'price',
    answer: `Why does it cost $5? Let's see!\n!pip install numpy\n${F}python\nNOTE = 'a long \\\n  note'\n\ndef price(x):\n    return x != 0 and NOTE\n${F}\nDone?`,
  },
  // The shapes of evalplus's own tests (tests/test_treesitter_sanitizer.py), written anew.
  {
    what: "evalplus's code_extract example: prose lines between code lines",
    entryPoint: null,
    answer: `Here is some python code generated\nimport math as m\nOops, that was wrong, once more\nfrom math import sqrt, floor, ceil\n\ndef up(x):\n    return ceil(x)\nAs you can see above\n    `,
  },
  {
    what: "evalplus's code_extract example: blank lines, then prose, then code",
    entryPoint: null,
    answer: `import math as m\n\n\nimport random\nWait, let me redo that\nfrom math import sqrt, floor, ceil\ndef up(x):\n    return ceil(x)\n`,
  },
  {
    what: "evalplus's example: no entry point, a redefinition, a function without return, a top-level assert",
    entryPoint: null,
    answer: `The code:\n${F}python\nimport math as m\nfrom math import sqrt, floor\n\ndef p(x):\n    return m.ceil(x)\n\ndef q(x):\n    return floor(p(x))\n\ndef q(x):\n    return sqrt(p(x))\n\ndef r(x):\n    assert 2 == 2\n\nassert q(1) == 1\n${F}\n`,
  },
  {
    what: "evalplus's example: a class whose name a function uses, no entry point",
    entryPoint: null,
    answer: `The code:\n${F}python\nimport math as m\nfrom math import sqrt, floor\nclass q():\n    def greet():\n        return 1\ndef p(x):\n    print(q.greet())\n    return m.ceil(x)\n${F}\n`,
  },
  {
    what: "evalplus's example: entry point through a chain of calls to a class defined twice",
    entryPoint: 'q',
    answer: `The code:\n${F}python\nimport math as m\nfrom math import sqrt, floor\n\ndef p(x):\n    return r(x)\nassert p(2) == 6\ndef q(x):\n    return floor(p(x))\n\ndef r(x):\n    made = k()\n    return x\n\nclass k():\n    def greet():\n        return 1\n\nclass k():\n    def part():\n        return 1\n\n\nassert q(1) == 1\n${F}\n`,
  },
  {
    what: "evalplus's example: the entry point reaches a constant through a class",
    entryPoint: 'q',
    answer: `The code:\n${F}python\nimport math as m\nfrom math import sqrt, floor\n\nLIMIT = 7\n\ndef p(x):\n    return r(x)\nassert p(2) == 6\ndef q(x):\n    return floor(p(x))\n\ndef r(x):\n    made = k()\n    return x\n\nclass k():\n    def greet():\n        return LIMIT\n\ndef s(x):\n    return q(x)\n\n# checks\nassert q(1) == 1\nprint(q(5))\nres = q(9)\n${F}\n`,
  },
];

/**
 * Snippets where tree-sitter-python and CPython 3.11's `ast.parse` may disagree (Python 2 and 3.12
 * syntax, targets, argument and parameter order, literals, f-strings before 3.12, indentation):
 * isPythonSyntax is compared with evalplus's `syntax_check` on each.
 */
export const PYTHON_SNIPPETS: readonly string[] = [
  'f() = 1',
  '1 = x',
  'a + b = c',
  'x := 1',
  '(x := 1)',
  'async = 1',
  'await = 2',
  'def f(a, a): pass',
  '*a = 1',
  '*a, b = [1]',
  'del f()',
  'del (a, b)',
  'nonlocal x',
  'x = yield 1',
  'return 5',
  'break',
  'f(**a, *b)',
  'f(a=1, b)',
  'f(x for x in y, 1)',
  "print 'x'",
  "exec 'x'",
  'print >>f, x',
  'x = `1`',
  'a <> b',
  '0777',
  '1_000',
  '0x_1',
  '1__0',
  "u'x' b'y'",
  "'a' b'b'",
  "f'{x!z}'",
  "f'{x' '}'",
  'f"{x["a"]}"',
  "f'{}'",
  'lambda: (yield)',
  'class A(x for x in y): pass',
  'def f[T](x): return x',
  'type X = int',
  'match = 1',
  'case = 2',
  'with (a as b, c as d): pass',
  'try:\n    pass\nexcept* E:\n    pass',
  'try:\n    pass\nexcept:\n    pass\nexcept E:\n    pass',
  'x = 1 if y',
  'for x in 1, 2: pass',
  'import a.b as c.d',
  'from . import *',
  'from x import (a, b,)',
  'from x import a, b,',
  'global x, y',
  'assert x, y, z',
  'raise E from',
  'x: int = 1, 2',
  'x.y: int',
  '(x): int = 1',
  '(x, y): int',
  'a, b += 1',
  'x = *a, *b',
  'print(*a, **b, c)',
  'def f(*, a): pass',
  'def f(*): pass',
  'def f(**a, b): pass',
  'def f(a, /, b, *, c): pass',
  'def f(/, a): pass',
  'if x:\npass',
  'if x: pass\nelse: pass',
  '\tx = 1\n',
  'x = 1\n  y = 2',
  'x = (1,\n2)',
  'x = [\n  1,\n]\n  y = 2',
  'if x:\n    a\n  b',
  "def f():\n    '''doc'''",
  'class A: ...',
  'x = 1; y = 2;',
  'x = 1;;',
  ';',
  '@x\nclass A: pass',
  '@x\n\nx = 1',
  '@x.y[0](1)\ndef f(): pass',
  'with a as (b, c): pass',
  'for x, in y: pass',
  "x = {**a, 'b': 1}",
  '{*a}',
  'x = [*a for a in b]',
  'not x = 1',
  'x = not',
  'import',
  '\\\nx = 1',
  'x = 1 \\\n + 2',
  'x = 1 \\',
  "'''abc",
  '# only comment',
  '',
  '   ',
  '\n\n',
  "x = 'abc\\\ndef'",
  'x = 1e',
  'x = 1j + 2J',
  'x = 0b102',
  'None = 1',
  'True += 1',
  '__debug__ = 1',
  'f(x) += 1',
  '[a, b] += c',
  'del x + 1',
  '(yield)',
  'await x',
  'async def f():\n    async with a: pass\n    async for x in y: pass\n    await z',
  'def f():\n    async with a: pass',
  'x = lambda *, a: a',
  'x = lambda a=1, *b, c: 1',
  'def f(a=1, *, b, c=2, d): pass',
  'global x\nx = 1',
  'if x:\n    pass\nelif:\n    pass',
  'while x:\n    pass\nelse:\n    pass',
  'x = [i for i in range(3) if i if i]',
  'x = (i for i in 1, 2)',
  'x = 1 if 2 else 3 if 4 else 5',
  "print(f'{x = }')",
  "print(f'{x:{y}}')",
  "x = r'\\'",
  "x = b'é'",
  'def f(a, b=1, /, c): pass',
  'def f(a=1, /, b=2, *, c): pass',
  'f"{\'\\n\'.join(a)}"',
  "f'{x # c}'",
  "f'''{x[\"a\"]}'''",
  "f'{x!r:>{w}}'",
  'class A[T]: pass',
  'x: List[int] = []',
  '(x): int = 1',
  'def f(*, **k): pass',
  'def f(a, *, b=1, **k): pass',
  'f(*a, *b, k=1, *c, **d)',
  '07j',
  '00',
  '0_0',
];

/**
 * `count` answers spliced from the corpus's lines at random (seeded): runs of 1-8 consecutive lines
 * of random answers, end to end, so that fences, prose, code and broken code meet in orders nobody
 * wrote; each with the entry point of an answer it took lines from.
 */
export function splicedAnswers(count: number, random: () => number): ChatAnswerCase[] {
  const sources = CHAT_ANSWERS.filter((c) => c.answer !== '');
  const out: ChatAnswerCase[] = [];
  for (let n = 0; n < count; n++) {
    const parts: string[] = [];
    let entryPoint: string | null = null;
    const pieces = 1 + Math.floor(random() * 5);
    for (let p = 0; p < pieces; p++) {
      const source = sources[Math.floor(random() * sources.length)]!;
      const lines = source.answer.split('\n');
      const from = Math.floor(random() * lines.length);
      parts.push(...lines.slice(from, from + 1 + Math.floor(random() * 8)));
      if (entryPoint === null || random() < 0.3) entryPoint = source.entryPoint;
    }
    out.push({ what: `spliced answer ${n}`, answer: parts.join('\n'), entryPoint });
  }
  return out;
}
