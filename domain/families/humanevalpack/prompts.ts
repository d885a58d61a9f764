/**
 * bigcode's HumanEvalPack prompts (bigcode_eval/tasks/humanevalpack.py, OctoPack): the `--prompt`
 * formats its get_prompt builds, each task's instruction and context, and the stop words its
 * constructor sets. Python's str.strip() where bigcode strips (pyStrip).
 */
import { pyStrip } from '../../metrics/pythonText.js';

/** bigcode's HumanEvalPack languages, its DATASET_NAME (js: JavaScript). */
export const PACK_LANGUAGES = ['python', 'js', 'java', 'go', 'cpp', 'rust'] as const;
export type PackLanguage = (typeof PACK_LANGUAGES)[number];

/** The languages explora runs HumanEvalPack in: all of bigcode's (process_results' changes for each are transcribed). */
export const RUN_LANGUAGES = PACK_LANGUAGES;
export type RunLanguage = PackLanguage;

/** The task_id prefix of each language's rows (Python/0, JavaScript/0, ...). */
export const TASK_ID_PREFIX: Record<PackLanguage, string> = {
  python: 'Python',
  js: 'JavaScript',
  java: 'Java',
  go: 'Go',
  cpp: 'CPP',
  rust: 'Rust',
};

/** HumanEvalSynthesize, HumanEvalFixTests, HumanEvalFixDocs: bigcode's task name is humaneval<variant>-<language>. */
export const PACK_VARIANTS = ['synthesize', 'fixtests', 'fixdocs'] as const;
export type PackVariant = (typeof PACK_VARIANTS)[number];

/** The formats bigcode's HumanEvalPack get_prompt builds for every variant. */
const GENERIC_PROMPTS = [
  'continue',
  'instruct',
  'octocoder',
  'octogeex',
  'starchat',
  'starcodercommit',
  'instructcodet5p',
  'wizardcoder',
  'codellama',
  'deepseek',
  'tulu',
  'gritlm',
  'zephyr',
  'yi',
  'starchat2',
  'codeqwen',
  'codegemma',
  'codellama-70b',
  'aurora-m',
] as const;
/** Formats only HumanEvalFix's get_prompt builds (diff and diff-carper: the model answers with a patch, dmpPatch.ts and carperDiff.ts). */
const FIX_PROMPTS = ['file', 'issue', 'diff', 'diff-carper'] as const;
export const PACK_PROMPTS = [...GENERIC_PROMPTS, ...FIX_PROMPTS] as const;
export type PackPrompt = (typeof PACK_PROMPTS)[number];

/**
 * Why bigcode's other `--prompt` values are not run here: edit* set stop words but get_prompt has
 * no branch for them (ValueError).
 */
export function refusedPrompt(prompt: string, variant: PackVariant): string | null {
  if (prompt.startsWith('edit')) return `bigcode's get_prompt has no branch for ${prompt} (it raises ValueError)`;
  if (!(PACK_PROMPTS as readonly string[]).includes(prompt))
    return `not one of bigcode's HumanEvalPack prompts (${PACK_PROMPTS.join(', ')})`;
  if (variant === 'synthesize' && (FIX_PROMPTS as readonly string[]).includes(prompt))
    return `${prompt} is a HumanEvalFix format: HumanEvalSynthesize's get_prompt raises ValueError for it`;
  if (variant !== 'synthesize' && prompt === 'continue')
    return "continue is for HumanEvalSynthesize only (bigcode's assert: use instruct for HumanEvalFix)";
  return null;
}

/** bigcode's LANGUAGE_TO_STOP_WORDS (from CodeGeeX). */
const LANGUAGE_STOP_WORDS: Record<PackLanguage, readonly string[]> = {
  python: ['\nclass', '\ndef', '\n#', '\n@', '\nprint', '\nif', '\nassert'],
  cpp: [],
  js: [],
  go: ['\n//', '\nfunc main(', 'struct', '\nfunc'],
  java: [],
  rust: [],
};

/** bigcode's stop words for one task instance: the language's (diff-carper's instead), starchat's <|end|> or issue's ```, then <|endoftext|>. */
export function packStopWords(language: PackLanguage, prompt: PackPrompt): string[] {
  const words =
    prompt === 'diff'
      ? ['<commit_before>', '<commit_msg>', '<commit_after>']
      : prompt === 'diff-carper'
        ? ['<BEF>', '<MSG>', '<DFF>', '\\ No newline at end of file']
        : [...LANGUAGE_STOP_WORDS[language]];
  if (prompt === 'starchat') words.push('<|end|>');
  else if (prompt === 'issue') words.push('```');
  words.push('<|endoftext|>');
  return words;
}

/** The fields of a published row the prompts read. */
export interface PackPromptRow {
  prompt: string;
  declaration: string;
  buggy_solution: string;
  entry_point: string;
  test: string;
  instruction: string;
}

/** bigcode's get_prompt_base: the row's prompt (with docs), else its declaration (Rust's with `fn main(){}` before it). */
export function promptBase(row: PackPromptRow, language: PackLanguage, withDocs: boolean): string {
  if (withDocs) return row.prompt;
  return language === 'rust' ? 'fn main(){}\n' + row.declaration : row.declaration;
}

/** bigcode's HumanEvalPack.get_prompt: the format around the instruction, context and prompt base, stripped. */
export function wrapPrompt(format: PackPrompt, base: string, instruction: string, context?: string): string {
  const inp =
    context === undefined
      ? instruction
      : format === 'continue' || format === 'instruct'
        ? `${context}\n${instruction}`
        : `${instruction}\n${context}`;
  const strippedInp = pyStrip(inp);
  const build = (): string => {
    switch (format) {
      case 'continue':
        return base;
      case 'instruct':
        return `${inp}\n\n${base}`;
      case 'octocoder':
        return `Question: ${inp}\n\nAnswer:\n${base}`;
      case 'octogeex':
        return `Question: ${strippedInp}\n\nAnswer:\n${base}`;
      case 'starchat':
        return `<|system|>\n<|end|>\n<|user|>\n${inp}<|end|>\n<|assistant|>\n${base}`;
      case 'starcodercommit':
        return `<commit_before><commit_msg>${inp}<commit_after>${base}`;
      case 'instructcodet5p':
        return `Below is an instruction that describes a task. Write a response that appropriately completes the request.\n\n### Instruction:\n${inp}\n\n### Response:${base}`;
      case 'wizardcoder':
        return `Below is an instruction that describes a task. Write a response that appropriately completes the request.\n\n### Instruction:\n${inp}\n\n### Response:\n${base}`;
      case 'codellama':
        return `[INST] ${strippedInp} [/INST] ${base}`;
      case 'deepseek':
        return (
          'You are an AI programming assistant, utilizing the Deepseek Coder model, developed by Deepseek Company, and you only answer ' +
          'questions related to computer science. For politically sensitive questions, security and privacy issues, and other ' +
          `non-computer science questions, you will refuse to answer\n### Instruction:\n${strippedInp}\n### Response:\n${base}`
        );
      case 'tulu':
      case 'gritlm':
        return `<|user|>\n${inp}\n<|assistant|>\n${base}`;
      case 'zephyr':
        return `<|user|>\n${inp}</s>\n<|assistant|>\n${base}`;
      case 'yi':
      case 'starchat2':
      case 'codeqwen':
        return `<|im_start|>user\n${inp}<|im_end|>\n<|im_start|>assistant\n${base}`;
      case 'codegemma':
        return `<start_of_turn>user\n${inp}<end_of_turn>\n<start_of_turn>model\n${base}`;
      case 'codellama-70b':
        return `Source: user\n\n ${strippedInp} Source: assistant\nDestination: user \n\n${base}`;
      case 'aurora-m':
        return `### Instruction:\n${inp}\n### Response:\n${base}`;
      case 'file':
      case 'issue':
      case 'diff':
      case 'diff-carper':
        throw new Error(`${format} is a HumanEvalFix format`);
    }
  };
  return pyStrip(build());
}

/** The filename bigcode's `file` format names: the entry point and the language's extension. */
const EXTENSION: Record<PackLanguage, string> = { python: 'py', cpp: 'cpp', js: 'js', java: 'java', go: 'go', rust: 'rs' };

/** bigcode's get_prompt of HumanEvalSynthesize and HumanEvalFix (tests: the row's tests in the context; docs: none). */
export function packPrompt(variant: PackVariant, format: PackPrompt, row: PackPromptRow, language: PackLanguage): string {
  if (variant === 'synthesize') return wrapPrompt(format, promptBase(row, language, true), pyStrip(row.instruction));
  const base = promptBase(row, language, variant === 'fixdocs');
  const instruction = `Fix bugs in ${row.entry_point}.`;
  let context = base + row.buggy_solution;
  if (variant === 'fixtests') context += '\n' + row.test;
  switch (format) {
    case 'file':
      return pyStrip(
        `<file_name>\n${row.entry_point}.${EXTENSION[language]}\n<commit_before>\n${context}\n<commit_msg>\n${instruction}<commit_after>\n${base}`,
      );
    case 'diff':
      return pyStrip(`<commit_before>${context}<commit_msg>${instruction}<commit_after>`);
    case 'diff-carper':
      return pyStrip(`<NME> ${row.entry_point}.${EXTENSION[language]}\n<BEF> ${context}\n<MSG> ${instruction}\n<DFF>`);
    case 'starcodercommit':
      return pyStrip(`<commit_before>${context}<commit_msg>${instruction}<commit_after>${base}`);
    case 'issue':
      return pyStrip(
        `<issue_start>username_0: ${instruction}\n\n\`\`\`${context}\`\`\`\nUpvotes: 100<issue_comment>username_1: Sure, here is the fixed code.\n\n\`\`\`${base}`,
      );
    default:
      return pyStrip(wrapPrompt(format, base, instruction, context));
  }
}
