/**
 * Shared fixtures of the PBE World tests: the published card, the shipped schema, a Python runner
 * and the parameter sets the generator is exercised with.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { resolvePythonExecutable } from '../../infra/sandbox/python.js';
import { resolvePbeParams, type PbeParams, type PbeParamsInput } from '../../domain/pbe/params.js';

/** The one published task; read in place, never copied into the repo. */
export const CARD_PATH = fileURLToPath(new URL('../../../shared/reference/pbe-world/card-example.json', import.meta.url));
export const SCHEMA_PATH = fileURLToPath(new URL('../../schemas/pbe-world-task.schema.json', import.meta.url));

export function readCardText(): string {
  return readFileSync(CARD_PATH, 'utf8');
}

export function readSchema(): Record<string, unknown> {
  return JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as Record<string, unknown>;
}

export function compileTaskSchema(): ValidateFunction {
  return new Ajv({ allErrors: true, strict: true }).compile(readSchema());
}

/**
 * Runs one Python process: `script` reads JSON from stdin and prints one JSON document to stdout.
 */
export function runPythonJson<T>(script: string, input: unknown): T {
  const result = spawnSync(resolvePythonExecutable(), ['-X', 'utf8', '-c', script], {
    input: JSON.stringify(input),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`python exited with ${result.status}:\n${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** Named parameter sets covering the defaults, larger alphabets, long pipelines and odd characters. */
export const PARAM_SET_INPUTS: Record<string, PbeParamsInput> = {
  defaults: {},
  bigger_alphabet: {
    alphabet_size: 6,
    l_min: 3,
    l_max: 8,
    pipeline_L_min: 1,
    pipeline_L_max: 4,
    n_inputs_for_examples: 24,
    num_examples: 4,
    num_tests: 6,
  },
  // Mixed case from the start so lower() is as available as upper(); long pipelines use every op.
  long_pipelines: {
    alphabet: 'abcXY',
    l_min: 4,
    l_max: 10,
    pipeline_L_min: 5,
    pipeline_L_max: 8,
    n_inputs_for_examples: 20,
    num_examples: 5,
    num_tests: 5,
  },
  // Short strings over two letters: strings empty out fast, steps get stuck, restarts happen.
  strip_heavy: {
    alphabet: 'ab',
    l_min: 1,
    l_max: 4,
    pipeline_L_min: 3,
    pipeline_L_max: 6,
    n_inputs_for_examples: 12,
    num_examples: 4,
    num_tests: 4,
  },
  // Characters Python's repr escapes or switches quotes for, and JS replacement patterns ($&, $1).
  special_chars: {
    alphabet: ["'", '\\', ' ', 'a', 'B', '$', '&', '1'],
    l_min: 2,
    l_max: 6,
    pipeline_L_min: 1,
    pipeline_L_max: 4,
    n_inputs_for_examples: 16,
    num_examples: 3,
    num_tests: 5,
  },
  no_hidden_tests: {
    alphabet_size: 3,
    l_min: 2,
    l_max: 5,
    pipeline_L_min: 1,
    pipeline_L_max: 3,
    n_inputs_for_examples: 10,
    num_examples: 2,
    num_tests: 0,
  },
  one_letter: {
    alphabet: 'a',
    l_min: 1,
    l_max: 8,
    pipeline_L_min: 1,
    pipeline_L_max: 2,
    n_inputs_for_examples: 8,
    num_examples: 2,
    num_tests: 2,
  },
  // Pool = the whole space (2 + 4 strings): the enumerate-and-sample path.
  whole_space: {
    alphabet: 'ab',
    l_min: 1,
    l_max: 2,
    pipeline_L_min: 1,
    pipeline_L_max: 3,
    n_inputs_for_examples: 6,
    num_examples: 3,
    num_tests: 3,
    seed: 7,
  },
};

export const PARAM_SETS: [string, PbeParams][] = Object.entries(PARAM_SET_INPUTS).map(([name, input]) => [
  name,
  resolvePbeParams({ count: 1000, ...input }),
]);
