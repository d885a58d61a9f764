/**
 * A family's options, declared once in its folder: each is a field of its sweep config's dataset
 * entry (the key, snake_case) and a flag of scripts/evaluate.ts (the key in kebab case, or the
 * declaration's `flag`), parsed by the same schema, so that both take the same values and refuse
 * the same ones with the same message (naming the field, or the flag).
 *
 *   const OPTIONS = familyOptions({ repeat: option(z.int().min(1).default(1), { help: '...', value: 'n', text: 'number' }) });
 *   entrySchema: z.strictObject({ name, family, path, ...OPTIONS.entry }),
 *   evaluate: readsProblemsFiles({ options: OPTIONS.evaluate, ... }),
 */
import { z } from 'zod';
import { issueMessage } from '../sweep/configMessages.js';
import type { FlagMeta } from './types.js';

/** How a flag's text becomes the value the schema parses: as it is, a number, a comma-separated list, or the family's own reading. */
export type FlagText = 'string' | 'number' | 'list' | ((text: string) => unknown);

export interface FamilyOption<S extends z.ZodType = z.ZodType> {
  /** The entry field's schema, and the flag's once its text is read (`text`). */
  schema: S;
  help: string;
  /** The value's name in `--help`. */
  value: string;
  text: FlagText;
  /** The flag's spelling without `--`, when it is not the key in kebab case (a peer's spelling, or one kept from before). */
  flag?: string;
  /** A folder: evaluate.ts resolves it from the working directory and refuses one that does not exist. */
  folder?: boolean;
}

/** One option: its schema (defaults and messages included) and how evaluate.ts shows and reads its flag. */
export function option<S extends z.ZodType>(
  schema: S,
  meta: { help: string; value: string; text?: FlagText; flag?: string; folder?: boolean },
): FamilyOption<S> {
  return { schema, help: meta.help, value: meta.value, text: meta.text ?? 'string', flag: meta.flag, folder: meta.folder };
}

function fromText(text: FlagText): (value: unknown) => unknown {
  if (typeof text === 'function') return (value) => (typeof value === 'string' ? text(value) : value);
  // Only a flag's text is read; a value given in code (a bigcode task's options) is parsed as it is.
  if (text === 'number') return (value) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value);
  if (text === 'list') return (value) => (typeof value === 'string' ? value.split(',').map((part) => part.trim()) : value);
  return (value) => value;
}

type EntryShape<O extends Record<string, FamilyOption>> = { [K in keyof O]: O[K]['schema'] };
type EvaluateShape<O extends Record<string, FamilyOption>> = { [K in keyof O]: z.ZodOptional<z.ZodType<z.output<O[K]['schema']>>> };

/**
 * The options as an entry schema's shape (spread into its z.strictObject) and as the family's
 * evaluate.ts options (EvaluateOptionsSchema, for readsProblemsFiles): the flag is optional (absent:
 * the schema's default, or undefined when it has none, for the family to fill from the rows).
 */
export function familyOptions<const O extends Record<string, FamilyOption>>(options: O) {
  const entry = Object.fromEntries(Object.entries(options).map(([key, o]) => [key, o.schema])) as EntryShape<O>;
  const evaluate = z.strictObject(
    Object.fromEntries(
      Object.entries(options).map(([key, o]) => {
        const meta: FlagMeta = {
          description: o.help,
          value: o.value,
          ...(o.folder ? { folder: true } : {}),
          ...(o.flag ? { flag: o.flag } : {}),
        };
        const schema = z.preprocess(fromText(o.text), o.schema.optional()).meta(meta);
        declarations.set(schema, o);
        return [key, schema];
      }),
    ) as unknown as EvaluateShape<O>,
  );
  return { options, entry, evaluate };
}

/** The value a flag's text stands for, before the option's schema parses it. */
export function flagTextValue(option: FamilyOption, text: string): unknown {
  return fromText(option.text)(text);
}

const declarations = new WeakMap<z.ZodType, FamilyOption>();

/** The declaration an evaluate option's schema was made from by familyOptions (undefined: declared by hand). */
export function declarationOf(schema: z.ZodType): FamilyOption | undefined {
  return declarations.get(schema);
}

/**
 * A flag's value refused, worded as the sweep config words the same value in an entry's field
 * (`--repeat: must be >= 1, got 0` as `datasets[0].repeat: must be >= 1, got 0`).
 */
export function flagIssues(error: Pick<z.ZodError, 'issues'>, given: unknown, flagOf: (key: string) => string, key?: string): string {
  return error.issues
    .map((issue) => {
      const name = key ?? String(issue.path[0]);
      const path = key === undefined ? issue.path.slice(1) : issue.path;
      const value = key === undefined ? (given as Record<string, unknown>)[name] : given;
      const at = path.length > 0 ? `${flagOf(name)} (${path.join('.')})` : flagOf(name);
      return `${at}: ${issueMessage(issue, path.length > 0 ? undefined : value)}`;
    })
    .join('\n');
}
