/**
 * Parameters of a PBE World dataset: their schema, defaults (those of the published card example),
 * resolution from user input, and validation with errors that name the offending fields.
 */
import { z } from 'zod';

const MAX_SEED = 0xffff_ffff;

/** Cap of countStringsOverAlphabet: beyond 2^53 the exact number never matters for validation. */
export const STRING_COUNT_CAP = 2n ** 53n;

/**
 * Alphabet characters are restricted to printable ASCII (0x20..0x7E) other than `"`:
 * - printable ASCII keeps Python's repr() exact (see pyrepr.ts) and case mapping identical in JS and
 *   Python, and keeps prompts readable (no `\x07` or invisible characters in examples);
 * - `"` is excluded because examples are written inside the prompt's `"""` docstring: a string with
 *   `"""` in it would end the docstring early, and a repr can contain `"` unescaped.
 * `'`, `\` and space are allowed: repr() escapes what needs escaping and the result is valid both in
 * code and inside a (non-raw) docstring.
 */
function alphabetCharProblem(ch: string): string | null {
  const cps = Array.from(ch);
  if (cps.length !== 1) return `${JSON.stringify(ch)} is not a single character`;
  const cp = ch.codePointAt(0)!;
  if (cp < 0x20 || cp > 0x7e) return `${JSON.stringify(ch)} is not printable ASCII (0x20..0x7E)`;
  if (ch === '"') return `'"' is not allowed (a """ in an example would end the prompt's docstring)`;
  return null;
}

const AlphabetSchema = z
  .array(z.string())
  .min(1, 'alphabet must have at least one character')
  .superRefine((alphabet, ctx) => {
    alphabet.forEach((ch, i) => {
      const problem = alphabetCharProblem(ch);
      if (problem) ctx.addIssue({ code: 'custom', path: [i], message: `alphabet[${i}]: ${problem}` });
    });
    const duplicates = alphabet.filter((ch, i) => alphabet.indexOf(ch) !== i);
    if (duplicates.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `alphabet characters must be distinct; repeated: ${JSON.stringify([...new Set(duplicates)])}`,
      });
    }
  });

/**
 * Number of distinct strings over an alphabet of `alphabetSize` characters with lengths
 * lMin..lMax, saturating at STRING_COUNT_CAP (the exact value may be astronomically large).
 */
export function countStringsOverAlphabet(alphabetSize: number, lMin: number, lMax: number): bigint {
  if (lMin > lMax) return 0n;
  const lengths = BigInt(lMax - lMin + 1);
  if (alphabetSize === 1) return lengths < STRING_COUNT_CAP ? lengths : STRING_COUNT_CAP;
  const k = BigInt(alphabetSize);
  let power = 1n;
  for (let i = 0; i < lMin; i++) {
    power *= k;
    if (power >= STRING_COUNT_CAP) return STRING_COUNT_CAP;
  }
  let total = 0n;
  for (let length = lMin; length <= lMax; length++) {
    total += power;
    if (total >= STRING_COUNT_CAP) return STRING_COUNT_CAP;
    power *= k;
  }
  return total;
}

/** Custom cross-field issues carry the full list of fields they involve in `params.fields`. */
function crossFieldIssue(ctx: z.RefinementCtx, fields: string[], message: string): void {
  ctx.addIssue({ code: 'custom', path: [fields[0]!], message, params: { fields } });
}

/**
 * Which API a task's pipeline is written against:
 * - `python_str`: Python's own `str` methods (the published card; the default);
 * - `private`: a small generated module with nonsense names, own docs and changed calling
 *   conventions (privateLibrary.ts), so that a model must read its documentation.
 * Only the rendering differs: the same parameters and seed give the same pipelines and examples.
 */
export const PBE_LIBRARY_KINDS = ['python_str', 'private'] as const;
export type PbeLibraryKind = (typeof PBE_LIBRARY_KINDS)[number];

export const PbeParamsSchema = z
  .strictObject({
    alphabet: AlphabetSchema,
    l_min: z.int().min(1),
    l_max: z.int().min(1),
    pipeline_L_min: z.int().min(1),
    pipeline_L_max: z.int().min(1),
    n_inputs_for_examples: z.int().min(1),
    num_examples: z.int().min(1),
    num_tests: z.int().min(0),
    split: z.string().min(1),
    seed: z.int().min(0).max(MAX_SEED),
    count: z.int().min(1),
    library: z.enum(PBE_LIBRARY_KINDS),
  })
  // Zod skips this after a type error in any field; value errors (e.g. a bad alphabet character) still
  // let it run, so each check must make sense on its own.
  .superRefine((p, ctx) => {
    if (p.l_min > p.l_max) crossFieldIssue(ctx, ['l_min', 'l_max'], `l_min (${p.l_min}) must be <= l_max (${p.l_max})`);
    if (p.pipeline_L_min > p.pipeline_L_max) {
      crossFieldIssue(
        ctx,
        ['pipeline_L_min', 'pipeline_L_max'],
        `pipeline_L_min (${p.pipeline_L_min}) must be <= pipeline_L_max (${p.pipeline_L_max})`,
      );
    }
    if (p.num_examples + p.num_tests > p.n_inputs_for_examples) {
      crossFieldIssue(
        ctx,
        ['num_examples', 'num_tests', 'n_inputs_for_examples'],
        `num_examples + num_tests (${p.num_examples} + ${p.num_tests}) must be <= n_inputs_for_examples (${p.n_inputs_for_examples}): examples and tests are distinct inputs drawn from that pool`,
      );
    }
    // (An empty alphabet is already reported on its own.)
    if (p.l_min <= p.l_max && p.alphabet.length > 0) {
      const available = countStringsOverAlphabet(p.alphabet.length, p.l_min, p.l_max);
      if (BigInt(p.n_inputs_for_examples) > available) {
        crossFieldIssue(
          ctx,
          ['n_inputs_for_examples', 'alphabet', 'l_min', 'l_max'],
          `n_inputs_for_examples (${p.n_inputs_for_examples}) exceeds the ${available} distinct strings of length ${p.l_min}..${p.l_max} over an alphabet of ${p.alphabet.length}`,
        );
      }
    }
  });

export type PbeParams = z.infer<typeof PbeParamsSchema>;

/** The parameters of the published card example, plus seed 0, 100 tasks and Python's own str methods. */
export const DEFAULT_PBE_PARAMS: Readonly<PbeParams> = Object.freeze({
  alphabet: ['a', 'b'],
  l_min: 5,
  l_max: 5,
  pipeline_L_min: 2,
  pipeline_L_max: 2,
  n_inputs_for_examples: 16,
  num_examples: 3,
  num_tests: 3,
  split: 'test',
  seed: 0,
  count: 100,
  library: 'python_str',
});

/** What a caller may give: any subset of the fields, and the alphabet as a size, a string or an array. */
export interface PbeParamsInput {
  /** The first N lowercase letters, 1..26; exclusive with `alphabet`. */
  alphabet_size?: number;
  /** The characters themselves, as a string ("abc") or an array (["a", "b", "c"]). */
  alphabet?: string | readonly string[];
  l_min?: number;
  l_max?: number;
  pipeline_L_min?: number;
  pipeline_L_max?: number;
  n_inputs_for_examples?: number;
  num_examples?: number;
  num_tests?: number;
  split?: string;
  seed?: number;
  count?: number;
  library?: PbeLibraryKind;
}

export interface PbeParamsIssue {
  /** Input field names involved (e.g. ['l_min', 'l_max']), for mapping to CLI flags. */
  fields: string[];
  message: string;
}

export class PbeParamsError extends Error {
  readonly issues: PbeParamsIssue[];

  constructor(issues: PbeParamsIssue[]) {
    super(`invalid PBE World parameters:\n${issues.map((i) => `  - ${i.fields.join(', ')}: ${i.message}`).join('\n')}`);
    this.name = 'PbeParamsError';
    this.issues = issues;
  }
}

const PARAM_KEYS = Object.keys(DEFAULT_PBE_PARAMS) as (keyof PbeParams)[];
const INPUT_KEYS = new Set<string>([...PARAM_KEYS, 'alphabet_size']);

function fieldsOfZodIssue(issue: z.core.$ZodIssue): string[] {
  if (issue.code === 'unrecognized_keys') return issue.keys;
  const fields = issue.code === 'custom' ? (issue.params as { fields?: string[] } | undefined)?.fields : undefined;
  if (fields) return fields;
  return issue.path.length > 0 ? [String(issue.path[0])] : [];
}

/**
 * Defaults + input → validated PbeParams. Undefined fields count as absent (so a CLI can pass its
 * optional flags through). Throws PbeParamsError listing every problem found.
 */
export function resolvePbeParams(input: PbeParamsInput = {}): PbeParams {
  const issues: PbeParamsIssue[] = [];
  const raw = input as Record<string, unknown>;
  const unknownKeys = Object.keys(raw).filter((k) => !INPUT_KEYS.has(k) && raw[k] !== undefined);
  if (unknownKeys.length > 0) issues.push({ fields: unknownKeys, message: `unknown parameter(s): ${unknownKeys.join(', ')}` });

  // Issues about the alphabet are reported under the field the caller actually used.
  let alphabetField = 'alphabet';
  let alphabet: unknown = DEFAULT_PBE_PARAMS.alphabet.slice();
  if (raw.alphabet !== undefined && raw.alphabet_size !== undefined) {
    issues.push({ fields: ['alphabet', 'alphabet_size'], message: 'give either alphabet or alphabet_size, not both' });
  } else if (raw.alphabet_size !== undefined) {
    alphabetField = 'alphabet_size';
    const size = raw.alphabet_size;
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > 26) {
      issues.push({ fields: ['alphabet_size'], message: `alphabet_size must be an integer in 1..26, got ${JSON.stringify(size)}` });
    } else {
      alphabet = Array.from('abcdefghijklmnopqrstuvwxyz'.slice(0, size));
    }
  } else if (typeof raw.alphabet === 'string') {
    alphabet = Array.from(raw.alphabet);
  } else if (raw.alphabet !== undefined) {
    alphabet = raw.alphabet;
  }

  const merged: Record<string, unknown> = { ...DEFAULT_PBE_PARAMS, alphabet };
  for (const key of PARAM_KEYS) {
    if (key !== 'alphabet' && raw[key] !== undefined) merged[key] = raw[key];
  }

  const parsed = PbeParamsSchema.safeParse(merged);
  if (!parsed.success) issues.push(...issuesOfZodError(parsed.error, alphabetField));
  if (issues.length > 0 || !parsed.success) throw new PbeParamsError(issues);
  return parsed.data;
}

function issuesOfZodError(error: z.ZodError, alphabetField = 'alphabet'): PbeParamsIssue[] {
  return error.issues.map((issue) => {
    const fields = fieldsOfZodIssue(issue).map((f) => (f === 'alphabet' ? alphabetField : f));
    const prefix = fields.length === 1 && !issue.message.startsWith(`${fields[0]}`) ? `${fields[0]}: ` : '';
    return { fields, message: prefix + issue.message };
  });
}

/** Checks an already-resolved parameter object (e.g. read back from a manifest); throws PbeParamsError. */
export function validatePbeParams(params: PbeParams): PbeParams {
  const parsed = PbeParamsSchema.safeParse(params);
  if (!parsed.success) throw new PbeParamsError(issuesOfZodError(parsed.error));
  return parsed.data;
}

/** JSON of the parameters with a fixed key order, for comparing parameter sets byte for byte. */
export function canonicalParamsJson(params: PbeParams): string {
  const ordered: Record<string, unknown> = {};
  for (const key of PARAM_KEYS) ordered[key] = params[key];
  return JSON.stringify(ordered);
}
