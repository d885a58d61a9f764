import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { resolvePythonExecutable } from '../../infra/sandbox/python.js';
import { ApiDocsParseError, firstSentence, formatApiDoc, indexText, parseApiDocsJsonl } from '../../domain/apidocs/corpus.js';
import { ApiDocSchema, ApiLibrarySchema, type ApiDoc } from '../../domain/apidocs/library.js';
import { PYTHON_STR_LIBRARY } from '../../domain/apidocs/pythonStr.js';

const line = (o: unknown) => JSON.stringify(o);
const doc = (import_path: string, extra: Partial<ApiDoc> = {}): ApiDoc => ({
  import_path,
  name: import_path.split('.').pop()!,
  signature: `${import_path}()`,
  description: `Does ${import_path}.`,
  ...extra,
});

function parseError(text: string, source = 'docs.jsonl'): ApiDocsParseError {
  try {
    parseApiDocsJsonl(text, source);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiDocsParseError);
    return err as ApiDocsParseError;
  }
  throw new Error('expected the corpus to be refused');
}

describe('parseApiDocsJsonl', () => {
  it('reads one doc per line, skipping blank lines and CRLF endings, in file order', () => {
    const a = doc('lib.a', { examples: ['lib.a()'] });
    const b = doc('lib.b');
    expect(parseApiDocsJsonl(`${line(a)}\r\n\n   \n${line(b)}\n`, 'docs.jsonl')).toEqual([a, b]);
  });

  it('names source:line and the field of every bad line', () => {
    const text = [
      line(doc('lib.ok')),
      line({ ...doc('lib.empty'), description: '' }),
      line({ import_path: 'lib.missing', name: 'missing', signature: '' }),
      '{not json',
      line({ ...doc('lib.extra'), returns: 'int' }),
      line({ ...doc('lib.badex'), examples: ['fine', 3] }),
      line({ ...doc('lib.blank'), name: '   ' }),
      line({ ...doc('lib.space'), import_path: 'lib. space' }),
      line([1, 2]),
    ].join('\n');
    const err = parseError(text);
    expect(err.problems).toEqual([
      'docs.jsonl:2: description: must not be empty',
      'docs.jsonl:3: description: is required (string)',
      expect.stringMatching(/^docs\.jsonl:4: not valid JSON \(/),
      expect.stringMatching(/^docs\.jsonl:5: returns: unknown field \(allowed: import_path, name, signature, description, examples\)$/),
      'docs.jsonl:6: examples[1]: must be a string',
      'docs.jsonl:7: name: must not be empty',
      'docs.jsonl:8: import_path: must not contain whitespace',
      'docs.jsonl:9: (line): must be a JSON object',
    ]);
    expect(err.message).toContain('docs.jsonl: invalid API-doc corpus:\n  docs.jsonl:2: description: must not be empty');
  });

  it('refuses a repeated import_path, naming both lines', () => {
    const text = [line(doc('lib.a')), line(doc('lib.b')), line(doc('lib.a', { description: 'Another.' }))].join('\n');
    expect(parseError(text).problems).toEqual(['docs.jsonl:3: import_path: duplicate "lib.a" (also on line 1)']);
  });

  it('reports at most 20 problems and counts the rest', () => {
    const text = Array.from({ length: 25 }, () => '{').join('\n');
    const err = parseError(text);
    expect(err.problems).toHaveLength(20);
    expect(err.problems[19]).toMatch(/^docs\.jsonl:20: /);
    expect(err.message).toMatch(/\.\.\. and 5 more problem\(s\) not shown$/);
  });

  it('refuses an empty corpus', () => {
    for (const text of ['', '\n\n  \n']) {
      expect(parseError(text, 'empty.jsonl').message).toContain('empty.jsonl: no API docs (the corpus is empty)');
    }
  });
});

describe('firstSentence and indexText', () => {
  it('stops at the first sentence end, not at dotted names, numbers or e.g.', () => {
    expect(firstSentence('Return str.strip of x, e.g. for 3.5 inputs. Then more.')).toBe('Return str.strip of x, e.g. for 3.5 inputs.');
    expect(firstSentence('  Is it empty?  Yes!')).toBe('Is it empty?');
    expect(firstSentence('Multi\n  line   text.\nNext.')).toBe('Multi line text.');
  });

  it('without a sentence end, takes the first paragraph', () => {
    expect(firstSentence('Summary line\n\nParameters\n----------')).toBe('Summary line');
    expect(firstSentence('no period at all')).toBe('no period at all');
  });

  it('indexes the import path and the first sentence', () => {
    expect(indexText(doc('str.rstrip', { description: 'Strip trailing characters. Long details.' }))).toBe(
      'str.rstrip: Strip trailing characters.',
    );
  });
});

describe('formatApiDoc', () => {
  it('shows the signature under the import path, the description and the examples', () => {
    const d: ApiDoc = {
      import_path: 'str.replace',
      name: 'replace',
      signature: 'str.replace(old, new, count=-1, /)',
      description: 'Replace things.\nSecond line.',
      examples: ["'a'.replace('a', 'b')  # 'b'", 'x = 1\nprint(x)\n'],
    };
    expect(formatApiDoc(d)).toBe(
      [
        'str.replace(old, new, count=-1, /)',
        '    Replace things.',
        '    Second line.',
        "    Example: 'a'.replace('a', 'b')  # 'b'",
        '    Example:',
        '        x = 1',
        '        print(x)',
      ].join('\n'),
    );
  });

  it('puts a bare or name-only signature under the full import path', () => {
    const base = { import_path: 'monkey.KnowledgeFrame.sip', name: 'sip', description: 'Drop labels.' };
    expect(formatApiDoc({ ...base, signature: 'sip(labels=None)' }).split('\n')[0]).toBe('monkey.KnowledgeFrame.sip(labels=None)');
    expect(formatApiDoc({ ...base, signature: '(labels=None)' }).split('\n')[0]).toBe('monkey.KnowledgeFrame.sip(labels=None)');
    expect(formatApiDoc({ ...base, signature: '' }).split('\n')[0]).toBe('monkey.KnowledgeFrame.sip');
    expect(formatApiDoc({ ...base, signature: 'def drop(labels)' }).split('\n')[0]).toBe('monkey.KnowledgeFrame.sip: def drop(labels)');
  });
});

/** What the interpreter says about `str`, and what each of our examples evaluates to. */
const PYTHON_PROBE = String.raw`
import inspect, json, sys
examples = json.load(sys.stdin)
names = [m for m in dir(str) if not m.startswith('_')]
params = {}
for m in names:
    try:
        params[m] = [p.name for p in inspect.signature(getattr(str, m)).parameters.values() if p.name != 'self']
    except (ValueError, TypeError):
        params[m] = None
results = []
for ex in examples:
    expr, expected = ex.rsplit('  # ', 1)
    try:
        got = repr(eval(expr, {}))
    except Exception as e:
        got = 'raised %s: %s' % (type(e).__name__, e)
    results.append({'example': ex, 'expected': expected, 'got': got})
print(json.dumps({'names': names, 'params': params, 'results': results}))
`;

/** Parameter names of `str.center(width, fillchar=' ', /)`, or null for the bracketed forms. */
function ourParams(signature: string): string[] | null {
  const inner = signature.slice(signature.indexOf('(') + 1, signature.lastIndexOf(')'));
  if (inner.includes('[')) return null;
  return inner
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '/' && p !== '*' && p !== '')
    .map((p) => p.replace(/=.*$/, '').replace(/^\*+/, ''));
}

describe('PYTHON_STR_LIBRARY', () => {
  const docs = PYTHON_STR_LIBRARY.docs;
  const probe = JSON.parse(
    execFileSync(resolvePythonExecutable(), ['-c', PYTHON_PROBE], {
      input: JSON.stringify(docs.flatMap((d) => d.examples ?? [])),
      encoding: 'utf8',
    }),
  ) as { names: string[]; params: Record<string, string[] | null>; results: Array<{ example: string; expected: string; got: string }> };

  it('is a valid library whose docs each parse with the schema', () => {
    expect(ApiLibrarySchema.parse(PYTHON_STR_LIBRARY)).toEqual(PYTHON_STR_LIBRARY);
    for (const d of docs) expect(ApiDocSchema.safeParse(d).success, d.import_path).toBe(true);
    expect(PYTHON_STR_LIBRARY.runtime).toEqual({ kind: 'builtin' });
    // The same rows survive the JSONL path users take.
    expect(parseApiDocsJsonl(docs.map(line).join('\n'), 'python-str.jsonl')).toEqual(docs);
  });

  it("documents exactly the interpreter's public str methods", () => {
    expect(docs.map((d) => d.name).sort()).toEqual([...probe.names].sort());
    for (const d of docs) expect(d.import_path).toBe(`str.${d.name}`);
  });

  it("signatures name the interpreter's parameters, in order", () => {
    let checked = 0;
    for (const d of docs) {
      const theirs = probe.params[d.name];
      const ours = ourParams(d.signature);
      if (theirs && ours) {
        expect(ours, d.signature).toEqual(theirs);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(30);
  });

  it('every example evaluates to what its comment says', () => {
    expect(probe.results).toHaveLength(docs.length);
    for (const r of probe.results) expect(r.got, r.example).toBe(r.expected);
  });

  it('descriptions are distinct and their first sentences tell the methods apart', () => {
    const firsts = docs.map((d) => firstSentence(d.description));
    expect(new Set(firsts).size).toBe(docs.length);
  });
});
