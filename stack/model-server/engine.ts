/**
 * The model itself: llama.cpp through node-llama-cpp, on the CPU, from the prebuilt binary that npm
 * installed (`@node-llama-cpp/linux-x64`). Nothing is downloaded or built: `build: 'never'` and
 * `skipDownload: true` make a missing binary an error instead of a fetch.
 *
 * Reproducibility: a request is decoded alone (the queue runs one job at a time), from an empty
 * sequence, with the same batching for the same prompt, and every choice gets a fresh sampler seeded
 * with `seed + i`. So the same request with the same seed gives the same text at any temperature,
 * and choice i of an n-choice request equals choice 0 of the same request with n = 1 and seed + i.
 * The prompt is evaluated once per request; each choice then re-evaluates only the prompt's last
 * token into the same cache slot, so every choice starts from the same logits.
 */
import { randomInt } from 'node:crypto';
import { statSync } from 'node:fs';
import { Template } from '@huggingface/jinja';
import {
  getLlama,
  LlamaLogLevel,
  type Llama,
  type LlamaContext,
  type LlamaContextSequence,
  type LlamaEmbeddingContext,
  type LlamaModel,
  type Token,
} from 'node-llama-cpp';
import { OtherCpuLoad, threadsFor } from './cpu-load.js';
import { AbortedError } from './queue.js';

export interface EngineOptions {
  modelPath: string;
  /** Tokens of prompt plus completion one request may use (default: the model's, at most 8192). */
  contextSize?: number;
  /**
   * CPU threads for llama.cpp. A number is used for every request; 'auto' (the default) uses as
   * many of the machine's cores (at most `maxThreads`, default 2) as other processes leave free,
   * chosen per request. The thread count does not change the output.
   */
  threads?: number | 'auto';
  /** Ceiling for 'auto' (default 2: more rarely helps a model this small). */
  maxThreads?: number;
  /** Where llama.cpp's warnings and errors go (default: dropped). */
  log?: (line: string) => void;
}

export interface SamplingParams {
  /** 0 is greedy decoding. */
  temperature: number;
  topP: number;
  maxTokens: number;
  stop: string[];
  /** Seed of choice 0 (choice i uses seed + i, modulo 2^32). */
  seed: number;
}

export type FinishReason = 'stop' | 'length';

export interface GeneratedChoice {
  text: string;
  finishReason: FinishReason;
  /** Tokens sampled for this choice, the end-of-generation token included when one ended it. */
  completionTokens: number;
}

export interface Generation {
  choices: GeneratedChoice[];
  promptTokens: number;
  /** Time to evaluate the prompt, and to sample every choice. */
  promptMs: number;
  generationMs: number;
  /** llama.cpp threads this request ran with. */
  threads: number;
}

export interface ChatTurn {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The request does not fit the model (too long for the context, no chat template): the client's fault. */
export class InvalidInputError extends Error {
  constructor(
    message: string,
    readonly param: string,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

const MAX_DEFAULT_CONTEXT = 8192;
const EMBEDDING_CONTEXT = 2048;
const UINT32 = 2 ** 32;

/** Any integer as a sampler seed (uint32). */
export function toSeed(value: number): number {
  return ((value % UINT32) + UINT32) % UINT32;
}

export function randomSeed(): number {
  return randomInt(0, UINT32 - 1);
}

interface Slot {
  context: LlamaContext;
  sequence: LlamaContextSequence;
}

export class Engine {
  private embeddingContext: Promise<LlamaEmbeddingContext> | null = null;
  private readonly template: Template | null;
  /** One context per thread count in use (llama.cpp fixes a context's threads), made on demand. */
  private readonly slots = new Map<number, Promise<Slot>>();
  private readonly cpu: OtherCpuLoad | null;

  private constructor(
    private readonly llama: Llama,
    readonly model: LlamaModel,
    readonly contextSize: number,
    /** A fixed thread count, or null for 'auto'. */
    private readonly fixedThreads: number | null,
    private readonly maxThreads: number,
    readonly modelPath: string,
    readonly createdAt: number,
    log: (line: string) => void,
  ) {
    const source = (model.fileInfo.metadata.tokenizer as { chat_template?: unknown } | undefined)?.chat_template;
    let template: Template | null = null;
    if (typeof source === 'string' && source.trim() !== '') {
      try {
        template = new Template(source);
      } catch (err) {
        log(`the model's chat template does not parse (${(err as Error).message}); /v1/chat/completions will answer 400`);
      }
    }
    this.template = template;
    this.cpu = fixedThreads === null ? new OtherCpuLoad() : null;
  }

  static async load(options: EngineOptions): Promise<Engine> {
    const fixed = typeof options.threads === 'number' ? options.threads : null;
    const maxThreads = fixed ?? options.maxThreads ?? 2;
    const log = options.log ?? (() => {});
    const llama = await getLlama({
      gpu: false,
      build: 'never',
      skipDownload: true,
      usePrebuiltBinaries: true,
      progressLogs: false,
      maxThreads,
      logLevel: LlamaLogLevel.warn,
      logger: (level, message) => {
        const text = message.trim();
        if (text) log(`llama.cpp ${level}: ${text}`);
      },
    });
    try {
      const model = await llama.loadModel({ modelPath: options.modelPath, gpuLayers: 0 });
      const contextSize = options.contextSize ?? Math.min(model.trainContextSize, MAX_DEFAULT_CONTEXT);
      const createdAt = Math.floor(statSync(options.modelPath).mtimeMs / 1000);
      const engine = new Engine(llama, model, contextSize, fixed, maxThreads, options.modelPath, createdAt, log);
      try {
        await engine.slot(maxThreads); // fails here, not at the first request, if the context cannot be made
      } catch (err) {
        engine.cpu?.stop();
        throw err;
      }
      return engine;
    } catch (err) {
      await llama.dispose();
      throw err;
    }
  }

  private slot(threads: number): Promise<Slot> {
    let slot = this.slots.get(threads);
    if (!slot) {
      slot = this.model.createContext({ contextSize: this.contextSize, sequences: 1, threads: { ideal: threads, min: threads } }).then((context) => ({ context, sequence: context.getSequence() }));
      this.slots.set(threads, slot);
      slot.catch(() => this.slots.delete(threads));
    }
    return slot;
  }

  /** Threads for the next request (see EngineOptions.threads). */
  threadsNow(): number {
    return this.fixedThreads ?? threadsFor(this.cpu?.otherCores() ?? 0, this.maxThreads);
  }

  /** `general.name` from the GGUF, e.g. "Qwen2.5 Coder 0.5B Instruct AWQ". */
  get displayName(): string {
    const name = (this.model.fileInfo.metadata.general as { name?: unknown } | undefined)?.name;
    return typeof name === 'string' ? name : '';
  }

  get hasChatTemplate(): boolean {
    return this.template !== null;
  }

  /** The model's own chat template (from the GGUF), rendered with a generation prompt. */
  renderChat(messages: ChatTurn[]): string {
    if (!this.template) throw new InvalidInputError('this model has no chat template; use /v1/completions', 'messages');
    try {
      return this.template.render({
        messages,
        add_generation_prompt: true,
        bos_token: this.model.tokens.bosString ?? '',
        eos_token: this.model.tokens.eosString ?? '',
      });
    } catch (err) {
      // Templates refuse some conversations on purpose (raise_exception), e.g. roles out of order.
      throw new InvalidInputError(`the model's chat template rejected these messages: ${(err as Error).message}`, 'messages');
    }
  }

  /** Text to tokens as llama.cpp's server does: special tokens in the text are parsed, BOS added if the model wants one. */
  tokenize(text: string): Token[] {
    const tokens = this.model.tokenize(text, true);
    const bos = this.model.tokens.bos;
    if (this.model.tokens.shouldPrependBosToken && bos !== null && tokens[0] !== bos) tokens.unshift(bos);
    return tokens;
  }

  /** Largest max_tokens a prompt of this many tokens leaves room for. */
  roomFor(promptTokens: number): number {
    return this.contextSize - promptTokens;
  }

  /**
   * Samples `n` choices for one prompt. The caller must hold the queue (one job at a time).
   * Stops at the model's end-of-generation token, at the first stop sequence (cut off, as the API
   * does), or after maxTokens tokens.
   */
  async generate(prompt: Token[], params: SamplingParams, n: number, signal?: AbortSignal): Promise<Generation> {
    if (prompt.length === 0) throw new InvalidInputError('the prompt is empty', 'prompt');
    if (prompt.length + params.maxTokens > this.contextSize) {
      throw new InvalidInputError(
        `This model's maximum context length is ${this.contextSize} tokens. However, you requested ${prompt.length + params.maxTokens} tokens ` +
          `(${prompt.length} in the prompt, ${params.maxTokens} in the completion). Please reduce the length of the prompt or completion.`,
        'max_tokens',
        'context_length_exceeded',
      );
    }
    const threads = this.threadsNow();
    const seq = (await this.slot(threads)).sequence;
    const started = Date.now();
    await seq.clearHistory();
    const prefix = prompt.slice(0, -1);
    const last = prompt[prompt.length - 1]!;
    if (prefix.length > 0) await seq.evaluateWithoutGeneratingNewTokens(prefix);
    const promptMs = Date.now() - started;
    const choices: GeneratedChoice[] = [];
    const maxStop = Math.max(0, ...params.stop.map((s) => s.length));
    for (let i = 0; i < n; i++) {
      if (signal?.aborted) throw new AbortedError();
      if (seq.nextTokenIndex > prefix.length) await seq.eraseContextTokenRanges([{ start: prefix.length, end: seq.nextTokenIndex }]);
      const tokens: Token[] = [];
      let finishReason: FinishReason = 'length';
      let text: string | null = null;
      let searchedTo = 0;
      const iterator = seq.evaluate([last], {
        temperature: params.temperature,
        topP: params.topP,
        // The API has no top-k and no min-p: both off. node-llama-cpp defaults an undefined topK to
        // 40 but drops a null one, which leaves the top-k sampler out of the chain (topK: 0 would
        // keep it, sorting the whole vocabulary at every token for nothing).
        topK: null as unknown as number,
        minP: 0,
        seed: toSeed(params.seed + i),
        yieldEogToken: true,
      });
      try {
        for await (const token of iterator) {
          tokens.push(token);
          if (this.model.isEogToken(token)) {
            finishReason = 'stop';
            text = this.model.detokenize(tokens.slice(0, -1));
            break;
          }
          if (maxStop > 0) {
            const sofar = this.model.detokenize(tokens);
            // A new match ends past what was searched; a few characters more, since the text's
            // tail can change when a multi-byte character completes.
            const from = Math.max(0, searchedTo - maxStop - 4);
            const cut = firstStop(sofar, params.stop, from);
            if (cut !== null) {
              finishReason = 'stop';
              text = sofar.slice(0, cut);
              break;
            }
            searchedTo = sofar.length;
          }
          if (tokens.length >= params.maxTokens) break;
          if (signal?.aborted) throw new AbortedError();
        }
      } finally {
        await iterator.return(undefined);
      }
      choices.push({ text: text ?? this.model.detokenize(tokens), finishReason, completionTokens: tokens.length });
    }
    return { choices, promptTokens: prompt.length, promptMs, generationMs: Date.now() - started - promptMs, threads };
  }

  /**
   * The model's embedding of a text (llama.cpp's pooling for this model; for a chat model without a
   * pooling type that is the last token's hidden state — usable, but not a trained embedding model).
   * The caller must hold the queue.
   */
  async embed(text: string): Promise<{ vector: number[]; tokens: number }> {
    this.embeddingContext ??= this.model.createEmbeddingContext({ contextSize: Math.min(EMBEDDING_CONTEXT, this.contextSize), threads: this.maxThreads });
    const context = await this.embeddingContext;
    const tokens = this.tokenize(text);
    if (tokens.length === 0) throw new InvalidInputError('the input is empty', 'input');
    if (tokens.length >= context.model.trainContextSize || tokens.length >= Math.min(EMBEDDING_CONTEXT, this.contextSize)) {
      throw new InvalidInputError(`the input has ${tokens.length} tokens; embeddings take at most ${Math.min(EMBEDDING_CONTEXT, this.contextSize) - 1}`, 'input', 'context_length_exceeded');
    }
    const embedding = await context.getEmbeddingFor(tokens);
    return { vector: [...embedding.vector], tokens: tokens.length };
  }

  get embeddingSize(): number {
    return this.model.embeddingVectorSize;
  }

  async close(): Promise<void> {
    this.cpu?.stop();
    if (this.embeddingContext) await (await this.embeddingContext.catch(() => null))?.dispose();
    for (const slot of this.slots.values()) await (await slot.catch(() => null))?.context.dispose();
    await this.model.dispose();
    await this.llama.dispose();
  }
}

/** Index where the earliest stop sequence starts in `text` at or after `from`, or null. */
export function firstStop(text: string, stops: string[], from: number): number | null {
  let best: number | null = null;
  for (const stop of stops) {
    const at = text.indexOf(stop, from);
    if (at >= 0 && (best === null || at < best)) best = at;
  }
  return best;
}
