/**
 * CodeXGLUE code-to-text (bigcode's codexglue_code_to_text-<language> and -python-left): rows in
 * google/code_x_glue_ct_code_to_text's format (JSON Lines and its Parquet files), bigcode's prompts
 * (written out here from its task file, per subset), its stop words and post-processing, bad rows
 * named by file, line and field; then the references and the BLEU against the Python packages
 * bigcode calls, to 1e-9: mosestokenizer 1.2.1's MosesDetokenizer("en") (beside the test venv, in
 * .tools/test-python-moses) and CodeXGLUE's bleu.py as lm-eval 0.4.5 ships it (in the test venv
 * .tools/test-python: its splitPuncts and NIST normalisation, max order 4, add-one smoothing on
 * orders 2..4, MOSES brevity penalty, the mean of the sentence scores x 100).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  codeToTextPostprocess,
  codeToTextReference,
  codeToTextStopWords,
  standardizeDocstringPrompt,
  type CodeToTextSubset,
} from '../../domain/families/code-to-text/bigcode.js';
import { codeToTextTasks } from '../../domain/families/code-to-text/rows.js';
import { CodeToTextEntrySchema, CODEXGLUE_BLEU_METRIC, codeToTextFamily } from '../../domain/families/code-to-text/index.js';
import { answerCode, CorpusFold, textCheckingOf, textScore } from '../../domain/sweep/textScores.js';
import { loadEvaluateProblems, sampleSolution } from '../../scripts/lib/evaluate-problems.js';
import { stopSentTo, stopWordsFor } from '../../domain/sweep/config.js';
import { mosesDetokenizeEnglish } from '../../domain/metrics/mosesDetokenizer.js';
import { codexglueBleu } from '../../domain/metrics/smoothedBleu.js';
import { datasetText } from '../../infra/datasetText.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { CODE_TO_TEXT_ROWS, codeToTextJsonl, type CodeXGlueRow } from '../support/code-to-text-rows.js';
import { seededUniform } from '../../domain/compare/stats.js';

const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
// mosestokenizer sits beside the venv (scripts/install-test-python.sh says why).
const MOSES = path.join(PROJECT_ROOT, '.tools/test-python-moses');
const TOL = 1e-9;
const SUFFIX = {
  python: '\n""" The goal of this function is to:\n',
  ruby: '\n=begin The goal of this function is to:\n',
  other: '\n/* The goal of this function is to:\n',
};
const tasks = (subset: CodeToTextSubset, rows: readonly CodeXGlueRow[]) => codeToTextTasks(codeToTextJsonl(rows), subset, 'test.jsonl');

describe("bigcode's prompts", () => {
  const [youtube, sina] = CODE_TO_TEXT_ROWS.python;

  it('python: the function without its docstring or its quotes, then the suffix', () => {
    expect(tasks('python', CODE_TO_TEXT_ROWS.python).map((t) => t.prompt)).toEqual([
      'def get_vid_from_url(url):\n' +
        '        \n' +
        "        return match1(url, r'youtu\\.be/([^?/]+)') or \\\n" +
        "          match1(url, r'youtube\\.com/embed/([^/?]+)') or \\\n" +
        "          parse_query_param(url, 'v')" +
        SUFFIX.python,
      // r''' docstrings keep their r: the prefix is cut at ''' and stripped.
      'def sina_xml_to_url_list(xml_data):\n    r\n    \n    rawurl = []\n    dom = parseString(xml_data)\n' +
        "    for node in dom.getElementsByTagName('durl'):\n        url = node.getElementsByTagName('url')[0]\n" +
        '        rawurl.append(url.childNodes[0].data)\n    return rawurl' +
        SUFFIX.python,
    ]);
  });

  it('python-left: the signature, up to the docstring, and """', () => {
    expect(tasks('python-left', [youtube!, sina!]).map((t) => t.prompt)).toEqual([
      'def get_vid_from_url(url):\n        """',
      'def sina_xml_to_url_list(xml_data):\n    r"""',
    ]);
  });

  it("the other languages: the code as it is (it holds no docstring), then /* or Ruby's =begin", () => {
    for (const language of ['go', 'java', 'javascript', 'php'] as const) {
      const row = CODE_TO_TEXT_ROWS[language][0]!;
      expect(tasks(language, [row])[0]!.prompt).toBe(row.code + SUFFIX.other);
    }
    const ruby = CODE_TO_TEXT_ROWS.ruby[0]!;
    expect(tasks('ruby', [ruby])[0]!.prompt).toBe(ruby.code + SUFFIX.ruby);
  });

  it('standardize_docstring_prompt: cut at the first delimiter, a lone quote at the end goes with the character before it', () => {
    expect(standardizeDocstringPrompt('def f():\n    """x"""\n    """')).toBe('def f():\n    """');
    expect(standardizeDocstringPrompt("def f():\n    '''")).toBe('def f():\n    """');
    expect(standardizeDocstringPrompt("def f():\n    u'  \n")).toBe('def f():\n    """');
    expect(standardizeDocstringPrompt('def f():\n    "')).toBe('def f():\n   """');
    // Both quotes: the single quote's rule first, then the double's on what is left.
    expect(standardizeDocstringPrompt('x = a"b\'')).toBe('x = """');
    // A quote after a quote is not lone.
    expect(standardizeDocstringPrompt("x = ''")).toBe('x = \'\'"""');
    // Python's whitespace, not JavaScript's: U+001F counts, U+FEFF does not.
    expect(standardizeDocstringPrompt("a b'\u001f")).toBe('a """');
    expect(standardizeDocstringPrompt("a b'\ufeff")).toBe('a b\'\ufeff"""');
  });

  it('stop words: the closing quotes for Python (and python-left), the end of the line for the others', () => {
    // bigcode keeps the quotes it stops at and an API drops them: the Python tasks' requests carry none.
    const entry = (subset: CodeToTextSubset) => CodeToTextEntrySchema.parse({ name: 'c', family: 'code-to-text', path: 'a.jsonl', subset });
    expect(codeToTextFamily.stopWords(entry('python'))).toEqual([]);
    expect(codeToTextFamily.stopWords(entry('python-left'))).toEqual([]);
    expect(codeToTextFamily.stopWords(entry('ruby'))).toEqual(['\n']);
    expect(codeToTextStopWords('python')).toEqual(["'''", '"""']);
    expect(codeToTextStopWords('python-left')).toEqual(["'''", '"""']);
    for (const language of ['go', 'ruby', 'java', 'javascript', 'php'] as const) expect(codeToTextStopWords(language)).toEqual(['\n']);
  });
});

describe("bigcode's post-processing: the first line", () => {
  it('a language: the stripped text after the suffix, first line', () => {
    const prompt = tasks('go', CODE_TO_TEXT_ROWS.go)[0]!.prompt;
    expect(codeToTextPostprocess('go', `${prompt}  Creates a new store.\nmore */`)).toBe('Creates a new store.');
    expect(codeToTextPostprocess('go', `${prompt}\n\n  Creates it. \n`)).toBe('Creates it.');
    expect(codeToTextPostprocess('go', `${prompt}\n\n  Creates it. \nmore`)).toBe('Creates it. ');
    expect(codeToTextPostprocess('ruby', `x${SUFFIX.ruby}Camelizes.\n=end`)).toBe('Camelizes.');
    expect(codeToTextPostprocess('python', `x${SUFFIX.python}Gets the id.`)).toBe('Gets the id.');
    expect(codeToTextPostprocess('java', `x${SUFFIX.other}`)).toBe('');
    // A second suffix in the completion ends the answer there.
    expect(codeToTextPostprocess('php', `x${SUFFIX.other}a${SUFFIX.other}b`)).toBe('a');
    expect(() => codeToTextPostprocess('php', 'no suffix')).toThrow("the generation does not hold the prompt's closing line");
  });

  it('python-left: after the first """ (then the first \'\'\' of the rest), first line, cut at the delimiter', () => {
    const prompt = 'def f(x):\n    """';
    expect(codeToTextPostprocess('python-left', `${prompt}Returns x.\n    """\n    return x`)).toBe('Returns x.');
    expect(codeToTextPostprocess('python-left', `${prompt}  Returns x."""`)).toBe('Returns x.');
    expect(codeToTextPostprocess('python-left', `${prompt}\n\n   Returns x.  \n`)).toBe('Returns x.');
    expect(codeToTextPostprocess('python-left', `${prompt}Uses '''raw''' text.`)).toBe('raw');
    // No delimiter at all (a saved completion alone): its first line, stripped.
    expect(codeToTextPostprocess('python-left', '  Returns x.\nmore')).toBe('Returns x.');
  });
});

describe('rows: refused naming file, line and field', () => {
  const good = CODE_TO_TEXT_ROWS.python[0]!;
  const line = (fields: Record<string, unknown>) => JSON.stringify({ ...good, id: 7, ...fields });
  const cases: Array<[string, string, string | RegExp]> = [
    ['another language', line({ language: 'go' }), "test.jsonl:2: language: go, but the entry's subset python reads python rows"],
    ['not a CodeXGLUE language', line({ language: 'kotlin' }), /^test\.jsonl:2: language: /],
    [
      'a docstring not in the code',
      line({ docstring: 'Not in the code.' }),
      "test.jsonl:2: docstring: not found in code (bigcode's Python prompts cut the code at its docstring)",
    ],
    [
      'no docstring tokens',
      line({ docstring_tokens: [] }),
      "test.jsonl:2: docstring_tokens: must not be empty (bigcode's reference is made of them)",
    ],
    [
      'empty docstring tokens',
      line({ docstring_tokens: [''] }),
      "test.jsonl:2: docstring_tokens: join to an empty docstring (bigcode's reference needs one)",
    ],
    ['no code', line({ code: undefined }), /^test\.jsonl:2: code: /],
    ['docstring tokens as a string', line({ docstring_tokens: 'Extracts video' }), /^test\.jsonl:2: docstring_tokens: /],
    ['a repeated id', line({ id: 0 }), 'test.jsonl:2: duplicate task_id 0 (first on line 1)'],
    ['not JSON', '{"code": ', /^test\.jsonl:2: not valid JSON/],
  ];
  it.each(cases)('%s', (_what, second, message) => {
    expect(() => codeToTextTasks(`${JSON.stringify(good)}\n${second}\n`, 'python', 'test.jsonl')).toThrow(message);
  });

  it("CodeXGLUE's own rows (no id) are numbered by their place; the other fields are not needed", () => {
    const { id: _id, ...withoutId } = CODE_TO_TEXT_ROWS.java[0]!;
    const text = `${JSON.stringify(withoutId)}\n\n${JSON.stringify({ ...withoutId, func_name: 'g' })}\n`;
    expect(codeToTextTasks(text, 'java', 'test.jsonl').map((t) => [t.taskId, t.line, t.funcName])).toEqual([
      ['0', 1, 'StringUtils.isBlank'],
      ['1', 3, 'g'],
    ]);
    expect(() => codeToTextTasks('', 'java', 'test.jsonl')).toThrow('test.jsonl has no tasks');
  });
});

describe("Hugging Face's Parquet files", () => {
  const fixture = (language: string) =>
    path.join(PROJECT_ROOT, `test/support/parquet/code-to-text-${language}-test-00000-of-00001.parquet`);

  it('read as their rows: the same tasks as the rows written as JSON Lines', async () => {
    for (const [language, subsets] of [
      ['python', ['python', 'python-left']],
      ['go', ['go']],
    ] as const) {
      const text = await datasetText(readFileSync(fixture(language)), fixture(language));
      for (const subset of subsets) {
        const fromParquet = codeToTextTasks(text, subset, 'test.parquet');
        expect(fromParquet, subset).toEqual(tasks(subset, CODE_TO_TEXT_ROWS[language]));
        expect(fromParquet.map((t) => t.line)).toEqual(CODE_TO_TEXT_ROWS[language].map((_, i) => i + 1));
      }
    }
  });

  it("a split of another language is refused naming the file, the row's line and the field", async () => {
    const text = await datasetText(readFileSync(fixture('go')), 'go/test-00000-of-00001.parquet');
    expect(() => codeToTextTasks(text, 'python-left', 'go/test-00000-of-00001.parquet')).toThrow(
      "go/test-00000-of-00001.parquet:1: language: go, but the entry's subset python-left reads python rows",
    );
  });
});

describe('the family: entries, stored problems, answers, scores', () => {
  const load = (subset: CodeToTextSubset, rows: readonly CodeXGlueRow[]) =>
    codeToTextFamily.load({
      entry: CodeToTextEntrySchema.parse({ name: 'ctt', family: 'code-to-text', path: 'python/test-00000-of-00001.parquet', subset }),
      texts: { rows: codeToTextJsonl(rows) },
      sources: { rows: 'test.parquet' },
    }).problems;

  it("an entry names bigcode's subset and a .parquet, .jsonl or .jsonl.gz file", () => {
    const parse = (extra: Record<string, unknown>) =>
      CodeToTextEntrySchema.safeParse({ name: 'c', family: 'code-to-text', path: 'go/test.parquet', subset: 'go', ...extra }).success;
    expect(parse({})).toBe(true);
    expect(parse({ path: 'test.jsonl.gz' })).toBe(true);
    expect(parse({ path: 'test.csv' })).toBe(false);
    expect(parse({ subset: 'kotlin' })).toBe(false);
    expect(parse({ subset: undefined })).toBe(false);
    expect(parse({ language: 'go' })).toBe(false);
  });

  it('stored problems carry the prompt, the function name and the reference; nothing to run', () => {
    const [problem] = load('go', CODE_TO_TEXT_ROWS.go);
    expect(problem).toMatchObject({
      family: 'code-to-text',
      task_id: '0',
      prompt: CODE_TO_TEXT_ROWS.go[0]!.code + SUFFIX.other,
      entry_point: 'NewAuthStore',
      form: 'completion',
      code_to_text: { subset: 'go', reference: 'NewAuthStore creates a new AuthStore.' },
    });
    expect(codeToTextFamily.language(problem!)).toBe('go_test.go');
    expect(codeToTextFamily.referenceSolution(problem!)).toBeNull();
    expect(
      codeToTextFamily.stopWords(CodeToTextEntrySchema.parse({ name: 'c', family: 'code-to-text', path: 'a.jsonl', subset: 'go' })),
    ).toEqual(['\n']);
    expect(() => codeToTextFamily.tests(problem!, null)).toThrow(/never run/);
  });

  it("a completion, a chat answer and a saved generation become bigcode's answer", () => {
    const [go] = load('go', CODE_TO_TEXT_ROWS.go);
    const [left] = load('python-left', CODE_TO_TEXT_ROWS.python);
    expect(codeToTextFamily.solution(go!, 'completions', ' Creates a store.\nmore')).toBe('Creates a store.');
    expect(codeToTextFamily.solution(go!, 'chat', 'Creates a store.\n\nIt also...')).toBe('Creates a store.');
    // A chat answer that repeats the prompt's closing line is read after it.
    expect(codeToTextFamily.solution(go!, 'chat', `${SUFFIX.other.trim()}\nCreates a store.`)).toBe('Creates a store.');
    expect(codeToTextFamily.solution(go!, 'saved', 'Creates a store.')).toBe('Creates a store.');
    expect(codeToTextFamily.solution(left!, 'completions', 'Extracts the id.\n        ')).toBe('Extracts the id.');
    expect(codeToTextFamily.solution(left!, 'chat', '  Extracts the id.')).toBe('Extracts the id.');
  });

  it("a cell's score is bigcode's blue: each task's first sample, the mean sentence BLEU x 100", () => {
    const problems = load('python', CODE_TO_TEXT_ROWS.python);
    const answers = [
      ['Extracts video ID from URL.', 'Nothing alike.'],
      ['Convert XML to URL list.', 'str - > list Convert XML to URL List. From Biligrab.'],
    ];
    const fold = new CorpusFold(CODEXGLUE_BLEU_METRIC);
    problems.forEach((problem, t) =>
      answers[t]!.forEach((answer, i) => fold.add(textScore(textCheckingOf(problem)!, answer).stats, i === 0)),
    );
    const expected = codexglueBleu(
      problems.map((p, t) => ({ reference: codeToTextFamily.read(p).code_to_text.reference, prediction: answers[t]![0]! })),
    );
    expect(fold.result()).toMatchObject({ metric: 'codexglue-bleu', headline: 'blue', samples: 2, figures: { blue: expected } });
    expect(expected).toBeGreaterThan(50);
    expect(expected).toBeLessThan(100);
  });

  it('evaluate.ts recognises the rows, takes the subset from their language, python-left from --subset', () => {
    const text = codeToTextJsonl(CODE_TO_TEXT_ROWS.python);
    const plain = loadEvaluateProblems({ text, source: 'test.jsonl' });
    expect(plain.family).toBe('code-to-text');
    expect(plain.form).toBe('completion');
    expect(plain.problems.map((p) => p.prompt)).toEqual(tasks('python', CODE_TO_TEXT_ROWS.python).map((t) => t.prompt));
    const left = loadEvaluateProblems({ text, source: 'test.jsonl', options: { subset: 'python-left' } });
    expect(left.problems.map((p) => p.prompt)).toEqual(tasks('python-left', CODE_TO_TEXT_ROWS.python).map((t) => t.prompt));
    expect(() => loadEvaluateProblems({ text, source: 'test.jsonl', options: { subset: 'cobol' } })).toThrow(
      '--subset: must be one of "python", "go", "ruby", "java", "javascript", "php", "python-left", got a string ("cobol")',
    );
    expect(() => loadEvaluateProblems({ text, source: 'test.jsonl', options: { subset: 'go' } })).toThrow(
      "test.jsonl:1: language: python, but the entry's subset go reads go rows",
    );
  });
});

// Tokens where the detokenizer's rules differ: punctuation either side, currencies, quotes and
// possessives, contractions, CJK, escapes, @-@, tags, non-ASCII letters and digits.
const TOKENS = [
  'Returns',
  'the',
  'value',
  'of',
  'x',
  'list',
  'users',
  'class',
  'It',
  'is',
  'Jones',
  'boss',
  'don',
  "'t",
  "'s",
  "'ll",
  "'",
  '"',
  '``',
  "''",
  '`',
  '„',
  '“',
  '”',
  ',',
  '.',
  '?',
  '!',
  ':',
  ';',
  '%',
  ')',
  ']',
  '}',
  '(',
  '[',
  '{',
  '$',
  '€',
  '£',
  '¿',
  '¡',
  '\\',
  '-',
  '--',
  '@-@',
  '&amp;',
  '&lt;',
  '&gt;',
  '&quot;',
  '&apos;',
  '&#124;',
  '&bar;',
  '&#91;',
  '&#93;',
  '<p>',
  '</p>',
  '<',
  '>',
  '/',
  '中文',
  '日本',
  'テスト',
  '한국',
  'abc中',
  '中abc',
  'café',
  'naïve',
  'İstanbul',
  '٣',
  'x1',
  '42',
  '3.14',
  'e.g.',
  '=',
  '+',
  '->',
  '...',
  '_',
  '#',
  'r',
  'rtype',
  '1st',
  "'a",
  "'1",
];

function tokenLists(count: number): string[][] {
  const random = seededUniform(2802);
  const pick = () => TOKENS[Math.floor(random() * TOKENS.length)]!;
  const lists: string[][] = [];
  for (let i = 0; i < count; i++) {
    const n = 1 + Math.floor(random() * 12);
    lists.push(Array.from({ length: n }, pick));
  }
  // A line that is one tag, and tags around words, as the script passes them through.
  lists.push(['<p>'], ['<b>', 'bold', '</b>'], ['<', 'x', '>'], ['a', '<b>']);
  return lists;
}

// Generations a model could give per task, post-processed as bigcode does, over every row.
function samples(): Array<{ subset: CodeToTextSubset; rows: CodeXGlueRow[]; predictions: string[] }> {
  const answers = [
    'Extracts video ID from URL.',
    'returns the list of urls',
    '',
    'Checks if a CharSequence is blank (whitespace).',
    "Limit the string's width.\tsecond",
  ];
  const out: Array<{ subset: CodeToTextSubset; rows: CodeXGlueRow[]; predictions: string[] }> = [];
  for (const subset of ['python', 'python-left', 'go', 'ruby', 'java', 'javascript', 'php'] as const) {
    const rows = CODE_TO_TEXT_ROWS[subset === 'python-left' ? 'python' : subset];
    const loaded = tasks(subset, rows);
    answers.forEach((answer, a) => {
      const predictions = loaded.map((task, i) => {
        const completion = a === 0 ? rows[i]!.docstring_tokens.join(' ') : `${answers[(a + i) % answers.length]}\nnext line`;
        return codeToTextPostprocess(subset, task.prompt + ' ' + completion);
      });
      out.push({ subset, rows, predictions });
    });
  }
  return out;
}

// Completions as a model writes them, stop words and what follows included: the answer line closed by
// the docstring's quotes (bigcode keeps them), closed on a later line, the other quotes first, none.
const COMPLETIONS = [
  'Returns the sum."""\n    return a + b',
  ' Gets the video id of a URL.\n    """\n    return x',
  `Converts XML.''' and more""" text`,
  '\n\n  Builds a list."""',
  'Splits the string into words',
  '   """',
  "Parses it.'''",
];

/** One sample per (subset, row, completion), as a sweep's model would answer it and evaluate.ts would read it. */
function answeredTasks() {
  const out: Array<{ subset: CodeToTextSubset; row: CodeXGlueRow; completion: string }> = [];
  for (const subset of ['python', 'python-left', 'go'] as const) {
    const rows = CODE_TO_TEXT_ROWS[subset === 'python-left' ? 'python' : subset];
    for (const row of rows) for (const completion of COMPLETIONS) out.push({ subset, row, completion });
  }
  return out;
}

describe('references and BLEU against the Python packages bigcode calls', () => {
  const lists = tokenLists(160);
  const corpora = samples();
  const answered = answeredTasks();
  let reference: {
    detokenized: string[];
    corpora: Array<{ references: string[]; bleu: number }>;
    answers: string[];
    answers_bleu: number;
  };

  beforeAll(() => {
    execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'inherit' });
    const input = {
      detokenize: lists,
      corpora: corpora.map((c) => ({ docstring_tokens: c.rows.map((r) => r.docstring_tokens), predictions: c.predictions })),
      answers: answered.map((a) => ({
        subset: a.subset,
        prompt: tasks(a.subset, [a.row])[0]!.prompt,
        completion: a.completion,
        docstring_tokens: a.row.docstring_tokens,
      })),
    };
    const script = path.join(PROJECT_ROOT, 'test/families/code_to_text_reference.py');
    const env = { ...process.env, PYTHONPATH: MOSES };
    reference = JSON.parse(execFileSync(PYTHON, [script], { input: JSON.stringify(input), maxBuffer: 1 << 26, env }).toString());
  }, 600_000);

  it("Moses' English detokenizer, as mosestokenizer runs it, on 164 token lists", () => {
    expect(lists.length).toBeGreaterThanOrEqual(100);
    lists.forEach((tokens, i) => expect(mosesDetokenizeEnglish(tokens), JSON.stringify(tokens)).toBe(reference.detokenized[i]));
  });

  it("every row's reference is bigcode's get_reference (a leading r dropped, a tag-like line kept as it is)", () => {
    corpora.forEach((c, k) =>
      c.rows.forEach((row, i) => expect(codeToTextReference(row.docstring_tokens), `${k}/${i}`).toBe(reference.corpora[k]!.references[i])),
    );
    expect(codeToTextReference(CODE_TO_TEXT_ROWS.python[1]!.docstring_tokens)).toBe('str - > list Convert XML to URL List. From Biligrab.');
    expect(codeToTextReference(['returns', 'it'])).toBe('eturns it');
  });

  it('BLEU of the post-processed samples of every subset equals bigcode compute_codexglue_code_to_text_bleu', () => {
    corpora.forEach((c, k) => {
      const references = c.rows.map((r) => codeToTextReference(r.docstring_tokens));
      const ours = codexglueBleu(references.map((r, i) => ({ reference: r, prediction: c.predictions[i]! })));
      expect(Math.abs(ours - reference.corpora[k]!.bleu), `${c.subset} #${k}: ${ours} vs ${reference.corpora[k]!.bleu}`).toBeLessThan(TOL);
    });
    // Exact answers score high, and not every corpus scores alike (the data can tell BLEU apart).
    expect(new Set(reference.corpora.map((c) => c.bleu.toFixed(6))).size).toBeGreaterThan(10);
  });

  it("a completion's answer is bigcode's, its stop word kept, through a sweep's request and cut and through evaluate.ts", () => {
    const sweepAnswers: string[] = [];
    const evaluateAnswers: string[] = [];
    for (const a of answered) {
      const entry = CodeToTextEntrySchema.parse({ name: 'c', family: 'code-to-text', path: 'a.jsonl', subset: a.subset });
      const rows = codeToTextJsonl([a.row]);
      const [problem] = codeToTextFamily.load({ entry, texts: { rows }, sources: { rows: 'a.jsonl' } }).problems;
      // A sweep: the API stops at the request's stop words and drops the one it stops at; the cell then cuts the text.
      const stop = stopWordsFor({ api: 'completions' }, entry);
      const stopsAt = stopSentTo(stop, {})
        .map((s) => a.completion.indexOf(s))
        .filter((at) => at >= 0);
      const served = a.completion.slice(0, Math.min(a.completion.length, ...stopsAt));
      sweepAnswers.push(codeToTextFamily.solution(problem!, 'completions', answerCode(problem!, 'completions', served, stop)));
      // evaluate.ts: the completion as saved, stop word and all.
      const [read] = loadEvaluateProblems({ text: rows, source: 'a.jsonl', options: { subset: a.subset } }).problems;
      evaluateAnswers.push(sampleSolution(read!, 'completion', a.completion));
    }
    expect(sweepAnswers).toEqual(reference.answers);
    expect(evaluateAnswers).toEqual(reference.answers);
    // The data tells the readings apart: some of bigcode's answers end with the quotes it stopped at.
    expect(reference.answers.filter((answer) => /("""|''')$/.test(answer)).length).toBeGreaterThan(2);
    const references = answered.map((a) => codeToTextReference(a.row.docstring_tokens));
    const ours = codexglueBleu(references.map((r, i) => ({ reference: r, prediction: sweepAnswers[i]! })));
    expect(Math.abs(ours - reference.answers_bleu)).toBeLessThan(TOL);
  });
});
