/** The test cases and benchmark programs of `python` (what each is for: ../fixtures.ts). */
import type { LanguageFixtures } from '../fixtures.js';

export const fixtures: LanguageFixtures<'python'> = {
  language: 'python',
  multiple: {
    id: 'py',
    row: {
      prompt:
        'def add(x: int, y: int) -> int:\n    """Add two numbers x and y\n    >>> add(2, 3)\n    5\n    >>> add(5, 7)\n    12\n    """\n',
      tests:
        'def check(candidate):\n    assert candidate(0, 1) == 1\n    assert candidate(1, 0) == 1\n    assert candidate(2, 3) == 5\n    assert candidate(5, 7) == 12\n    assert candidate(7, 5) == 12\n\ndef test_check():\n    check(add)\n\ntest_check()\n',
      stop: ['\ndef', '\n#', '\nif', '\nclass'],
    },
    completions: {
      right: '    return x + y\n\ndef junk():\n    raise AssertionError("kept past a stop token")\n',
      wrong: '    return x - y\n',
      noncompiling: '    return x +\n',
      // Reads the worker's environment: the right sum only when it sees none of it.
      hostile: "    import os\n    return x + y if not any('EXPLORA' in k or 'TEMPORAL' in k for k in os.environ) else 0\n",
    },
    hostilePasses: true,
  },
};
