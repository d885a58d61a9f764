/**
 * The sanitizers a chat model's answers can be read with instead of the fenced-block extraction
 * (extract.ts): `sanitize:` on a sweep's model, `--sanitize` of scripts/evaluate.ts. Each reads
 * one language.
 *
 * - `evalplus`: evalplus's `sanitize` (evalplusSanitize.ts): the longest valid Python in the answer,
 *   cut down to the entry point and what it uses. Python only.
 */
import type { Parser } from 'web-tree-sitter';
import { sanitizeEvalplus } from './evalplusSanitize.js';
import { stripThinking } from './extract.js';

export const SANITIZERS = ['evalplus'] as const;
export type Sanitizer = (typeof SANITIZERS)[number];

/** The language each sanitizer reads (a language id of domain/languages/registry.ts). */
export const SANITIZER_LANGUAGE: Readonly<Record<Sanitizer, string>> = { evalplus: 'python' };

/** What sanitizes one answer for the task with `entryPoint` (statement tasks have none). */
export type AnswerSanitizer = (answer: string, entryPoint: string | null) => string;

/**
 * `sanitizer` on a loaded parser of its language. A chat answer's `<think>` blocks are dropped
 * first, as for every chat answer; evalplus's own examples have none, so this changes nothing there.
 */
export function answerSanitizer(sanitizer: Sanitizer, parser: Parser): AnswerSanitizer {
  switch (sanitizer) {
    case 'evalplus':
      return (answer, entryPoint) => sanitizeEvalplus(parser, stripThinking(answer), entryPoint);
  }
}

/**
 * Why the models' sanitizers cannot read the datasets' answers (a dataset with problems in another
 * language than the sanitizer's: every model meets every dataset), one line each naming the model
 * and the dataset; empty when they can.
 */
export function sanitizerLanguageProblems(
  models: ReadonlyArray<{ id: string; sanitize?: Sanitizer }>,
  datasets: ReadonlyArray<{ name: string; languages: ReadonlySet<string> }>,
): string[] {
  const problems: string[] = [];
  models.forEach((model, xi) => {
    if (!model.sanitize) return;
    const reads = SANITIZER_LANGUAGE[model.sanitize];
    for (const d of datasets) {
      const others = [...d.languages].filter((l) => l !== reads);
      if (others.length > 0)
        problems.push(
          `models[${xi}].sanitize (${model.id}): ${model.sanitize} reads ${reads} answers, but datasets[${d.name}] has ${others.join(', ')} problems; list the model in another sweep, or leave sanitize out`,
        );
    }
  });
  return problems;
}
