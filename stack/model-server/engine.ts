/**
 * The model itself: llama.cpp through node-llama-cpp, on the CPU, from the prebuilt binary that npm
 * installed (`@node-llama-cpp/linux-x64`). Nothing is downloaded or built: `build: 'never'` and
 * `skipDownload: true` make a missing binary an error instead of a fetch.
 *
 * One context of `slots` sequences serves every generating request: the choices of all requests in
 * flight decode together, one batch per token (batcher.ts).
 *
 * Reproducibility: every choice gets a fresh sampler seeded with `seed + i`, and starts from the same
 * logits for the same prompt. On llama.cpp's CPU backend a sequence's logits are bit-identical
 * whatever else its batch holds and however many threads run it (measured for this model: the tests
 * check it), so the same request with the same seed gives the same text at any temperature, alone or
 * among others, and choice i of an n-choice request equals choice 0 of the same request with n = 1
 * and seed + i. A backend whose batched kernels round differently would lose that; `slots: 1` keeps
 * it there (docs/model.md).
 */
import { randomInt } from 'node:crypto';
import { statSync } from 'node:fs';
import { Template } from '@huggingface/jinja';
import {
  getLlama,
  LlamaLogLevel,
  type Llama,
  type LlamaContext,
  type LlamaEmbeddingContext,
  type LlamaModel,
  type Token,
} from 'node-llama-cpp';
import { Batcher, type BatcherStats, type Generation, type SamplingParams } from './batcher.js';
import { OtherCpuLoad, threadsFor } from './cpu-load.js';

export { firstStop, toSeed, type FinishReason, type GeneratedChoice, type Generation, type SamplingParams } from './batcher.js';

/**
 * Sequences decoded together by default. Each holds a KV cache for a whole context (for
 * Qwen2.5-Coder-0.5B at 8192 tokens: 96 MiB), so 8 slots take ~0.8 GiB; a decode step of 8 costs
 * about twice one of a single sequence on 2 cores (docs/benchmarks.md#model).
 */
export const DEFAULT_SLOTS = 8;

export interface EngineOptions {
  modelPath: string;
  /** Tokens of prompt plus completion one request may use (default: the model's, at most 8192). */
  contextSize?: number;
  /**
   * CPU threads for llama.cpp. A number is used for every step; 'auto' (the default) uses as many
   * of the machine's cores (at most `maxThreads`, default 2) as other processes leave free, chosen
   * per decode step. The thread count does not change the output.
   */
  threads?: number | 'auto';
  /** Ceiling for 'auto' (default 2: more rarely helps a model this small). */
  maxThreads?: number;
  /** Sequences decoded together, each with a cache of `contextSize` tokens (default DEFAULT_SLOTS). */
  slots?: number;
  /** Requests that may wait for a slot before generate() refuses with QueueFullError (default 32). */
  maxWaiting?: number;
  /** Where llama.cpp's warnings and errors go (default: dropped). */
  log?: (line: string) => void;
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

export function randomSeed(): number {
  return randomInt(0, UINT32 - 1);
}

export class Engine {
  private embeddingContext: Promise<LlamaEmbeddingContext> | null = null;
  private readonly template: Template | null;
  private readonly cpu: OtherCpuLoad | null;
  /** Threads llama.cpp was given for the latest decode step. */
  private lastThreads: number;
  private context: LlamaContext | null = null;
  private batcher: Batcher | null = null;

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
    this.lastThreads = maxThreads;
  }

  static async load(options: EngineOptions): Promise<Engine> {
    const fixed = typeof options.threads === 'number' ? options.threads : null;
    const maxThreads = fixed ?? options.maxThreads ?? 2;
    const slots = options.slots ?? DEFAULT_SLOTS;
    if (!Number.isInteger(slots) || slots < 1) throw new Error(`slots must be a positive integer, got ${slots}`);
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
        await engine.open(slots, options.maxWaiting ?? 32); // fails here, not at the first request, if the context cannot be made
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

  private async open(slots: number, maxWaiting: number): Promise<void> {
    const context = await this.model.createContext({
      contextSize: this.contextSize,
      sequences: slots,
      // The thread count is set per step through the llama's ceiling (applyThreads); min 1 lets it
      // drop to one thread when other processes take a core.
      threads: { ideal: this.maxThreads, min: this.fixedThreads ?? 1 },
      batching: {
        dispatchSchedule: (dispatch) => {
          this.applyThreads();
          setImmediate(dispatch);
        },
      },
    });
    this.context = context;
    const sequences = Array.from({ length: slots }, () => context.getSequence());
    this.batcher = new Batcher({ model: this.model, sequences, maxWaiting, threadsOfLastStep: () => this.lastThreads });
  }

  private applyThreads(): void {
    if (this.fixedThreads === null) this.llama.maxThreads = this.threadsNow();
    this.lastThreads = this.llama.maxThreads;
  }

  /** Threads for the next step (see EngineOptions.threads). */
  threadsNow(): number {
    return this.fixedThreads ?? threadsFor(this.cpu?.otherCores() ?? 0, this.maxThreads);
  }

  /** Whether any generation is under way, requests waiting for a slot, and the slots in use. */
  stats(): BatcherStats {
    return this.batcher!.stats();
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
   * Samples `n` choices for each prompt, batched with every other request in flight. Stops a
   * choice at the model's end-of-generation token, at the first stop sequence (cut off, as the API
   * does), or after maxTokens tokens. Throws QueueFullError when no slot is free and too many
   * requests wait, AbortedError when `signal` aborts, QueueClosedError once closing.
   */
  async generate(prompts: Token[][], params: SamplingParams, n: number, signal?: AbortSignal): Promise<Generation> {
    for (const prompt of prompts) {
      if (prompt.length === 0) throw new InvalidInputError('the prompt is empty', 'prompt');
      if (prompt.length + params.maxTokens > this.contextSize) {
        throw new InvalidInputError(
          `This model's maximum context length is ${this.contextSize} tokens. However, you requested ${prompt.length + params.maxTokens} tokens ` +
            `(${prompt.length} in the prompt, ${params.maxTokens} in the completion). Please reduce the length of the prompt or completion.`,
          'max_tokens',
          'context_length_exceeded',
        );
      }
    }
    return this.batcher!.submit(prompts, params, n, signal);
  }

  /**
   * The model's embedding of a text (llama.cpp's pooling for this model; for a chat model without a
   * pooling type that is the last token's hidden state — usable, but not a trained embedding model).
   * Callers run one at a time (the server's queue); it runs beside the generating requests.
   */
  async embed(text: string): Promise<{ vector: number[]; tokens: number }> {
    if (!this.embeddingContext) {
      // Its thread count is fixed when it is made, capped by the ceiling the steps move (applyThreads).
      this.llama.maxThreads = this.maxThreads;
      this.embeddingContext = this.model.createEmbeddingContext({
        contextSize: Math.min(EMBEDDING_CONTEXT, this.contextSize),
        threads: this.maxThreads,
      });
    }
    const context = await this.embeddingContext;
    const tokens = this.tokenize(text);
    if (tokens.length === 0) throw new InvalidInputError('the input is empty', 'input');
    if (tokens.length >= context.model.trainContextSize || tokens.length >= Math.min(EMBEDDING_CONTEXT, this.contextSize)) {
      throw new InvalidInputError(
        `the input has ${tokens.length} tokens; embeddings take at most ${Math.min(EMBEDDING_CONTEXT, this.contextSize) - 1}`,
        'input',
        'context_length_exceeded',
      );
    }
    const embedding = await context.getEmbeddingFor(tokens);
    return { vector: [...embedding.vector], tokens: tokens.length };
  }

  get embeddingSize(): number {
    return this.model.embeddingVectorSize;
  }

  /** Refuses new requests, fails the ones in flight (QueueClosedError), and waits for their steps to end. */
  async drain(): Promise<void> {
    await this.batcher?.close();
  }

  /** drain(), then frees the model. */
  async close(): Promise<void> {
    await this.drain();
    this.cpu?.stop();
    if (this.embeddingContext) await (await this.embeddingContext.catch(() => null))?.dispose();
    await this.context?.dispose();
    await this.model.dispose();
    await this.llama.dispose();
  }
}
