/**
 * From a model's raw answer to the code that is run. Pure functions; the raw text is always kept
 * next to the extracted code so that extraction can be audited (and redone) later.
 *
 * - completions API (the model continues the prompt): cut at the first stop word, as
 *   bigcode-evaluation-harness does for HumanEval.
 * - chat API (the model answers in prose/markdown): drop `<think>` reasoning, then take the code out
 *   of a fenced block (rules at `extractFencedCode`).
 */

/**
 * The stop words of bigcode-evaluation-harness's HumanEval task (`bigcode_eval/tasks/humaneval.py`,
 * `GeneralHumanEval.__init__`): a top-level statement after the function body ends the completion.
 */
export const BIGCODE_HUMANEVAL_STOP_WORDS: readonly string[] = Object.freeze([
  '\nclass',
  '\ndef',
  '\n#',
  '\n@',
  '\nprint',
  '\nif',
  '\n```',
  '<file_sep>',
]);

/**
 * The prefix of `text` that ends at the earliest occurrence of any stop word (the stop word itself
 * excluded), like the harness's `Task._stop_at_stop_token`. Text without a stop word is returned
 * whole. Empty stop words are ignored (in Python `s.find('')` is 0 and would cut everything).
 *
 * With `keepStopWord`, bigcode's stopping criterion on a completion (EndOfFunctionCriteria) instead:
 * generation ends at the first stop word to be completed, which is kept, so the cut is at the
 * earliest end of a stop word, not its earliest start.
 */
export function truncateAtStopWords(text: string, stops: readonly string[], { keepStopWord = false } = {}): string {
  let end = text.length;
  for (const stop of stops) {
    if (stop === '') continue;
    const at = text.indexOf(stop);
    if (at !== -1) end = Math.min(end, keepStopWord ? at + stop.length : at);
  }
  return text.slice(0, end);
}

const THINK_OPEN = '<think>';
const THINK_CLOSE = '</think>';

/**
 * Removes reasoning blocks:
 * - every `<think>…</think>` block;
 * - a `</think>` that comes before any `<think>` (servers whose chat template opens the block in the
 *   prompt return only its end): everything up to and including it is reasoning;
 * - a `<think>` that never closes: everything from it to the end is reasoning (a model cut off while
 *   thinking has given no answer, so the result may be empty).
 * Whitespace around the answer is left as is.
 */
export function stripThinking(text: string): string {
  let rest = text;
  const firstOpen = rest.indexOf(THINK_OPEN);
  const firstClose = rest.indexOf(THINK_CLOSE);
  if (firstClose !== -1 && (firstOpen === -1 || firstClose < firstOpen)) {
    rest = rest.slice(firstClose + THINK_CLOSE.length);
  }
  let out = '';
  for (;;) {
    const open = rest.indexOf(THINK_OPEN);
    if (open === -1) return out + rest;
    out += rest.slice(0, open);
    const close = rest.indexOf(THINK_CLOSE, open + THINK_OPEN.length);
    if (close === -1) return out;
    rest = rest.slice(close + THINK_CLOSE.length);
  }
}

export interface FencedBlock {
  /** First word of the info string, lower-cased ('' when the fence has none). */
  language: string;
  /** The lines between the fences, without the fences' indentation. */
  code: string;
  /** False when the answer ended before the closing fence. */
  closed: boolean;
}

export const PYTHON_LANGUAGES: ReadonlySet<string> = new Set(['python', 'py', 'python3', 'py3']);

/** Opening fence: up to any indentation, 3+ backticks or tildes, an optional info string. */
const OPENING_FENCE = /^([ \t]*)(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$/;

/**
 * The fenced code blocks of a markdown answer, in order (CommonMark rules, leniently: any
 * indentation; a block is closed by a fence of the same character at least as long, with nothing
 * else on the line; a block left open runs to the end of the text). CRLF and CR line ends are read
 * as LF.
 */
export function fencedBlocks(text: string): FencedBlock[] {
  const lines = normalizeNewlines(text).split('\n');
  const blocks: FencedBlock[] = [];
  let i = 0;
  while (i < lines.length) {
    const open = OPENING_FENCE.exec(lines[i]!);
    i++;
    if (!open) continue;
    const indent = open[1]!.length;
    const fence = open[2]!;
    const closing = new RegExp(`^[ \\t]*${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*$`);
    const body: string[] = [];
    let closed = false;
    while (i < lines.length) {
      const line = lines[i]!;
      i++;
      if (closing.test(line)) {
        closed = true;
        break;
      }
      body.push(removeIndent(line, indent));
    }
    blocks.push({ language: open[3]!.toLowerCase(), code: trimBlankLines(body.join('\n')), closed });
  }
  return blocks;
}

export interface ExtractFencedOptions {
  /** Name of the function the tests call; used to choose among several blocks. */
  entryPoint?: string;
  /** Info strings (lower case) of the blocks to prefer: the language's fence tags. Default Python's. */
  fenceTags?: ReadonlySet<string>;
  /** A line defining `name` in the language (default Python's `def name(`). */
  defines?: (name: string) => RegExp;
}

/**
 * The code in a chat answer. Rule:
 * 1. Candidates are the ```python blocks (also `py`, `python3`, any case); if there are none,
 *    every fenced block (untagged or of any language). Blocks with only whitespace are dropped
 *    unless all are.
 * 2. With an entry point, the first candidate that defines it (`def name(` or `async def name(`
 *    at the start of a line) wins; otherwise, or without an entry point, the first candidate.
 * 3. An answer with no fence at all is taken as bare code: the whole answer, trimmed.
 * A fence left unclosed (the answer was cut off) still yields its block, up to the end.
 */
export function extractFencedCode(text: string, opts: ExtractFencedOptions = {}): string {
  const blocks = fencedBlocks(text);
  if (blocks.length === 0) return normalizeNewlines(text).trim();
  const tags = opts.fenceTags ?? PYTHON_LANGUAGES;
  const tagged = blocks.filter((b) => tags.has(b.language));
  let candidates = tagged.length > 0 ? tagged : blocks;
  const nonEmpty = candidates.filter((b) => b.code.trim() !== '');
  if (nonEmpty.length > 0) candidates = nonEmpty;
  if (opts.entryPoint) {
    const defines = (opts.defines ?? definesPythonFunction)(opts.entryPoint);
    const match = candidates.find((b) => defines.test(b.code));
    if (match) return match.code;
  }
  return candidates[0]!.code;
}

export type ExtractApi = 'chat' | 'completions';

export interface ExtractInput {
  api: ExtractApi;
  /** The model's text as returned (choice `text` or message `content`). */
  raw: string;
  /** Function the tests call (chat: to choose among several code blocks). */
  entryPoint?: string;
  /** Completions: stop words to cut at (default: BIGCODE_HUMANEVAL_STOP_WORDS). Unused for chat. */
  stop?: readonly string[];
  /** Chat: how the language's blocks are recognised (default Python's). */
  fence?: Omit<ExtractFencedOptions, 'entryPoint'>;
}

export interface ExtractedCode {
  code: string;
  raw: string;
}

/** completions → truncate at stop words; chat → strip thinking, then the fenced code. */
export function extractCode(input: ExtractInput): ExtractedCode {
  const { api, raw } = input;
  if (api === 'completions') {
    return { code: truncateAtStopWords(raw, input.stop ?? BIGCODE_HUMANEVAL_STOP_WORDS), raw };
  }
  const answer = stripThinking(raw);
  return { code: extractFencedCode(answer, { ...input.fence, ...(input.entryPoint ? { entryPoint: input.entryPoint } : {}) }), raw };
}

function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/** Removes up to `indent` leading spaces/tabs (the opening fence's indentation), as CommonMark does. */
function removeIndent(line: string, indent: number): string {
  let n = 0;
  while (n < indent && n < line.length && (line[n] === ' ' || line[n] === '\t')) n++;
  return line.slice(n);
}

/** Drops leading and trailing lines that are empty or whitespace only; keeps the rest exactly. */
function trimBlankLines(code: string): string {
  const lines = code.split('\n');
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start]!.trim() === '') start++;
  while (end > start && lines[end - 1]!.trim() === '') end--;
  return lines.slice(start, end).join('\n');
}

/** Python's definition of `name`: `def name(` or `async def name(` at the start of a line. */
export function definesPythonFunction(name: string): RegExp {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^[ \\t]*(?:async[ \\t]+)?def[ \\t]+${escaped}[ \\t]*\\(`, 'm');
}
