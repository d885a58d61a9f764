import { describe, expect, it } from 'vitest';
import { generateTask } from '../../domain/pbe/generate.js';
import {
  canonicalParamsJson,
  countStringsOverAlphabet,
  DEFAULT_PBE_PARAMS,
  PbeParamsError,
  resolvePbeParams,
  STRING_COUNT_CAP,
  validatePbeParams,
  type PbeParamsInput,
} from '../../domain/pbe/params.js';
import { enumerateStrings } from '../../domain/pbe/pool.js';

function errorOf(input: unknown): PbeParamsError {
  try {
    resolvePbeParams(input as PbeParamsInput);
  } catch (err) {
    expect(err).toBeInstanceOf(PbeParamsError);
    return err as PbeParamsError;
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
}

/** Fields named by the issues, each issue's list sorted, issues sorted. */
function issueFields(input: unknown): string[][] {
  return errorOf(input)
    .issues.map((i) => [...i.fields].sort())
    .sort();
}

describe('resolvePbeParams', () => {
  it('defaults', () => {
    expect(resolvePbeParams({})).toEqual({ ...DEFAULT_PBE_PARAMS, alphabet: ['a', 'b'], seed: 0, count: 100 });
    expect(resolvePbeParams()).toEqual(resolvePbeParams({}));
  });

  it('alphabet as a size, a string or an array', () => {
    expect(resolvePbeParams({ alphabet_size: 3 }).alphabet).toEqual(['a', 'b', 'c']);
    expect(resolvePbeParams({ alphabet_size: 26 }).alphabet.join('')).toBe('abcdefghijklmnopqrstuvwxyz');
    expect(resolvePbeParams({ alphabet: "xY\\' " }).alphabet).toEqual(['x', 'Y', '\\', "'", ' ']);
    expect(resolvePbeParams({ alphabet: ['q', 'r'] }).alphabet).toEqual(['q', 'r']);
  });

  it('undefined fields count as absent', () => {
    expect(resolvePbeParams({ seed: undefined, alphabet: undefined, alphabet_size: 2 })).toEqual(resolvePbeParams({}));
  });

  it('accepts the boundaries', () => {
    // The pool may be the whole space: 2 + 4 strings of length 1..2 over two letters.
    const whole = resolvePbeParams({ alphabet: 'ab', l_min: 1, l_max: 2, n_inputs_for_examples: 6, num_examples: 6, num_tests: 0 });
    expect(generateTask(whole, 0).examples).toHaveLength(6);
    resolvePbeParams({ seed: 2 ** 32 - 1, num_tests: 0, num_examples: 16, count: 1 });
    resolvePbeParams({ alphabet: ' ~!#', l_min: 3, l_max: 3, pipeline_L_min: 1, pipeline_L_max: 1 });
  });

  it.each<[string, unknown, string[][]]>([
    ['alphabet and alphabet_size together', { alphabet: 'ab', alphabet_size: 2 }, [['alphabet', 'alphabet_size']]],
    ['alphabet_size 0', { alphabet_size: 0 }, [['alphabet_size']]],
    ['alphabet_size 27', { alphabet_size: 27 }, [['alphabet_size']]],
    ['alphabet_size 2.5', { alphabet_size: 2.5 }, [['alphabet_size']]],
    ['empty alphabet', { alphabet: '' }, [['alphabet']]],
    ['double quote in alphabet', { alphabet: 'a"' }, [['alphabet']]],
    ['newline in alphabet', { alphabet: 'a\n' }, [['alphabet']]],
    ['DEL in alphabet', { alphabet: 'a\x7f' }, [['alphabet']]],
    ['non-ASCII in alphabet', { alphabet: 'aé' }, [['alphabet']]],
    ['multi-character alphabet entry', { alphabet: ['a', 'bc'] }, [['alphabet']]],
    ['repeated alphabet character', { alphabet: 'aba' }, [['alphabet']]],
    ['alphabet of the wrong type', { alphabet: 3 }, [['alphabet']]],
    ['l_min 0', { l_min: 0 }, [['l_min']]],
    ['l_min > l_max', { l_min: 6, l_max: 5 }, [['l_max', 'l_min']]],
    ['l_min not an integer', { l_min: '5' }, [['l_min']]],
    ['pipeline_L_min 0', { pipeline_L_min: 0 }, [['pipeline_L_min']]],
    ['pipeline_L_min > pipeline_L_max', { pipeline_L_min: 3, pipeline_L_max: 2 }, [['pipeline_L_max', 'pipeline_L_min']]],
    ['num_examples 0', { num_examples: 0 }, [['num_examples']]],
    ['num_tests negative', { num_tests: -1 }, [['num_tests']]],
    ['examples + tests > pool', { num_examples: 10, num_tests: 7 }, [['n_inputs_for_examples', 'num_examples', 'num_tests']]],
    [
      'pool larger than the space (alphabet)',
      { alphabet: 'ab', l_min: 1, l_max: 2, n_inputs_for_examples: 7 },
      [['alphabet', 'l_max', 'l_min', 'n_inputs_for_examples']],
    ],
    [
      'pool larger than the space (alphabet_size)',
      { alphabet_size: 1, l_min: 1, l_max: 5, n_inputs_for_examples: 6, num_examples: 1, num_tests: 0 },
      [['alphabet_size', 'l_max', 'l_min', 'n_inputs_for_examples']],
    ],
    ['seed negative', { seed: -1 }, [['seed']]],
    ['seed 2^32', { seed: 2 ** 32 }, [['seed']]],
    ['seed fractional', { seed: 1.5 }, [['seed']]],
    ['count 0', { count: 0 }, [['count']]],
    ['empty split', { split: '' }, [['split']]],
    ['unknown parameter', { sead: 1 }, [['sead']]],
    ['several at once', { seed: -1, count: 0 }, [['count'], ['seed']]],
  ])('%s', (_name, input, fields) => {
    expect(issueFields(input)).toEqual(fields);
  });

  it('the error message names the fields and the problem', () => {
    const err = errorOf({ l_min: 6, l_max: 5 });
    expect(err.message).toMatch(/l_min, l_max: l_min \(6\) must be <= l_max \(5\)/);
    expect(errorOf({ alphabet: 'a"' }).message).toMatch(/docstring/);
    expect(errorOf({ n_inputs_for_examples: 33 }).message).toMatch(/exceeds the 32 distinct strings/);
  });

  it('validatePbeParams checks an already-resolved object', () => {
    expect(validatePbeParams(resolvePbeParams({ seed: 9 })).seed).toBe(9);
    expect(() => validatePbeParams({ ...resolvePbeParams({}), l_min: 9 })).toThrow(PbeParamsError);
    expect(() => generateTask({ ...resolvePbeParams({}), alphabet: ['"'] }, 0)).toThrow(PbeParamsError);
  });
});

describe('canonicalParamsJson', () => {
  it('does not depend on key order and differs when a value differs', () => {
    const params = resolvePbeParams({ seed: 5 });
    const reversed = Object.fromEntries(Object.entries(params).reverse()) as typeof params;
    expect(canonicalParamsJson(reversed)).toBe(canonicalParamsJson(params));
    expect(Object.keys(JSON.parse(canonicalParamsJson(reversed)))).toEqual(Object.keys(DEFAULT_PBE_PARAMS));
    expect(canonicalParamsJson(resolvePbeParams({ seed: 6 }))).not.toBe(canonicalParamsJson(params));
  });
});

describe('countStringsOverAlphabet', () => {
  it('matches enumeration on small spaces', () => {
    for (const k of [1, 2, 3])
      for (let lMin = 1; lMin <= 3; lMin++)
        for (let lMax = lMin; lMax <= 5; lMax++) {
          const alphabet = Array.from('xyz'.slice(0, k));
          expect(countStringsOverAlphabet(k, lMin, lMax)).toBe(BigInt(new Set(enumerateStrings(alphabet, lMin, lMax)).size));
        }
  });

  it('saturates instead of overflowing', () => {
    expect(countStringsOverAlphabet(26, 1, 1000)).toBe(STRING_COUNT_CAP);
    expect(countStringsOverAlphabet(2, 1000, 1_000_000)).toBe(STRING_COUNT_CAP);
    expect(countStringsOverAlphabet(1, 1, 1000)).toBe(1000n);
    expect(countStringsOverAlphabet(2, 1, 52)).toBe(2n ** 53n - 2n);
  });
});
