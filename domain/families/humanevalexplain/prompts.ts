/**
 * bigcode's HumanEvalExplain (bigcode_eval/tasks/humanevalpack.py, OctoPack): the describe step's
 * prompt (HumanEvalExplainDescribeBase.get_prompt: explain the canonical solution, without its
 * docstring, in at most as many characters as the docstring has), its post-processing of a
 * description (postprocess_generation: stripped, cut to that length, cut at the first stop word,
 * right-stripped, and every solution line longer than 20 characters removed from it) and the
 * synthesize step's prompt (HumanEvalExplainSynthesizeBase.get_prompt: write the function from the
 * description, the declaration to continue). The formats are HumanEvalPack's (../humanevalpack).
 */
import { pyStrip } from '../../metrics/pythonText.js';
import { pyRstrip } from '../repairText.js';
import { promptBase, refusedPrompt, wrapPrompt, type PackLanguage, type PackPrompt } from '../humanevalpack/prompts.js';

/** bigcode's LANGUAGE_TO_NAME (the synthesize step's instruction names the language). */
const LANGUAGE_TO_NAME: Record<PackLanguage, string> = {
  python: 'Python',
  cpp: 'C++',
  js: 'JavaScript',
  java: 'Java',
  go: 'Go',
  rust: 'Rust',
};

/** The fields of a published row the two steps read. */
export interface ExplainRow {
  prompt: string;
  declaration: string;
  canonical_solution: string;
  buggy_solution: string;
  entry_point: string;
  test: string;
  instruction: string;
  docstring: string;
}

/** Python's len() of a str: code points, not UTF-16 units. */
const pyLen = (text: string): number => Array.from(text).length;

/** Why a `--prompt` cannot ask HumanEvalExplain (null: it can): HumanEvalFix's, plus continue (bigcode's assert: a context is given). */
export function refusedExplainPrompt(prompt: string): string | null {
  if (prompt === 'continue') return "continue is for HumanEvalSynthesize only (bigcode's assert: use instruct for HumanEvalExplain)";
  if (prompt === 'file' || prompt === 'issue' || prompt === 'diff' || prompt === 'diff-carper')
    return `${prompt} is a HumanEvalFix format: HumanEvalExplain's get_prompt raises ValueError for it`;
  return refusedPrompt(prompt, 'fixtests');
}

/** The describe step's prompt: the declaration (no docstring) and canonical solution as the context, no prompt base. */
export function describePrompt(format: PackPrompt, row: ExplainRow, language: PackLanguage): string {
  const instruction = `Provide a concise natural language description of the code using at most ${pyLen(row.docstring)} characters.`;
  return wrapPrompt(format, '', instruction, promptBase(row, language, false) + row.canonical_solution);
}

/**
 * The description a describe answer stands for, as bigcode's postprocess_generation makes it of
 * the text after the prompt: stripped, cut to the docstring's length, cut at the first of the stop
 * words found (in their order), right-stripped, then each line of the canonical solution longer
 * than 20 characters (stripped) removed wherever it occurs.
 */
export function describePostprocess(
  answer: string,
  row: Pick<ExplainRow, 'docstring' | 'canonical_solution'>,
  stopWords: readonly string[],
): string {
  let text = Array.from(pyStrip(answer)).slice(0, pyLen(row.docstring)).join('');
  for (const word of stopWords) {
    const at = text.indexOf(word);
    if (at !== -1) text = text.slice(0, at);
  }
  text = pyRstrip(text);
  for (const raw of row.canonical_solution.split('\n')) {
    const line = pyStrip(raw);
    if (pyLen(line) > 20 && text.includes(line)) text = text.split(line).join('');
  }
  return text;
}

/** The synthesize step's prompt: the description as the context, the declaration (Rust's behind `fn main(){}`) to continue. */
export function synthesizePrompt(format: PackPrompt, row: ExplainRow, language: PackLanguage, description: string): string {
  const instruction = `Write functional code in ${LANGUAGE_TO_NAME[language]} according to the description.`;
  return wrapPrompt(format, promptBase(row, language, false), instruction, description);
}
