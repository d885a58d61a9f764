import { describe, expect, it } from 'vitest';
import { pyRepr } from '../../domain/pbe/pyrepr.js';
import { taskRng } from '../../domain/pbe/rng.js';
import { runPythonJson } from './support.js';

const range = (lo: number, hi: number) => Array.from({ length: hi - lo + 1 }, (_, i) => String.fromCodePoint(lo + i));

/**
 * Tricky strings: quote selection, escapes, every ASCII and Latin-1 code point alone, and non-ASCII
 * picked from long-assigned code points (so Node's and Python's Unicode versions agree on them).
 */
function corpus(): string[] {
  const fixed = [
    '',
    'a',
    "'",
    '"',
    `'"`,
    `"'`,
    "it's",
    'say "hi"',
    `both ' and "`,
    "''",
    '""',
    '\\',
    'a\\b',
    "\\'",
    '\\"',
    '\\\\n',
    '\n\r\t',
    'tab\there',
    '\x00\x01\x1f',
    '\x7f',
    '\x0b\x0c',
    '\x80\x9f',
    '\xa0',
    '\xad',
    '\xff',
    'é',
    'ñ',
    'ÿ',
    'ß',
    'İ',
    'ΑΣ',
    '中文',
    '😀',
    'a😀b',
    '\u2028\u2029',
    '\u200b',
    '\ufeff',
    '\u0378',
    '\ue000',
    '\u3000',
    '\u{10ffff}',
    '\u{e0001}',
    '\u{1f600}',
    '\ud800',
    '\udc00',
    'x\ud83dy',
    '$&',
    '$1$$',
    '"""',
    "'''",
    range(0, 127).join(''),
    range(128, 255).join(''),
  ];
  const singles = [...range(0, 255), '\u0100', '\u0394', '\u2028', '\u00a0'];
  // Random mixes of the nastiest characters.
  const rng = taskRng(12345, 0);
  const atoms = ["'", '"', '\\', '\n', '\x00', '\x7f', 'a', ' ', 'é', '\xa0', '\u200b', '😀'];
  const random = Array.from({ length: 200 }, () => Array.from({ length: rng.int(0, 8) }, () => rng.pick(atoms)).join(''));
  return [...fixed, ...singles, ...random];
}

describe('pyRepr', () => {
  it("equals Python 3's repr() on a corpus of tricky strings", () => {
    const strings = corpus();
    const expected = runPythonJson<string[]>('import json, sys\nprint(json.dumps([repr(s) for s in json.load(sys.stdin)]))', strings);
    expect(expected).toHaveLength(strings.length);
    const mismatches = strings.map((s, i) => ({ s, ours: pyRepr(s), python: expected[i] })).filter((m) => m.ours !== m.python);
    expect(mismatches).toEqual([]);
  });
});
