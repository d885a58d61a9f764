/**
 * CodeXGLUE code-to-text as bigcode-evaluation-harness runs it (bigcode_eval/tasks/
 * codexglue_code_to_text.py): the prompt per subset, the stop words, the post-processing of a
 * generation (prompt + completion) to its first line, and the reference made of the row's
 * docstring_tokens. Subsets are bigcode's task names without `codexglue_code_to_text-`.
 */
import { mosesDetokenizeEnglish } from '../../metrics/mosesDetokenizer.js';
import { PY_SPACE_CLASS, pySplit, pySplitWhitespace, pyStrip } from '../../metrics/pythonText.js';

/** CodeXGLUE's languages, as its rows' `language` field names them. */
export const CODE_TO_TEXT_LANGUAGES = ['python', 'go', 'ruby', 'java', 'javascript', 'php'] as const;
export type CodeToTextLanguage = (typeof CODE_TO_TEXT_LANGUAGES)[number];

/** bigcode's tasks `codexglue_code_to_text-<subset>`: a language, or `python-left` (the signature only). */
export const CODE_TO_TEXT_SUBSETS = [...CODE_TO_TEXT_LANGUAGES, 'python-left'] as const;
export type CodeToTextSubset = (typeof CODE_TO_TEXT_SUBSETS)[number];

/** The language whose rows a subset reads. */
export function subsetLanguage(subset: CodeToTextSubset): CodeToTextLanguage {
  return subset === 'python-left' ? 'python' : subset;
}

const TRIPLE_QUOTE = '"""';
const SINGLE_TRIPLE_QUOTE = "'''";

/** What closes the code and asks for its documentation (bigcode's SUFFIX_PROMPT); also where post-processing cuts. */
export function promptSuffix(language: CodeToTextLanguage): string {
  if (language === 'python') return '\n""" The goal of this function is to:\n';
  if (language === 'ruby') return '\n=begin The goal of this function is to:\n';
  return '\n/* The goal of this function is to:\n';
}

/** bigcode's stop words: the docstring's closing quotes for both Python tasks, the end of the line for the others. */
export function codeToTextStopWords(subset: CodeToTextSubset): readonly string[] {
  return subsetLanguage(subset) === 'python' ? [SINGLE_TRIPLE_QUOTE, TRIPLE_QUOTE] : ['\n'];
}

/**
 * The stop words an API request carries. bigcode's stopping criterion ends a generation at the
 * token where a stop word appears and keeps it, and its Python post-processing does not cut it (an
 * answer line `Returns the sum."""` is scored with its quotes). An API drops the stop sequence it
 * stops at, so the Python tasks send none and the completion is cut where bigcode's criterion stops (truncateAtStopWords with keepStopWord): this
 * costs the tokens after the quotes, up to max_tokens. The other languages' `\n` is dropped by
 * bigcode's first-line cut anyway, so it is sent.
 */
export function codeToTextRequestStopWords(subset: CodeToTextSubset): readonly string[] {
  return subsetLanguage(subset) === 'python' ? [] : codeToTextStopWords(subset);
}

// A lone quote (not part of a triple) ending the text, whitespace after it allowed: Python's re.search,
// whose \s is Python's whitespace; `$` before a final newline matches nothing more here, as \s* takes it.
const LONE_SINGLE_QUOTE_AT_END = new RegExp(`[^'"]'[${PY_SPACE_CLASS}]*$`, 'u');
const LONE_DOUBLE_QUOTE_AT_END = new RegExp(`[^'"]"[${PY_SPACE_CLASS}]*$`, 'u');

/**
 * bigcode's standardize_docstring_prompt (from InCoder's evaluation): the code before the docstring
 * cut at its first docstring delimiter, a lone quote at its end removed with the character before
 * it, then `"""` added.
 */
export function standardizeDocstringPrompt(prefix: string): string {
  let out = prefix;
  for (const delimiter of [TRIPLE_QUOTE, SINGLE_TRIPLE_QUOTE]) {
    const at = out.indexOf(delimiter);
    if (at >= 0) {
      out = out.slice(0, at);
      break;
    }
  }
  for (const loneQuote of [LONE_SINGLE_QUOTE_AT_END, LONE_DOUBLE_QUOTE_AT_END]) {
    const match = loneQuote.exec(out);
    if (match) out = out.slice(0, match.index);
  }
  return out + TRIPLE_QUOTE;
}

function removeSuffix(text: string, suffix: string): string {
  return text.endsWith(suffix) ? text.slice(0, text.length - suffix.length) : text;
}

/** The fields of a CodeXGLUE row a prompt is made of. */
export interface CodeToTextSource {
  code: string;
  docstring: string;
}

/**
 * bigcode's get_prompt. Python (whose code holds its docstring): the code without its docstring
 * and the docstring's quotes, then the suffix; python-left: the code up to the docstring,
 * standardized (the signature and `"""`); the other languages (whose code has no docstring): the
 * code and the suffix. Throws when a Python row's code does not contain its docstring (bigcode's
 * code.index raises).
 */
export function codeToTextPrompt(subset: CodeToTextSubset, source: CodeToTextSource): string {
  const language = subsetLanguage(subset);
  if (language !== 'python') return source.code + promptSuffix(language);
  const at = source.code.indexOf(source.docstring);
  if (at < 0) throw new RangeError('the docstring is not part of the code');
  const before = standardizeDocstringPrompt(source.code.slice(0, at));
  if (subset === 'python-left') return before;
  const after = source.code
    .slice(at + source.docstring.length)
    .replaceAll(TRIPLE_QUOTE, '')
    .replaceAll(SINGLE_TRIPLE_QUOTE, '');
  const prefix = removeSuffix(pyStrip(removeSuffix(pyStrip(before), TRIPLE_QUOTE)), SINGLE_TRIPLE_QUOTE);
  return prefix + after + promptSuffix('python');
}

/**
 * bigcode's postprocess_generation of a generation (the prompt and its completion). A language's
 * task: the stripped text after the prompt's suffix, first line. python-left: the generation's
 * first line, stripped, unless it holds a docstring delimiter: then, for `"""` and then `'''`, the
 * text after the delimiter's first occurrence becomes the generation, and the answer its stripped
 * first line cut at the delimiter.
 */
export function codeToTextPostprocess(subset: CodeToTextSubset, generation: string): string {
  if (subset !== 'python-left') {
    const parts = pySplit(generation, promptSuffix(subset));
    if (parts.length < 2) throw new RangeError("the generation does not hold the prompt's closing line");
    return pySplit(pyStrip(parts[1]!), '\n')[0]!;
  }
  const firstLine = (text: string) => pyStrip(pySplit(pyStrip(text), '\n')[0]!);
  let rest = generation;
  let output = firstLine(rest);
  for (const delimiter of [TRIPLE_QUOTE, SINGLE_TRIPLE_QUOTE]) {
    const at = rest.indexOf(delimiter);
    if (at >= 0) {
      rest = rest.slice(at + 3);
      output = pySplit(firstLine(rest), delimiter, 1)[0]!;
    }
  }
  return output;
}

/**
 * bigcode's get_reference: the docstring's tokens joined by spaces, newlines dropped, a leading "r"
 * dropped (meant for r""" docstrings, it also takes the first letter of a docstring that starts
 * with one, "returns" becoming "eturns"), then Moses' English detokenizer over its words. Throws on
 * no tokens (bigcode's docstring[0] raises).
 */
export function codeToTextReference(docstringTokens: readonly string[]): string {
  let docstring = docstringTokens.join(' ').replaceAll('\n', '');
  if (docstring === '') throw new RangeError('no docstring tokens');
  if (docstring.startsWith('r')) docstring = docstring.slice(1);
  return mosesDetokenizeEnglish(pySplitWhitespace(docstring));
}
