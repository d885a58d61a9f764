/**
 * Fill-in-the-middle (FIM) prompts for completion models trained with FIM tokens: the model reads
 * the text before the gap and the text after it, each behind its token, and writes the middle.
 * Laid out prefix-suffix-middle, as bigcode's harness does (`_make_infill_prompt` in
 * bigcode_eval/utils.py, and santacoder_fim.py's get_prompt):
 * `<prefix token> + preprefix + prefix + <suffix token> + suffix + <middle token>`.
 * The tokens differ by model family; a sweep config names them per model (`models[i].fim`), as a
 * preset or as explicit strings. The server must read them as special tokens (llama.cpp's server and
 * the embedded one do: they tokenize prompts with special tokens parsed).
 */
import { z } from 'zod';

export interface FimTokens {
  prefix: string;
  suffix: string;
  middle: string;
}

/** The FIM tokens of the model families that have them, by the name a config gives. */
export const FIM_PRESETS = {
  /** StarCoder, StarCoderBase, StarCoder2 (bigcode's starcoder_fim task). */
  starcoder: { prefix: '<fim_prefix>', suffix: '<fim_suffix>', middle: '<fim_middle>' },
  /** SantaCoder (bigcode's santacoder_fim task). */
  santacoder: { prefix: '<fim-prefix>', suffix: '<fim-suffix>', middle: '<fim-middle>' },
  /** Qwen2.5-Coder (the embedded model). */
  'qwen2.5-coder': { prefix: '<|fim_prefix|>', suffix: '<|fim_suffix|>', middle: '<|fim_middle|>' },
} as const satisfies Record<string, FimTokens>;
export type FimPresetName = keyof typeof FIM_PRESETS;
const PRESET_NAMES = Object.keys(FIM_PRESETS) as [FimPresetName, ...FimPresetName[]];

const token = z.string().min(1, 'must not be empty');

/**
 * A model's `fim:` in a sweep config: a preset's name, or the three tokens. Resolved to the tokens,
 * so a resolved config says exactly what its requests carry.
 */
export const FimTokensSchema = z.union(
  [
    z.enum(PRESET_NAMES).transform((name): FimTokens => ({ ...FIM_PRESETS[name] })),
    z.strictObject({ prefix: token, suffix: token, middle: token }),
  ],
  { error: `must be one of ${PRESET_NAMES.join(', ')}, or {prefix, suffix, middle}: the model's FIM tokens` },
);

/** The parts of a fill-in-the-middle task's prompt: the text before the gap and the text after it. */
export interface InfillParts {
  prefix: string;
  suffix: string;
}

/** The FIM prompt of `parts` with `tokens`; `preprefix` (bigcode's --prefix) goes after the prefix token, as bigcode puts it. */
export function fimPrompt(tokens: FimTokens, parts: InfillParts, preprefix = ''): string {
  return `${tokens.prefix}${preprefix}${parts.prefix}${tokens.suffix}${parts.suffix}${tokens.middle}`;
}

/** What a config must say for a model to take fill-in-the-middle tasks (for refusals). */
export const FIM_FIELD_HINT = `give the model api: completions and fim: ${PRESET_NAMES.join(' | ')} (or fim: {prefix, suffix, middle}, its FIM tokens)`;
