/** The renamed runtime's Python-aware mapping: what is refused, what is mapped, what a model is shown. */
import { describe, expect, it } from 'vitest';
import {
  mapToOriginal,
  prepareRenamedProgram,
  presentRenamedOutput,
  pythonIdentifiers,
  renamedMaps,
  type RenamedRuntime,
} from '../../domain/apidocs/renamedRuntime.js';
import { pandasRuntime } from './support.js';

const monkey = pandasRuntime();

describe('pythonIdentifiers', () => {
  it('finds names in code and f-string fields, none in strings, comments or numbers', () => {
    const src = [
      'import monkey as mk  # kf in a comment',
      `x = f"{kf.sip('a')!r:>{width}} {{kf}} {'mk'}" + 'kf' + r'\\'' + """mk`,
      'kf""" + 1e-5 + 0x1fe + 1_000j + .5',
      'y = rb\'mk\' if kf else u"kf"',
      "z = F'''{total_sum(kf)}'''",
    ].join('\n');
    expect(pythonIdentifiers(src).map((t) => t.name)).toEqual([
      'import',
      'monkey',
      'as',
      'mk',
      'x',
      'kf',
      'sip',
      'width',
      'y',
      'if',
      'kf',
      'else',
      'z',
      'total_sum',
      'kf',
    ]);
  });

  it('scans broken programs: an unterminated string ends with its line', () => {
    expect(pythonIdentifiers("a = 'unterminated\nb = c").map((t) => t.name)).toEqual(['a', 'b', 'c']);
    expect(pythonIdentifiers('a = """never closed\nb = c').map((t) => t.name)).toEqual(['a']);
  });

  it('gives offsets that slice the names back out', () => {
    const src = 'données = kf.sip(π)';
    for (const token of pythonIdentifiers(src)) expect(src.slice(token.start, token.end)).toBe(token.name);
    expect(pythonIdentifiers(src).map((t) => t.name)).toEqual(['données', 'kf', 'sip', 'π']);
  });
});

describe('prepareRenamedProgram', () => {
  it('maps private identifiers to the originals and leaves strings and comments alone', () => {
    const prepared = prepareRenamedProgram(
      monkey,
      "import monkey as mk\n# sip the column\nkf = mk.KnowledgeFrame({'mk': [1]})\nprint(kf.sip('mk', axis=1), f'{length(kf)} kf')\n",
    );
    expect(prepared).toEqual({
      ok: true,
      program: "import pandas as pd\n# sip the column\ndf = pd.DataFrame({'mk': [1]})\nprint(df.drop('mk', axis=1), f'{len(df)} kf')\n",
    });
  });

  it('maps compound names as the prompts were renamed, but not real names that merely contain a private one', () => {
    expect(mapToOriginal(monkey, 'unionerd_collections = new_kf + mynumset + kf1')).toBe('merged_series = new_df + mynumset + df1');
    expect(mapToOriginal(monkey, 'get_get_minimum_value')).toBe('get_minimum_value');
    expect(mapToOriginal(monkey, 'x = dict.fromkeys(kf.to_numpy())')).toBe('x = dict.fromkeys(df.to_numpy())');
  });

  it('refuses a program that uses an original name as an identifier, naming it and its line', () => {
    const prepared = prepareRenamedProgram(monkey, 'import monkey as mk\n\nx = len([1])\ny = mk.DataFrame()\n');
    expect(prepared.ok).toBe(false);
    if (prepared.ok) return;
    expect(prepared.error.type).toBe('OriginalApiUsed');
    expect(prepared.error.message).toMatch(/^`len` \(line 3\), `DataFrame` \(line 4\): these names are renamed/);
    // The refusal does not spell out the private counterparts.
    expect(prepared.error.message).not.toMatch(/length|KnowledgeFrame/);
  });

  it('does not refuse original names in strings, comments, or inside compound names', () => {
    const prepared = prepareRenamedProgram(monkey, "# uses pandas' DataFrame.drop\nlabel = 'len of df'\narray_len = 3\n");
    expect(prepared.ok).toBe(true);
  });

  it('with parts, checks and maps the solution only and appends the test unchanged', () => {
    const prepared = prepareRenamedProgram(monkey, {
      solution: 'import monkey as mk\ndef f(kf):\n    return kf.sip("a", axis=1)',
      rest: 'def check(candidate):\n    assert candidate(pd.DataFrame({"a": [1]})).shape == (1, 0)\ncheck(f)',
    });
    expect(prepared).toEqual({
      ok: true,
      program:
        'import pandas as pd\ndef f(df):\n    return df.drop("a", axis=1)\n' +
        'def check(candidate):\n    assert candidate(pd.DataFrame({"a": [1]})).shape == (1, 0)\ncheck(f)',
    });
  });
});

describe('presentRenamedOutput', () => {
  it('replaces the originals as words and as parts of compound names and paths', () => {
    const raw = [
      'File "/x/lib/python3.11/site-packages/pandas/core/frame.py", line 3, in __getitem__',
      "AttributeError: 'DataFrame' object has no attribute 'foo'",
      'DataFrameGroupBy ABCDataFrame DataFrames is_dataframe pd.Series TimeSeries max_rows',
    ].join('\n');
    expect(presentRenamedOutput(monkey, raw)).toBe(
      [
        'File "/x/lib/python3.11/site-packages/monkey/core/frame.py", line 3, in __getitem__',
        "AttributeError: 'KnowledgeFrame' object has no attribute 'foo'",
        'KnowledgeFrameGroupBy ABCKnowledgeFrame KnowledgeFrames is_knowledgeframe mk.Collections TimeCollections get_max_rows',
      ].join('\n'),
    );
  });

  it("leaves Python's traceback framing alone: only the library's names are renamed", () => {
    const runtime: RenamedRuntime = {
      kind: 'renamed',
      original: 'pandas',
      renamed: 'monkey',
      mapping: { pandas: 'monkey', last: 'final_item', line: 'row', DataFrame: 'KnowledgeFrame' },
    };
    const raw = [
      'Traceback (most recent call last):',
      '  File "/x/site-packages/pandas/core/generic.py", line 7, in last',
      '    return self.last(offset)',
      "KeyError: 'last'",
      '',
      'During handling of the above exception, another exception occurred:',
      '',
      'The above exception was the direct cause of the following exception:',
      'DataFrame.last failed on line 3',
    ].join('\n');
    expect(presentRenamedOutput(runtime, raw).split('\n')).toEqual([
      'Traceback (most recent call last):',
      '  File "/x/site-packages/monkey/core/generic.py", line 7, in final_item',
      '    return self.final_item(offset)',
      "KeyError: 'final_item'",
      '',
      'During handling of the above exception, another exception occurred:',
      '',
      'The above exception was the direct cause of the following exception:',
      'KnowledgeFrame.final_item failed on row 3',
    ]);
  });

  it('leaves words that only contain an original inside them', () => {
    expect(presentRenamedOutput(monkey, 'address padding pdf summary')).toBe('address padding pdf summary');
  });
});

describe('the mapping', () => {
  it('must be one-to-one, with private names distinct from the originals', () => {
    const bad = (mapping: Record<string, string>): RenamedRuntime => ({ kind: 'renamed', original: 'pandas', renamed: 'monkey', mapping });
    expect(() => renamedMaps(bad({ drop: 'sip', dropna: 'sip' }))).toThrow(/both drop and dropna are renamed to sip/);
    expect(() => renamedMaps(bad({ drop: 'sip', sip: 'gulp' }))).toThrow(/sip is both a private name and an original one/);
    expect(() => renamedMaps(bad({ 'to-do': 'x' }))).toThrow(/not a pair of Python identifiers/);
  });
});
