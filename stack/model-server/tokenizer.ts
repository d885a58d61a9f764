/**
 * The embedded model's own tokenizer, without its server: the GGUF's vocabulary alone (node-llama-cpp's
 * `vocabOnly`, no weights, ~2 s on a loaded 2-core machine) and its chat template, so `start-sweep
 * --dry-run` counts a sweep's prompt tokens as the server will (engine.ts: same template, same
 * tokenization, BOS as llama.cpp's server adds it).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Template } from '@huggingface/jinja';
import { getLlama, LlamaLogLevel, type Llama, type LlamaModel } from 'node-llama-cpp';
import { modelDir, modelIdFor } from './location.js';

export interface ModelTokenizer {
  /** The GGUF it was read from. */
  readonly file: string;
  /** Tokens of a completion prompt. */
  completionTokens(prompt: string): number;
  /** Tokens of a chat rendered with the model's chat template and its generation prompt; null without a template. */
  chatTokens(messages: Array<{ role: string; content: string }>): number | null;
  close(): Promise<void>;
}

/**
 * The GGUF a config's `model` names, if explora has it: `<tools>/model/<model>.gguf` (install-model.sh)
 * or EXPLORA_MODEL_PATH when its file name is the model's (modelIdFor: what the server serves it as).
 */
export function localModelFile(model: string, env: Record<string, string | undefined> = process.env): string | null {
  const candidates = [path.join(modelDir(env), `${model}.gguf`)];
  if (env.EXPLORA_MODEL_PATH && modelIdFor(env.EXPLORA_MODEL_PATH) === model) candidates.unshift(path.resolve(env.EXPLORA_MODEL_PATH));
  return candidates.find((f) => !model.includes('/') && existsSync(f)) ?? null;
}

/** Opens the tokenizer of a GGUF file (vocabulary only). One process should keep one llama at a time. */
export async function openModelTokenizer(file: string): Promise<ModelTokenizer> {
  const llama: Llama = await getLlama({
    gpu: false,
    build: 'never',
    skipDownload: true,
    usePrebuiltBinaries: true,
    progressLogs: false,
    logLevel: LlamaLogLevel.error,
  });
  let model: LlamaModel;
  try {
    model = await llama.loadModel({ modelPath: file, vocabOnly: true, gpuLayers: 0 });
  } catch (err) {
    await llama.dispose();
    throw err;
  }
  const source = (model.fileInfo.metadata.tokenizer as { chat_template?: unknown } | undefined)?.chat_template;
  const template = typeof source === 'string' && source.trim() !== '' ? new Template(source) : null;
  // As engine.ts's tokenize: special tokens in the text parsed, BOS added when the model wants one.
  const count = (text: string) => {
    const tokens = model.tokenize(text, true);
    const bos = model.tokens.bos;
    return tokens.length + (model.tokens.shouldPrependBosToken && bos !== null && tokens[0] !== bos ? 1 : 0);
  };
  return {
    file,
    completionTokens: count,
    chatTokens: (messages) =>
      template
        ? count(
            template.render({
              messages,
              add_generation_prompt: true,
              bos_token: model.tokens.bosString ?? '',
              eos_token: model.tokens.eosString ?? '',
            }),
          )
        : null,
    close: async () => {
      await model.dispose();
      await llama.dispose();
    },
  };
}
