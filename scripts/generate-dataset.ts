/**
 * `tsx scripts/generate-dataset.ts [flags]`: generate a PBE World dataset, durably on Temporal into
 * S3 (default), or with `--local --out FILE` straight to a file. Both write identical bytes.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { environmentHelp } from '../domain/config/env.js';
import { loadConfig } from '../infra/config.js';
import { DatasetNameSchema, DEFAULT_SHARD_SIZE, MAX_SHARDS, shardCount } from '../domain/datasets/layout.js';
import {
  PBE_LIBRARY_KINDS,
  PbeParamsError,
  resolvePbeParams,
  type PbeLibraryKind,
  type PbeParams,
  type PbeParamsInput,
} from '../domain/pbe/params.js';
import { writeDatasetLocally } from './lib/dataset-local.js';

/** Which flag sets which parameter, so a validation error names what the user typed. */
const FLAG_OF: Record<string, string> = {
  count: '--count',
  seed: '--seed',
  alphabet: '--alphabet',
  alphabet_size: '--alphabet-size',
  l_min: '--l-min',
  l_max: '--l-max',
  pipeline_L_min: '--pipeline-min',
  pipeline_L_max: '--pipeline-max',
  num_examples: '--num-examples',
  num_tests: '--num-tests',
  n_inputs_for_examples: '--n-inputs',
  split: '--split',
};

function integer(flag: string, min: number) {
  return (value: string): number => {
    if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError(`${flag} must be an integer, got ${JSON.stringify(value)}`);
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < min) throw new InvalidArgumentError(`${flag} must be an integer >= ${min}, got ${value}`);
    return n;
  };
}

const defaults = resolvePbeParams({});

const program = new Command('generate-dataset')
  .description('Generate a PBE World dataset (HumanEval-style JSONL) on Temporal into S3, or locally with --local --out FILE')
  .addOption(new Option('--name <name>', 'dataset name: its S3 prefix datasets/<name>/ and workflow id').default('pbe-world'))
  .addOption(new Option('--count <n>', 'number of tasks').argParser(integer('--count', 1)).default(defaults.count))
  .addOption(new Option('--seed <n>', 'random seed (0..4294967295)').argParser(integer('--seed', 0)).default(defaults.seed))
  .addOption(new Option('--alphabet-size <n>', 'alphabet = the first N lowercase letters').argParser(integer('--alphabet-size', 1)))
  .addOption(
    new Option('--alphabet <chars>', `explicit alphabet, e.g. abc (default "${defaults.alphabet.join('')}")`).conflicts('alphabetSize'),
  )
  .addOption(new Option('--l-min <n>', 'minimum input length').argParser(integer('--l-min', 0)).default(defaults.l_min))
  .addOption(new Option('--l-max <n>', 'maximum input length').argParser(integer('--l-max', 0)).default(defaults.l_max))
  .addOption(
    new Option('--pipeline-min <n>', 'minimum pipeline length').argParser(integer('--pipeline-min', 0)).default(defaults.pipeline_L_min),
  )
  .addOption(
    new Option('--pipeline-max <n>', 'maximum pipeline length').argParser(integer('--pipeline-max', 0)).default(defaults.pipeline_L_max),
  )
  .addOption(
    new Option('--num-examples <n>', 'shown examples per task').argParser(integer('--num-examples', 0)).default(defaults.num_examples),
  )
  .addOption(new Option('--num-tests <n>', 'hidden tests per task').argParser(integer('--num-tests', 0)).default(defaults.num_tests))
  .addOption(
    new Option('--n-inputs <n>', 'pool of distinct random inputs examples and tests are drawn from')
      .argParser(integer('--n-inputs', 1))
      .default(defaults.n_inputs_for_examples),
  )
  .addOption(new Option('--split <name>', 'split name recorded in metadata').default(defaults.split))
  .addOption(
    new Option('--library <kind>', "python_str: Python's str methods; private: a generated module with unseen names the solution must use")
      .choices(PBE_LIBRARY_KINDS)
      .default(defaults.library),
  )
  .addOption(
    new Option('--shard-size <n>', 'tasks per S3 object part-NNNNN.jsonl')
      .argParser(integer('--shard-size', 1))
      .default(DEFAULT_SHARD_SIZE),
  )
  .addOption(new Option('--concurrency <n>', 'shards generated at once').argParser(integer('--concurrency', 1)).default(4))
  .addOption(new Option('--local', 'write to --out without Temporal or S3').default(false))
  .addOption(new Option('--out <file>', 'output JSONL file (with --local)'))
  .addOption(
    new Option(
      '--worker <mode>',
      'in-process: this command also serves the queues while it waits; external: rely on `npm run worker` processes',
    )
      .choices(['in-process', 'external'])
      .default('in-process'),
  )
  .addOption(new Option('--no-progress', 'no progress bar'))
  .addHelpText('after', environmentHelp(['temporal', 's3'], 'not used with --local'));

interface Flags {
  name: string;
  count: number;
  seed: number;
  alphabetSize?: number;
  alphabet?: string;
  lMin: number;
  lMax: number;
  pipelineMin: number;
  pipelineMax: number;
  numExamples: number;
  numTests: number;
  nInputs: number;
  split: string;
  library: PbeLibraryKind;
  shardSize: number;
  concurrency: number;
  local: boolean;
  out?: string;
  worker: 'in-process' | 'external';
  progress: boolean;
}

function paramsFrom(flags: Flags): PbeParams {
  const input: PbeParamsInput = {
    count: flags.count,
    seed: flags.seed,
    l_min: flags.lMin,
    l_max: flags.lMax,
    pipeline_L_min: flags.pipelineMin,
    pipeline_L_max: flags.pipelineMax,
    num_examples: flags.numExamples,
    num_tests: flags.numTests,
    n_inputs_for_examples: flags.nInputs,
    split: flags.split,
    library: flags.library,
    ...(flags.alphabet !== undefined ? { alphabet: flags.alphabet } : {}),
    ...(flags.alphabetSize !== undefined ? { alphabet_size: flags.alphabetSize } : {}),
  };
  try {
    return resolvePbeParams(input);
  } catch (err) {
    if (!(err instanceof PbeParamsError)) throw err;
    const lines = err.issues.map((i) => `  ${i.fields.map((f) => FLAG_OF[f] ?? f).join(', ')}: ${i.message}`);
    throw new Error(`invalid parameters:\n${lines.join('\n')}`);
  }
}

program.action(async (flags: Flags) => {
  const params = paramsFrom(flags);
  const name = DatasetNameSchema.safeParse(flags.name);
  if (!name.success) throw new Error(`--name ${JSON.stringify(flags.name)}: ${name.error.issues[0]?.message}`);
  if (shardCount(params.count, flags.shardSize) > MAX_SHARDS) {
    throw new Error(
      `--count ${params.count} with --shard-size ${flags.shardSize} needs more than ${MAX_SHARDS} shards; raise --shard-size`,
    );
  }
  if (flags.local) {
    if (!flags.out) throw new Error('--local needs --out FILE');
    await writeDatasetLocally(params, flags.out, { progress: flags.progress });
    return;
  }
  if (flags.out) throw new Error('--out is only for --local; without it the dataset goes to S3');
  // Loaded only here, so --local needs neither the Temporal nor the S3 SDK.
  const { generateDatasetRemotely } = await import('./lib/dataset-remote.js');
  await generateDatasetRemotely(loadConfig(process.env), {
    name: name.data,
    params,
    shardSize: flags.shardSize,
    concurrency: flags.concurrency,
    worker: flags.worker,
    progress: flags.progress,
  });
});

program.parseAsync().catch((err: Error) => {
  console.error(`generate-dataset: ${err.message}`);
  process.exit(1);
});
