/**
 * SantaCoder-FIM's score as bigcode computes it (tasks/santacoder_fim.py): a sample is right when it
 * equals the task's canonical middle after Python's strip() of both; the fraction of right samples
 * per language, reported as "<lang> Exact Match" for py, js and java (0 for a language with no task).
 */
import { pyStrip } from './pythonText.js';

export const FIM_LANGUAGES = ['py', 'js', 'java'] as const;

export interface FimTask {
  language: string;
  reference: string;
  samples: readonly string[];
}

export function fimExactMatch(tasks: readonly FimTask[]): Record<string, number> {
  const right = new Map<string, number>();
  const count = new Map<string, number>();
  for (const { language, reference, samples } of tasks) {
    const expected = pyStrip(reference);
    right.set(language, (right.get(language) ?? 0) + samples.filter((s) => pyStrip(s) === expected).length);
    count.set(language, (count.get(language) ?? 0) + samples.length);
  }
  const out: Record<string, number> = {};
  for (const lang of FIM_LANGUAGES) {
    const n = count.get(lang) ?? 0;
    out[`${lang} Exact Match`] = n ? right.get(lang)! / n : 0;
  }
  return out;
}
