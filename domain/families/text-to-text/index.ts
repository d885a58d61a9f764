/**
 * CodeXGLUE text-to-text (documentation translation, Microsoft docs), as bigcode-evaluation-harness's
 * `codexglue_text_to_text-<pair>` tasks run it (da_en, lv_en, no_en, zh_en): the test split of
 * Hugging Face's code_x_glue_tt_text_to_text (id, source, target), a two-shot prompt after
 * "Translate the following documentation from <Language> to English:", generation stopped at a
 * newline, the answer taken after the prompt's third "\nEnglish:\n" and stripped, and bigcode's
 * corpus BLEU (HF bleu: max order 4, smoothed, 13a tokens) of each task's first sample against the
 * row's target, stripped.
 */
import { z } from 'zod';
import type { Sourced } from '../../datasets/jsonl.js';
import type { SweepProblem } from '../../datasets/problems.js';
import type { LlmApi } from '../../llm/request.js';
import { pySplit, pyStrip } from '../../metrics/pythonText.js';
import { defineFamily } from '../define.js';
import { DatasetEntryNameSchema } from '../entry.js';
import { readsProblemsFiles } from '../evaluateOptions.js';
import { familyOptions, option } from '../familyOptions.js';
import { OneLineRowsFileSchema, oneLineFamily, oneLineProblems, oneLineRows, oneLineSolution } from '../oneLine.js';
import type { DefinedFamily, EvaluateSupport } from '../types.js';

/** bigcode's SOURCE_LANG: each task's suffix (the dataset's config) and the language it translates from. */
export const TEXT_TO_TEXT_LANGUAGES = { da_en: 'danish', zh_en: 'chinese', no_en: 'norwegian', lv_en: 'latvian' } as const;
export type TextToTextPair = keyof typeof TEXT_TO_TEXT_LANGUAGES;
export const TEXT_TO_TEXT_PAIRS = Object.keys(TEXT_TO_TEXT_LANGUAGES) as [TextToTextPair, ...TextToTextPair[]];

/** bigcode's few_shot_examples/codexglue_text_to_text_few_shot_prompts.json, by source language. */
export const TEXT_TO_TEXT_EXAMPLES: Record<
  (typeof TEXT_TO_TEXT_LANGUAGES)[TextToTextPair],
  { source1: string; target1: string; source2: string; target2: string }
> = {
  danish: {
    source1: '2 . Udfyld felterne i hvert trin i vejledningen . ',
    target1: '2 . Fill in the fields in each step of the guide . ',
    source2: '* Vise rapporter med finansposter og saldi . ',
    target2: '* View reports that show general ledger entries and balances . ',
  },
  chinese: {
    source1: '返回 与 筛选器 初始化 由 平台 的 MCDRemoteSystemPlatformFilter 对象 。 ',
    target1: 'Returns an MCDRemoteSystemPlatformFilter object initialized with a filter by platform . ',
    source2: '用于 将 本地 的 （ 调用 ） 应用 程序 可 见性 首选 项 设置 发现 远程 系统 时 的 类 。 ',
    target2: 'A class used to set the local ( calling ) application visibility preference when discovering remote systems .',
  },
  norwegian: {
    source1: 'Kosttypesaldo = Kostsentersaldo + Kostobjektsaldo ',
    target1: 'Cost Type Balance = Cost Center Balance + Cost Object Balance ',
    source2: '* Vise en liste over bokføringsgrupper som du posterer til kontoen . ',
    target2: '* See a list of posting groups that post to that account . ',
  },
  latvian: {
    source1:
      '# # &lt; a name = &quot; 6-change-the-status-of-the-conversion-record-to-ready &quot; &gt; &lt; / a &gt; 6 . Mainiet pārveidošanas ieraksta statusu uz Gatavs ',
    target1: '# # 6 . Change the status of the conversion record to Ready ',
    source2: 'title : Preču saņemšanas reģistrēšana pirkšanas pasūtījumā ',
    target2: 'title : Record the receipt of goods on the purchase order ',
  },
};

// As in the one-line tasks (oneLine.ts), bigcode's f-string is continued inside the literal: the
// continued lines' 19 spaces of indentation are in the prompt, before each "\n" after a text.
const PAD = ' '.repeat(19);
const ENGLISH = '\nEnglish:\n';

/** Python's str.title() on bigcode's lower-case language names (single ASCII words). */
const title = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** bigcode's get_prompt for the pair: its instruction, then two_shot_prompt, byte for byte. */
export function textToTextPrompt(pair: TextToTextPair, text: string): string {
  const language = TEXT_TO_TEXT_LANGUAGES[pair];
  const name = title(language);
  const ex = TEXT_TO_TEXT_EXAMPLES[language];
  return (
    `Translate the following documentation from ${name} to English:\n` +
    `\n${name}:\n${ex.source1}${PAD}${ENGLISH}${ex.target1}` +
    `${PAD}\n${name}:\n${ex.source2}${PAD}${ENGLISH}${ex.target2}` +
    `${PAD}\n${name}:\n${text}${PAD}${ENGLISH}`
  );
}

/** bigcode's postprocess_generation: the text after the third "\nEnglish:\n" (the prompt's last), stripped. */
export function afterThirdEnglish(generation: string): string {
  return pyStrip(pySplit(generation, ENGLISH, 3).at(-1)!);
}

/**
 * The translation a generation stands for. Completions: bigcode's post-processing of prompt +
 * completion (cut at the newline). Saved generations (bigcode's generations.json, already
 * post-processed, or raw prompt + completion): the same, on the text as saved. Chat answers
 * (bigcode has no chat mode): the answer's first non-blank line, stripped, the task being one line.
 */
export function textToTextSolution(problem: SweepProblem, api: LlmApi | 'saved', text: string): string {
  if (api === 'chat') return oneLineSolution(problem, api, text);
  return afterThirdEnglish(api === 'completions' ? problem.prompt + text : text);
}

/** bigcode's task `codexglue_text_to_text-<subset>`: the entry's `subset` and evaluate.ts's `--subset`. */
const TEXT_TO_TEXT_OPTIONS = familyOptions({
  /** The language pair (the dataset's config); the rows do not say it, so evaluate.ts needs it too. */
  subset: option(z.enum(TEXT_TO_TEXT_PAIRS, { error: `must be one of bigcode's pairs: ${TEXT_TO_TEXT_PAIRS.join(', ')}` }), {
    help: `bigcode's task subset, the suffix of its task name: the language pair, ${TEXT_TO_TEXT_PAIRS.join(', ')} (required)`,
    value: 'subset',
  }),
});

export const TextToTextEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('text-to-text'),
  /** One pair's test split (`<pair>/test-00000-of-00001.parquet`), JSON Lines or a JSON array; local or s3://. */
  path: OneLineRowsFileSchema,
  ...TEXT_TO_TEXT_OPTIONS.entry,
});

const RowSchema = z.looseObject({ source: z.string(), target: z.string() });

/** The problems of a pair's rows: ids `codexglue_text_to_text-<pair>/<index>`, bigcode's prompt, the target stripped (get_reference). */
export function textToTextProblems(text: string, pair: TextToTextPair, source: string): SweepProblem[] {
  const rows: Array<Sourced<{ prompt: string; reference: string }>> = oneLineRows(text, RowSchema, source).map(({ line, row }) => ({
    line,
    row: { prompt: textToTextPrompt(pair, row.source), reference: pyStrip(row.target) },
  }));
  return oneLineProblems('text-to-text', `codexglue_text_to_text-${pair}`, rows, source);
}

/** evaluate.ts's `--subset` (checked by its schema): the rows carry no language, so the pair must be named. */
function evaluatePair(subset: TextToTextPair | undefined): TextToTextPair {
  if (subset === undefined)
    throw new Error(`--subset: CodeXGLUE text-to-text rows do not say their language; name the pair (${TEXT_TO_TEXT_PAIRS.join(', ')})`);
  return subset;
}

const base = oneLineFamily({
  id: 'text-to-text',
  description: "CodeXGLUE text-to-text (bigcode's codexglue_text_to_text-*): documentation translated to English, BLEU-scored",
  entrySchema: TextToTextEntrySchema,
  // Nothing runs; the language only names a chat answer's fenced block.
  language: 'python',
  chatInstruction:
    'Translate the last documentation text below to English, as the examples do. Reply with the English translation only, on one line.',
  recognize: { rank: 48, test: (row) => 'source' in row && 'target' in row, fields: "CodeXGLUE text-to-text's id, source, target" },
  // Replaced below: the pair comes from the entry (or --subset), not from the rows.
  problems: () => [],
});

const evaluate: Extract<EvaluateSupport, { kind: 'reads' }> = readsProblemsFiles({
  recognize: { rank: 48, test: (row) => 'source' in row && 'target' in row, fields: "CodeXGLUE text-to-text's id, source, target" },
  // bigcode's codexglue_text_to_text-<pair>.
  bigcodeTasks: {
    names: 'codexglue_text_to_text-<da_en|lv_en|no_en|zh_en>',
    read: (task) => {
      const subset = /^codexglue_text_to_text-(.+)$/.exec(task)?.[1];
      return subset === undefined ? null : { options: { subset } };
    },
  },
  options: TEXT_TO_TEXT_OPTIONS.evaluate,
  // As the other one-line families: a sample is bigcode's saved generation (the prompt included, or the line alone).
  form: 'full',
  problems: ({ text, source, options }) => textToTextProblems(text, evaluatePair(options.subset), source),
});

export const textToTextFamily: DefinedFamily<'text-to-text', typeof TextToTextEntrySchema> = defineFamily({
  ...base,
  load: ({ entry, texts, sources }) => ({ problems: textToTextProblems(texts.rows!, entry.subset, sources.rows!), notes: [] }),
  solution: textToTextSolution,
  evaluate,
});
