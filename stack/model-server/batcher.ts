/**
 * Continuous batching over the sequences ("slots") of one llama.cpp context. Every choice of every
 * request in flight holds a slot; at each step all of them decode one token together, in one batch
 * (on a CPU a decode step is bound by reading the weights, once per step whatever the batch holds,
 * so k sequences cost far less than k steps). A choice that ends frees its slot at once, and the
 * next waiting choice, of this request or a later one, takes it.
 *
 * Steps are lock-step: no choice asks for its next token before every choice of the step has its
 * current one. node-llama-cpp batches whatever is queued when it dispatches, and left to themselves
 * the sequences drift apart (measured: 8 sequences decoded in batches of 7, 6, 4 and 1).
 *
 * A request's prompt is evaluated once: the first of its choices to get a slot evaluates it (reusing
 * whatever leading part of it a free slot still holds from an earlier request), and the others copy
 * that slot's cache. Each choice then evaluates the prompt's last token itself, so every choice
 * starts from the same logits, with a sampler of its own seeded with `seed + i`.
 */
import type { LlamaContextSequence, LlamaModel, Token } from 'node-llama-cpp';
import { AbortedError, QueueClosedError, QueueFullError } from './queue.js';

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
  /** Per prompt of the request, in order: its n choices. */
  prompts: Array<{ promptTokens: number; choices: GeneratedChoice[] }>;
  /** From arrival to the first slot. */
  queueMs: number;
  /** Evaluating the prompts (not the time copies of an evaluated prompt took). */
  promptMs: number;
  /** From the first slot to the last token, prompt evaluation excluded. */
  generationMs: number;
  /** From arrival to the first token sampled (of any choice). */
  firstTokenMs: number;
  /** Most llama.cpp threads a step of this request ran with. */
  threads: number;
}

export interface BatcherOptions {
  model: LlamaModel;
  /** One per slot, all from one context. */
  sequences: LlamaContextSequence[];
  /** Requests (none of whose choices has a slot yet) that may wait before submit() refuses. */
  maxWaiting: number;
  /** llama.cpp threads the latest step was given. */
  threadsOfLastStep: () => number;
}

export interface BatcherStats {
  /** Whether any choice holds a slot. */
  running: boolean;
  /** Requests none of whose choices has a slot yet. */
  waiting: number;
  slots: number;
  /** Slots held by a choice, preparing its prompt or generating. */
  busySlots: number;
  /** Choices past their prompt, sampling tokens. */
  generating: number;
}

const UINT32 = 2 ** 32;

/** Any integer as a sampler seed (uint32). */
export function toSeed(value: number): number {
  return ((value % UINT32) + UINT32) % UINT32;
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

/** One choice's tokens so far, and whether the latest one ends it (end of generation, stop sequence, max_tokens). */
class ChoiceText {
  private readonly tokens: Token[] = [];
  private readonly maxStop: number;
  private searchedTo = 0;

  constructor(
    private readonly model: LlamaModel,
    private readonly maxTokens: number,
    private readonly stops: string[],
  ) {
    this.maxStop = Math.max(0, ...stops.map((s) => s.length));
  }

  /** Takes the next sampled token: the finished choice, or null to go on. */
  push(token: Token): GeneratedChoice | null {
    const tokens = this.tokens;
    tokens.push(token);
    if (this.model.isEogToken(token))
      return { text: this.model.detokenize(tokens.slice(0, -1)), finishReason: 'stop', completionTokens: tokens.length };
    if (this.maxStop > 0) {
      const sofar = this.model.detokenize(tokens);
      // A new match ends past what was searched; a few characters more, since the text's tail can
      // change when a multi-byte character completes.
      const cut = firstStop(sofar, this.stops, Math.max(0, this.searchedTo - this.maxStop - 4));
      if (cut !== null) return { text: sofar.slice(0, cut), finishReason: 'stop', completionTokens: tokens.length };
      this.searchedTo = sofar.length;
    }
    if (tokens.length >= this.maxTokens) return this.end();
    return null;
  }

  /** The choice as it stands, cut off by length. */
  end(): GeneratedChoice {
    return { text: this.model.detokenize(this.tokens), finishReason: 'length', completionTokens: this.tokens.length };
  }
}

interface Slot {
  readonly sequence: LlamaContextSequence;
  /** Settles when the generator of the slot's previous choice is closed. */
  closing: Promise<void>;
}

/** The slot that evaluated one prompt of a request, which the prompt's other choices copy. */
interface PromptSource {
  sequence: LlamaContextSequence;
  ready: Promise<void>;
}

interface Choice {
  readonly job: Job;
  readonly prompt: number;
  readonly index: number;
  /** The prompt but its last token, which each choice evaluates itself. */
  readonly prefix: Token[];
  readonly last: Token;
  readonly seed: number;
  readonly text: ChoiceText;
  slot: Slot | null;
  tokens: AsyncGenerator<Token, void, void | Token | Token[]> | null;
}

class Job {
  readonly submittedAt = Date.now();
  startedAt: number | null = null;
  firstTokenAt: number | null = null;
  promptMs = 0;
  threads = 0;
  settled = false;
  remaining: number;
  readonly results: GeneratedChoice[][];
  readonly sources = new Map<number, PromptSource>();
  readonly done: Promise<Generation>;
  resolve!: (g: Generation) => void;
  reject!: (err: Error) => void;

  constructor(
    readonly prompts: Token[][],
    readonly params: SamplingParams,
    readonly n: number,
  ) {
    this.remaining = prompts.length * n;
    this.results = prompts.map(() => []);
    this.done = new Promise<Generation>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  result(): Generation {
    const now = Date.now();
    const started = this.startedAt ?? now;
    return {
      prompts: this.prompts.map((p, i) => ({ promptTokens: p.length, choices: this.results[i]! })),
      queueMs: started - this.submittedAt,
      promptMs: this.promptMs,
      generationMs: Math.max(0, now - started - this.promptMs),
      firstTokenMs: (this.firstTokenAt ?? now) - this.submittedAt,
      threads: this.threads,
    };
  }
}

/** Whether a sequence's cache begins with `tokens`. */
function holds(sequence: LlamaContextSequence, tokens: Token[]): boolean {
  return sequence.compareContextTokens(tokens).firstDifferentIndex >= tokens.length;
}

/** Tokens `tokens` and the sequence's cache have in common at the start. */
function common(sequence: LlamaContextSequence, tokens: Token[]): number {
  return Math.min(tokens.length, sequence.compareContextTokens(tokens).firstDifferentIndex);
}

/**
 * Copies another sequence's cache up to `length` tokens. node-llama-cpp does this for its own
 * decision contexts but does not export it (3.22.1); false when it is missing or fails, and the
 * caller evaluates the prompt instead.
 */
async function copyCache(target: LlamaContextSequence, source: LlamaContextSequence, length: number): Promise<boolean> {
  const copy = (target as unknown as { _copyStateFromOtherSequence?: (other: LlamaContextSequence, upTo: number) => Promise<boolean> })
    ._copyStateFromOtherSequence;
  if (typeof copy !== 'function') return false;
  try {
    return (await copy.call(target, source, length)) === true;
  } catch {
    return false;
  }
}

export class Batcher {
  private readonly model: LlamaModel;
  private readonly slotCount: number;
  /** Free slots, least recently used first. */
  private readonly free: Slot[];
  /** Choices waiting for a slot, first come first served. */
  private readonly waiting: Choice[] = [];
  private readonly decoding = new Set<Choice>();
  private preparing = 0;
  /** Requests none of whose choices has a slot yet. */
  private readonly unstarted = new Set<Job>();
  /** Requests not yet answered or failed. */
  private readonly inFlight = new Set<Job>();
  private stepping = false;
  private closed = false;
  /** Exponential moving average of request durations, for Retry-After. */
  private avgJobMs = 5_000;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly options: BatcherOptions) {
    this.model = options.model;
    this.slotCount = options.sequences.length;
    this.free = options.sequences.map((sequence) => ({ sequence, closing: Promise.resolve() }));
  }

  stats(): BatcherStats {
    return {
      running: this.decoding.size + this.preparing > 0,
      waiting: this.unstarted.size,
      slots: this.slotCount,
      busySlots: this.slotCount - this.free.length,
      generating: this.decoding.size,
    };
  }

  /**
   * Samples `n` choices for each prompt (each non-empty and fitting a slot with its max_tokens: the
   * caller checks). Refuses at once (QueueFullError) when no slot is free and `maxWaiting` requests
   * already wait; a request whose signal aborts fails with AbortedError, and its slots go to others.
   */
  submit(prompts: Token[][], params: SamplingParams, n: number, signal?: AbortSignal): Promise<Generation> {
    if (this.closed) return Promise.reject(new QueueClosedError());
    if (signal?.aborted) return Promise.reject(new AbortedError());
    if (this.free.length === 0 && this.unstarted.size >= this.options.maxWaiting) {
      const waiting = this.unstarted.size;
      const retryAfterS = Math.max(1, Math.ceil(((waiting + 1) * this.avgJobMs) / this.slotCount / 1000));
      return Promise.reject(new QueueFullError(waiting, retryAfterS));
    }
    const job = new Job(prompts, params, n);
    prompts.forEach((prompt, p) => {
      for (let i = 0; i < n; i++) {
        this.waiting.push({
          job,
          prompt: p,
          index: i,
          prefix: prompt.slice(0, -1),
          last: prompt[prompt.length - 1]!,
          seed: toSeed(params.seed + i),
          text: new ChoiceText(this.model, params.maxTokens, params.stop),
          slot: null,
          tokens: null,
        });
      }
    });
    this.unstarted.add(job);
    this.inFlight.add(job);
    if (signal) {
      const onAbort = () => this.fail(job, new AbortedError());
      signal.addEventListener('abort', onAbort, { once: true });
      void job.done.then(
        () => signal.removeEventListener('abort', onAbort),
        () => signal.removeEventListener('abort', onAbort),
      );
    }
    this.admit();
    return job.done;
  }

  /** Refuses new requests, fails the ones in flight, and resolves when no slot is busy. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of [...this.inFlight]) this.fail(job, new QueueClosedError());
    while (this.decoding.size + this.preparing > 0 || this.stepping) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    await Promise.all(this.free.map((s) => s.closing));
  }

  private fail(job: Job, err: Error): void {
    if (job.settled) return;
    job.settled = true;
    this.unstarted.delete(job);
    this.inFlight.delete(job);
    for (let i = this.waiting.length - 1; i >= 0; i--) if (this.waiting[i]!.job === job) this.waiting.splice(i, 1);
    job.reject(err);
    // Its decoding choices leave at the end of the current step, its preparing ones when ready.
  }

  private complete(choice: Choice, result: GeneratedChoice): void {
    const job = choice.job;
    job.results[choice.prompt]![choice.index] = result;
    job.remaining--;
    if (job.remaining === 0) {
      job.settled = true;
      this.inFlight.delete(job);
      this.avgJobMs = 0.7 * this.avgJobMs + 0.3 * (Date.now() - job.submittedAt);
      job.resolve(job.result());
    }
  }

  /** Gives free slots to waiting choices. */
  private admit(): void {
    while (this.free.length > 0 && this.waiting.length > 0) {
      const choice = this.waiting.shift()!;
      if (choice.job.settled) continue;
      this.start(choice, this.takeSlot(choice.prefix));
    }
  }

  /** The free slot whose cache shares the longest start with `prefix`; else the least recently used. */
  private takeSlot(prefix: Token[]): Slot {
    let best = 0;
    let bestLength = -1;
    this.free.forEach((slot, i) => {
      const length = prefix.length === 0 ? 0 : common(slot.sequence, prefix);
      if (length > bestLength) {
        best = i;
        bestLength = length;
      }
    });
    return this.free.splice(best, 1)[0]!;
  }

  private release(slot: Slot): void {
    this.free.push(slot);
    this.admit();
    this.notifyIdle();
  }

  private notifyIdle(): void {
    if (this.decoding.size + this.preparing > 0 || this.stepping) return;
    for (const wake of this.idleWaiters.splice(0)) wake();
  }

  private start(choice: Choice, slot: Slot): void {
    const job = choice.job;
    if (job.startedAt === null) {
      job.startedAt = Date.now();
      this.unstarted.delete(job);
    }
    choice.slot = slot;
    this.preparing++;
    // Who evaluates the prompt is decided here, synchronously, so that the choices admitted together
    // find the one source among them.
    const source = job.sources.get(choice.prompt);
    let ready: Promise<void>;
    if (!source) {
      ready = this.evaluatePrompt(job, slot, choice.prefix);
      job.sources.set(choice.prompt, { sequence: slot.sequence, ready });
    } else {
      ready = this.copyPrompt(job, slot, choice.prefix, source);
    }
    ready.then(
      () => {
        this.preparing--;
        if (job.settled) return this.release(slot);
        choice.tokens = slot.sequence.evaluate([choice.last], {
          temperature: job.params.temperature,
          topP: job.params.topP,
          // The API has no top-k and no min-p: both off. node-llama-cpp defaults an undefined topK to
          // 40 but drops a null one, which leaves the top-k sampler out of the chain (topK: 0 would
          // keep it, sorting the whole vocabulary at every token for nothing).
          topK: null as unknown as number,
          minP: 0,
          seed: choice.seed,
          yieldEogToken: true,
        });
        this.decoding.add(choice);
        this.step();
      },
      (err: unknown) => {
        this.preparing--;
        this.fail(job, err instanceof Error ? err : new Error(String(err)));
        this.release(slot);
      },
    );
  }

  /** Puts `prefix` in the slot's cache, keeping what it already holds of it. */
  private async evaluatePrompt(job: Job, slot: Slot, prefix: Token[]): Promise<void> {
    await slot.closing;
    const sequence = slot.sequence;
    const keep = common(sequence, prefix);
    if (sequence.nextTokenIndex > keep) await sequence.eraseContextTokenRanges([{ start: keep, end: sequence.nextTokenIndex }]);
    if (keep < prefix.length) {
      const started = Date.now();
      await sequence.evaluateWithoutGeneratingNewTokens(prefix.slice(keep));
      job.promptMs += Date.now() - started;
    }
  }

  /** Copies `prefix` from the slot that evaluated it, or evaluates it when that slot no longer holds it. */
  private async copyPrompt(job: Job, slot: Slot, prefix: Token[], source: PromptSource): Promise<void> {
    await slot.closing;
    const sequence = slot.sequence;
    if (!holds(sequence, prefix)) {
      await source.ready.catch(() => undefined);
      const copied =
        source.sequence !== sequence &&
        holds(source.sequence, prefix) &&
        (await copyCache(sequence, source.sequence, prefix.length)) &&
        holds(sequence, prefix);
      if (!copied) return this.evaluatePrompt(job, slot, prefix);
    }
    if (sequence.nextTokenIndex > prefix.length)
      await sequence.eraseContextTokenRanges([{ start: prefix.length, end: sequence.nextTokenIndex }]);
  }

  /** Runs steps while any choice is decoding. */
  private step(): void {
    if (this.stepping || this.decoding.size === 0) return;
    this.stepping = true;
    void this.run().finally(() => {
      this.stepping = false;
      this.step();
      this.notifyIdle();
    });
  }

  private async run(): Promise<void> {
    while (this.decoding.size > 0) {
      const batch = [...this.decoding];
      const outcomes = await Promise.all(
        batch.map((c) =>
          c.tokens!.next().then(
            (r) => (r.done ? null : r.value),
            (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
          ),
        ),
      );
      const threads = this.options.threadsOfLastStep();
      batch.forEach((choice, i) => this.advance(choice, outcomes[i]!, threads));
      this.admit();
    }
  }

  /** Takes one step's outcome for a choice: its next token, the end of its generator, or an error. */
  private advance(choice: Choice, outcome: Token | null | Error, threads: number): void {
    const job = choice.job;
    if (!job.settled) {
      if (outcome instanceof Error) {
        this.fail(job, outcome);
      } else {
        job.firstTokenAt ??= Date.now();
        job.threads = Math.max(job.threads, threads);
        const finished = outcome === null ? choice.text.end() : choice.text.push(outcome);
        if (!finished) return;
        this.complete(choice, finished);
      }
    }
    this.decoding.delete(choice);
    const slot = choice.slot!;
    slot.closing = choice.tokens!.return(undefined).then(
      () => undefined,
      () => undefined,
    );
    this.release(slot);
  }
}
