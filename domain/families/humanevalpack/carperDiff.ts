/**
 * bigcode's `diff-carper` HumanEvalFix format: the model continues an OpenELM diff record
 * (`<NME> file\n<BEF> buggy code\n<MSG> instruction\n<DFF>`) with unified-diff hunks, and
 * bigcode applies them to the buggy code with OpenELM's lenient diff_eval.apply_diff (without
 * line numbers: each hunk's `-`/` ` lines are found as text after the previous hunk's change and
 * replaced by its `+`/` ` lines). Python's regular expressions are written for JavaScript: `.`
 * as `[^\n]` (JavaScript's also stops at \r, U+2028, U+2029) and multi-line `^`/`$` as
 * look-arounds on \n only.
 */
import { packRemoveLastBlock } from './postprocess.js';
import type { PackLanguage } from './prompts.js';

/** diff_eval's diff_pattern, matched at the start as re.match does. */
const RECORD = /^<NME> [^\n]*?\n<BEF> [\s\S]*?\n<MSG> [\s\S]*?\n<DFF> ([\s\S]*)/;
/** OpenELM's end_of_diff, "\n[^ +-@]+": `+-@` is the range + to @ (digits, punctuation, <, =, >), as in Python. */
const END_OF_DIFF = /\n[^ +-@]+/;
/** diff_eval's hunk_split_pattern (?m)^(@@ .*? @@).*\n, its header captured so split keeps it. */
const HUNK_SPLIT = /(?<=^|\n)(@@ [^\n]*? @@)[^\n]*\n/;
/** diff_eval's `ignored`: git's "\ No newline at end of file" lines. */
const NO_NEWLINE = /(?<=^|\n)\\ No newline at end of file(?=\n|$)\n?/g;

/**
 * bigcode's postprocess_generation for diff-carper: the continuation cut by remove_last_block
 * (the stop words, then the language's column-0 or brace rule, which bigcode applies to diffs
 * too), after the prompt; the record's diff, cut at the first line that starts with none of
 * space, +-@ and the characters between, and before any `<NME>`. A text that is not a diff record
 * (no `<DFF> ` with its space) bigcode returns None for, which process_results scores as an
 * empty program: here the empty string.
 */
export function carperDiffHunk(prompt: string, continuation: string, language: PackLanguage, stopWords: readonly string[]): string {
  const record = RECORD.exec(prompt + packRemoveLastBlock(continuation, language, stopWords));
  if (!record) return '';
  const hunk = record[1]!.split(END_OF_DIFF)[0]!;
  const nme = hunk.indexOf('<NME>');
  return nme === -1 ? hunk : hunk.slice(0, nme);
}

/** diff_eval's parse_diff_content: the hunk's text before (`-`, ` `) and after (`+`, ` `); other lines ignored. */
function beforeAndAfter(hunk: string): [string, string] {
  const before: string[] = [];
  const after: string[] = [];
  for (const line of hunk.split('\n')) {
    if (line === '') continue;
    if (line[0] === '-' || line[0] === ' ') before.push(line.slice(1));
    if (line[0] === '+' || line[0] === ' ') after.push(line.slice(1));
  }
  return [before.join('\n'), after.join('\n')];
}

/**
 * diff_eval's replace_text: the first `before` at or after `from` replaced by `after`, unless it
 * is absent or ends inside a line; the text and where the next search starts.
 */
function replaceText(text: string, before: string, after: string, from: number): [string, number] {
  const at = text.slice(from).indexOf(before);
  if (at < 0) return [text, from];
  const start = from + at;
  const end = start + before.length;
  if (end < text.length && text[end] !== '\n') return [text, from];
  return [text.slice(0, start) + after + text.slice(end), start + after.length];
}

/**
 * bigcode's process_results for diff-carper: an empty hunk is an empty program; otherwise
 * diff_eval.apply_diff(buggy, hunk) as bigcode calls it (line numbers ignored). Its quirks kept:
 * hunks apply greedily forward and a hunk whose context is not found (or ends mid-line) is
 * skipped; a hunk with no `-`/` ` lines is put before the file, only as the first change; text
 * before the first `@@ ... @@` header shifts the pairing, so that the first header is read as a
 * hunk (an empty one, which puts a newline before the file) and the hunks after it as headers.
 */
export function applyCarperDiff(buggy: string, hunk: string): string {
  if (hunk === '') return '';
  const parts = hunk.replace(NO_NEWLINE, '').split(HUNK_SPLIT);
  let file = buggy;
  let pointer = 0;
  for (let i = parts[0] ? 0 : 1; i < parts.length - 1; i += 2) {
    const [before, after] = beforeAndAfter(parts[i + 1]!);
    // allow_add_file: a record of a new file takes its first hunk's text.
    if (file === 'ADDFILE') return after;
    if (before === '') {
      if (pointer !== 0) continue;
      file = after + '\n' + file;
      pointer = 1;
    } else [file, pointer] = replaceText(file, before, after, pointer);
  }
  return file;
}
