/**
 * What MultiPL-E's languages share (Cassano et al. 2023, "MultiPL-E: A Scalable and Polyglot
 * Approach to Benchmarking Neural Code Generation"): their ids are MultiPL-E's own, a program is
 * `prompt + completion + "\n" + tests` (the tests close what the prompt opened), a completion is
 * cut at the row's stop tokens, and they run as processes of their own (the sandbox's process
 * runner, infra/sandbox/process/), compiled first where the language compiles.
 */
import type { ExecutionLimits } from '../execution/types.js';
import { extractFencedCode, stripThinking, truncateAtStopWords } from '../llm/extract.js';
import type { CompileStep, Language } from './types.js';

/**
 * Limits of a compile step: compilers run none of the sample's code, but a hostile program can
 * make them work hard (template or const-eval bombs); generous enough for MultiPL-E's programs.
 */
export const MULTIPLE_COMPILE_LIMITS = {
  timeoutMs: 60_000,
  memoryBytes: 2 * 1024 * 1024 * 1024,
  maxProcesses: 256,
  maxFileBytes: 256 * 1024 * 1024,
  maxOutputBytes: 64 * 1024,
} as const satisfies ExecutionLimits;

export interface MultiplELanguageSpec<Id extends string> {
  id: Id;
  /** The language's name in prompts and messages. */
  name: string;
  extension: string;
  /** MultiPL-E's stop tokens for the language (its rows carry the same list). */
  stopWords: readonly string[];
  /** Info strings of fenced blocks in chat answers. */
  fenceTags: readonly string[];
  compiled: boolean;
}

export function multiplELanguage<Id extends string>(spec: MultiplELanguageSpec<Id>): Language<Id, 'process'> {
  const fenceTags = new Set(spec.fenceTags);
  const compile: CompileStep | null = spec.compiled ? { limits: MULTIPLE_COMPILE_LIMITS } : null;
  return {
    id: spec.id,
    name: spec.name,
    extension: spec.extension,
    stopWords: Object.freeze([...spec.stopWords]),
    systemPrompt: `You are an expert ${spec.name} programmer. Answer with working ${spec.name} code only.`,
    fenceTag: spec.fenceTags[0]!,
    extractCode: ({ api, raw, stop }) =>
      api === 'completions' ? truncateAtStopWords(raw, stop) : extractFencedCode(stripThinking(raw), { fenceTags: fenceTags }),
    // MultiPL-E's evaluator: prompt + completion + "\n" + tests (the solution is prompt + completion).
    assemble: ({ solution, tests }) => `${solution}\n${tests}`,
    compile,
    runner: 'process',
  };
}
