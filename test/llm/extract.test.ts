import { describe, expect, it } from 'vitest';
import {
  BIGCODE_HUMANEVAL_STOP_WORDS,
  extractCode,
  extractFencedCode,
  fencedBlocks,
  stripThinking,
  truncateAtStopWords,
} from '../../domain/llm/extract.js';

const FENCE = '```';

describe('BIGCODE_HUMANEVAL_STOP_WORDS', () => {
  it('is the HumanEval stop list of bigcode-evaluation-harness, in its order', () => {
    expect(BIGCODE_HUMANEVAL_STOP_WORDS).toEqual(['\nclass', '\ndef', '\n#', '\n@', '\nprint', '\nif', '\n```', '<file_sep>']);
    expect(Object.isFrozen(BIGCODE_HUMANEVAL_STOP_WORDS)).toBe(true);
  });
});

describe('truncateAtStopWords', () => {
  const stops = BIGCODE_HUMANEVAL_STOP_WORDS;

  it('keeps the function body and cuts at the next top-level statement', () => {
    const completion = '    return sorted(set(l))\n\n\ndef main():\n    print(unique([1, 1]))\n';
    expect(truncateAtStopWords(completion, stops)).toBe('    return sorted(set(l))\n\n');
  });

  it('cuts at the earliest stop word, not the first one in the list', () => {
    const completion = '    return x\nif __name__ == "__main__":\n    pass\nclass Foo:\n    pass\n';
    expect(truncateAtStopWords(completion, stops)).toBe('    return x');
  });

  it('each stop word cuts', () => {
    const body = '    return a + b';
    for (const stop of stops) {
      expect(truncateAtStopWords(`${body}${stop} whatever follows\n`, stops), JSON.stringify(stop)).toBe(body);
    }
  });

  it("keepStopWord keeps the first stop word to be completed, as bigcode's stopping criterion", () => {
    const docStops = ["'''", '"""'];
    expect(truncateAtStopWords('Returns the sum.""" more\n', docStops, { keepStopWord: true })).toBe('Returns the sum."""');
    expect(truncateAtStopWords('no stop word here', docStops, { keepStopWord: true })).toBe('no stop word here');
    // The stop word that ends first wins, though another one starts earlier.
    expect(truncateAtStopWords('a<LONG-STOP>', ['<LONG-STOP>', 'NG'], { keepStopWord: true })).toBe('a<LONG');
    expect(truncateAtStopWords('a<LONG-STOP>', ['<LONG-STOP>', 'NG'])).toBe('a');
    expect(truncateAtStopWords('text', [''], { keepStopWord: true })).toBe('text');
  });

  it('indented lookalikes do not cut (only top-level statements)', () => {
    const completion = '    if x:\n        print(x)\n    # comment\n    def inner():\n        pass\n    return inner';
    expect(truncateAtStopWords(completion, stops)).toBe(completion);
  });

  it('a stop word at offset 0 gives an empty completion', () => {
    expect(truncateAtStopWords('\ndef f(): pass', stops)).toBe('');
    expect(truncateAtStopWords('<file_sep>rest', stops)).toBe('');
  });

  it('a markdown fence after the body cuts (base models continuing a README)', () => {
    expect(truncateAtStopWords('    return 1\n```\n\nSome text', stops)).toBe('    return 1');
  });

  it('text without stop words is returned whole; empty stop words are ignored', () => {
    expect(truncateAtStopWords('    return 1\n', stops)).toBe('    return 1\n');
    expect(truncateAtStopWords('    return 1\n', [])).toBe('    return 1\n');
    expect(truncateAtStopWords('    return 1\n', ['', '\nx'])).toBe('    return 1\n');
    expect(truncateAtStopWords('', stops)).toBe('');
  });

  it('agrees with the harness on a stop word found later but starting earlier', () => {
    // '\n#' occurs at 12, '\nprint' at 3: the minimum index wins
    expect(truncateAtStopWords('abc\nprint(1)\n# c', ['\n#', '\nprint'])).toBe('abc');
  });
});

describe('stripThinking', () => {
  it('removes a think block before the answer', () => {
    expect(stripThinking('<think>\nLet me think about sorting.\n</think>\n\nHere is the code.')).toBe('\n\nHere is the code.');
  });

  it('removes every think block', () => {
    expect(stripThinking('a<think>1</think>b<think>2</think>c')).toBe('abc');
  });

  it('a closing tag without an opening one: everything before it is reasoning', () => {
    expect(stripThinking('The user wants a sort.\nOkay.\n</think>\n\nAnswer')).toBe('\n\nAnswer');
    expect(stripThinking('reasoning</think>answer<think>more</think>!')).toBe('answer!');
  });

  it('a think block that never closes leaves no answer', () => {
    expect(stripThinking('<think>\nI need to consider the edge cases, and')).toBe('');
    expect(stripThinking('before<think>unfinished')).toBe('before');
    expect(stripThinking('<think>a</think>answer<think>cut off')).toBe('answer');
  });

  it('text without think tags is unchanged', () => {
    const text = '```python\ndef f():\n    return 1\n```';
    expect(stripThinking(text)).toBe(text);
    expect(stripThinking('')).toBe('');
  });

  it('code inside the reasoning is not the answer', () => {
    const raw = `<think>\nmaybe:\n${FENCE}python\ndef wrong(): pass\n${FENCE}\n</think>\n${FENCE}python\ndef right(): pass\n${FENCE}`;
    expect(extractFencedCode(stripThinking(raw))).toBe('def right(): pass');
  });
});

describe('fencedBlocks', () => {
  it('reads languages, bodies and whether the block was closed', () => {
    const text = `intro\n${FENCE}python\na = 1\n${FENCE}\ntext\n${FENCE}\nb = 2\n${FENCE}\n~~~sh\nls\n~~~\n${FENCE}js\nlet c`;
    expect(fencedBlocks(text)).toEqual([
      { language: 'python', code: 'a = 1', closed: true },
      { language: '', code: 'b = 2', closed: true },
      { language: 'sh', code: 'ls', closed: true },
      { language: 'js', code: 'let c', closed: false },
    ]);
  });

  it('a longer fence can hold a shorter one', () => {
    const text = `\`\`\`\`markdown\n${FENCE}python\nx = 1\n${FENCE}\n\`\`\`\`\n`;
    expect(fencedBlocks(text)).toEqual([{ language: 'markdown', code: `${FENCE}python\nx = 1\n${FENCE}`, closed: true }]);
  });
});

describe('extractFencedCode', () => {
  it('takes the python block out of a typical chat answer', () => {
    const answer = [
      "Here's an implementation:",
      '',
      `${FENCE}python`,
      'def has_close_elements(numbers, threshold):',
      '    for i, a in enumerate(numbers):',
      '        for b in numbers[i + 1:]:',
      '            if abs(a - b) < threshold:',
      '                return True',
      '    return False',
      FENCE,
      '',
      'This checks every pair.',
    ].join('\n');
    expect(extractFencedCode(answer)).toBe(
      [
        'def has_close_elements(numbers, threshold):',
        '    for i, a in enumerate(numbers):',
        '        for b in numbers[i + 1:]:',
        '            if abs(a - b) < threshold:',
        '                return True',
        '    return False',
      ].join('\n'),
    );
  });

  it('accepts py, Python, PYTHON3 as python', () => {
    for (const tag of ['py', 'Python', 'PYTHON3', 'py3', 'python title="solution.py"']) {
      const answer = `${FENCE}\nnot this\n${FENCE}\n${FENCE}${tag}\nx = 1\n${FENCE}`;
      expect(extractFencedCode(answer), tag).toBe('x = 1');
    }
  });

  it('prefers a python block over earlier blocks of other languages', () => {
    const answer = `Run:\n${FENCE}bash\npip install nothing\n${FENCE}\nCode:\n${FENCE}python\ndef f():\n    return 1\n${FENCE}`;
    expect(extractFencedCode(answer)).toBe('def f():\n    return 1');
  });

  it('without python blocks, takes any fenced block', () => {
    expect(extractFencedCode(`Solution:\n${FENCE}\ndef f():\n    return 2\n${FENCE}`)).toBe('def f():\n    return 2');
    expect(extractFencedCode(`${FENCE}text\nfoo\n${FENCE}`)).toBe('foo');
  });

  it('several python blocks: the one that defines the entry point, else the first', () => {
    const answer = [
      'First a helper:',
      `${FENCE}python`,
      'def helper(x):',
      '    return x * 2',
      FENCE,
      'Then the solution:',
      `${FENCE}python`,
      'def solve(xs):',
      '    return [helper(x) for x in xs]',
      FENCE,
      'Example:',
      `${FENCE}python`,
      'print(solve([1, 2]))',
      FENCE,
    ].join('\n');
    expect(extractFencedCode(answer, { entryPoint: 'solve' })).toBe('def solve(xs):\n    return [helper(x) for x in xs]');
    expect(extractFencedCode(answer)).toBe('def helper(x):\n    return x * 2');
    expect(extractFencedCode(answer, { entryPoint: 'missing' })).toBe('def helper(x):\n    return x * 2');
  });

  it('the entry point must be defined, not just called or prefixed', () => {
    const answer = `${FENCE}python\nresult = solve_all(1)\n${FENCE}\n${FENCE}python\ndef solve_all(x):\n    return x\n${FENCE}\n${FENCE}python\nasync def solve(x):\n    return x\n${FENCE}`;
    expect(extractFencedCode(answer, { entryPoint: 'solve' })).toBe('async def solve(x):\n    return x');
    expect(extractFencedCode(answer, { entryPoint: 'solve_all' })).toBe('def solve_all(x):\n    return x');
  });

  it('the first block is chosen over later ones that merely use the entry point', () => {
    const answer = `${FENCE}python\ndef f(x):\n    return x + 1\n${FENCE}\nTest it:\n${FENCE}python\nassert f(1) == 2\n${FENCE}`;
    expect(extractFencedCode(answer, { entryPoint: 'f' })).toBe('def f(x):\n    return x + 1');
  });

  it('a missing closing fence (answer cut off by max_tokens) still yields the code', () => {
    const answer = `Sure!\n${FENCE}python\ndef f(x):\n    return x +`;
    expect(extractFencedCode(answer)).toBe('def f(x):\n    return x +');
  });

  it('handles CRLF line ends', () => {
    const answer = `Here:\r\n${FENCE}python\r\ndef f():\r\n    return 'a'\r\n${FENCE}\r\nDone.\r\n`;
    expect(extractFencedCode(answer)).toBe("def f():\n    return 'a'");
    expect(extractFencedCode('def f():\r\n    return 1\r\n')).toBe('def f():\n    return 1');
  });

  it('bare code without a fence is taken whole, trimmed', () => {
    expect(extractFencedCode('\n\ndef f(x):\n    return x * 2\n\n')).toBe('def f(x):\n    return x * 2');
  });

  it('keeps indentation and blank lines inside the block, removes only the fence indentation', () => {
    const answer = `1. Implement it:\n\n   ${FENCE}python\n   def f(x):\n\n       if x:\n           return 1\n       return 0\n   ${FENCE}\n`;
    expect(extractFencedCode(answer)).toBe('def f(x):\n\n    if x:\n        return 1\n    return 0');
  });

  it('an empty python block does not hide a real one', () => {
    const answer = `${FENCE}python\n${FENCE}\n${FENCE}python\nx = 1\n${FENCE}`;
    expect(extractFencedCode(answer)).toBe('x = 1');
    expect(extractFencedCode(`${FENCE}python\n\n${FENCE}`)).toBe('');
  });

  it('backticks inside a line do not open a block', () => {
    const answer = 'Use ```sorted()``` here:\n\ndef f(x):\n    return sorted(x)';
    expect(extractFencedCode(answer)).toBe(answer);
  });

  it('string literals with triple quotes and docstrings survive', () => {
    const code = 'def f(s: str) -> str:\n    """Return s reversed.\n\n    >>> f(\'ab\')\n    \'ba\'\n    """\n    return s[::-1]';
    expect(extractFencedCode(`${FENCE}python\n${code}\n${FENCE}`, { entryPoint: 'f' })).toBe(code);
  });
});

describe('extractCode', () => {
  it('completions: truncates at the given stop words and keeps raw', () => {
    const raw = '    return [x for x in l if x > 0]\n\n\ndef check():\n    pass\n';
    expect(extractCode({ api: 'completions', raw, stop: BIGCODE_HUMANEVAL_STOP_WORDS })).toEqual({
      code: '    return [x for x in l if x > 0]\n\n',
      raw,
    });
  });

  it('completions: the bigcode stop words by default; an explicit [] means none', () => {
    const raw = '    return 1\nprint(f())';
    expect(extractCode({ api: 'completions', raw }).code).toBe('    return 1');
    expect(extractCode({ api: 'completions', raw, stop: [] }).code).toBe(raw);
  });

  it('completions: fences and think tags are left alone (the model continues code)', () => {
    const raw = '    s = "<think>"\n    return s';
    expect(extractCode({ api: 'completions', raw, stop: ['\ndef'] }).code).toBe(raw);
  });

  it('chat: strips thinking, then extracts the fenced code, choosing by entry point', () => {
    const raw = [
      '<think>',
      'The task: return the sum. Maybe:',
      `${FENCE}python`,
      'def add(a, b): return a - b',
      FENCE,
      'no, plus.',
      '</think>',
      '',
      `${FENCE}python`,
      'import math',
      FENCE,
      '',
      `${FENCE}python`,
      'def add(a, b):',
      '    return a + b',
      FENCE,
    ].join('\n');
    expect(extractCode({ api: 'chat', raw, entryPoint: 'add' })).toEqual({ code: 'def add(a, b):\n    return a + b', raw });
  });

  it('chat: stop words are not applied (a full answer may contain "\\ndef")', () => {
    const raw = `${FENCE}python\ndef helper():\n    return 1\n\ndef f():\n    return helper()\n${FENCE}`;
    expect(extractCode({ api: 'chat', raw, entryPoint: 'f', stop: BIGCODE_HUMANEVAL_STOP_WORDS }).code).toBe(
      'def helper():\n    return 1\n\ndef f():\n    return helper()',
    );
  });

  it('chat: an answer cut off while thinking gives empty code', () => {
    expect(extractCode({ api: 'chat', raw: '<think>hmm, the list could be empty so' })).toEqual({
      code: '',
      raw: '<think>hmm, the list could be empty so',
    });
  });

  it('chat: a reasoning server without the opening tag', () => {
    const raw = 'We need the max.\n</think>\n\ndef f(xs):\n    return max(xs)\n';
    expect(extractCode({ api: 'chat', raw, entryPoint: 'f' }).code).toBe('def f(xs):\n    return max(xs)');
  });
});
