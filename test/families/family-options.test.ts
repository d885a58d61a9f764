/**
 * A family's options are declared once (domain/families/familyOptions.ts): each evaluate.ts flag a
 * family reads is its entry's field of the same name, parsed by the very same schema, so that a
 * sweep config and evaluate.ts take and refuse the same values. Checked for every family of the
 * registry; the flags still declared by hand are listed below, each with why.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { declarationOf, familyOptions, flagTextValue, option } from '../../domain/families/familyOptions.js';
import { allFamilies, createRegistry, evaluateFlags, FAMILIES } from '../../domain/families/registry.js';
import type { AnyFamily } from '../../domain/families/registry.js';
import type { EntrySchema } from '../../domain/families/types.js';
import { familyOptionValues } from '../../scripts/lib/evaluate-cli.js';
import { issueMessage } from '../../domain/sweep/configMessages.js';

/** Flags declared by hand, not (yet) one declaration with an entry field: `family: key`, and why. */
const HAND_WRITTEN: Record<string, string> = {
  'instruct-humaneval: instructVariant': 'the entry says context: true/false, the flag the bigcode variant',
  'humanevalpack: subset': "the flag is bigcode's task suffix <variant>-<language>, the entry says variant and language apart",
  'humanevalexplain: subset':
    "the flag is bigcode's task suffix explain<step>-<language>: a sweep asks both steps, the entry says the language",
  'humanevalexplain: load_data_path': "the describe step's generations for evaluate.ts; a sweep's entry has none (it asks both steps)",
};

describe("a family's options, declared once", () => {
  it("every family's evaluate.ts flag is its entry's field with the same schema", () => {
    const handWritten: string[] = [];
    let declared = 0;
    for (const family of allFamilies()) {
      if (family.evaluate.kind !== 'reads' || !family.evaluate.options) continue;
      const entry = (family.entrySchema as unknown as EntrySchema).shape;
      for (const [key, schema] of Object.entries(family.evaluate.options.shape)) {
        const declaration = declarationOf(schema as z.ZodType);
        if (!declaration) {
          handWritten.push(`${family.id}: ${key}`);
          continue;
        }
        expect(entry[key], `${family.id}'s entry field ${key}`).toBe(declaration.schema);
        declared += 1;
      }
    }
    expect(handWritten.sort()).toEqual(Object.keys(HAND_WRITTEN).sort());
    expect(declared).toBeGreaterThanOrEqual(6);
  });

  it('a flag and a field refuse the same value with the same message', () => {
    for (const flag of evaluateFlags()) {
      if (!flag.schema || !declarationOf(flag.schema)) continue;
      const declaration = declarationOf(flag.schema)!;
      // A value no option takes: an empty day, form, mode or number.
      const bad = flag.value === 'day' ? '2024-13-01' : 'not-a-value';
      // The field given what the flag's text reads as (a number, a list), as a config would give it.
      const fieldIssue = declaration.schema.safeParse(flagTextValue(declaration, bad));
      let flagMessage = '';
      try {
        familyOptionValues([flag], { [flag.attribute]: bad });
      } catch (e) {
        flagMessage = (e as Error).message;
      }
      expect(fieldIssue.success, flag.flag).toBe(false);
      // The config's wording of the field's issue (domain/sweep/config.ts), under the flag's name.
      expect(flagMessage).toBe(`${flag.flag}: ${issueMessage(fieldIssue.error!.issues[0]!, bad)}`);
    }
  });

  it('several families may read one flag each by its own schema; its help says each', () => {
    const mine = (id: string, values: readonly [string, ...string[]]): AnyFamily => {
      const options = familyOptions({ level: option(z.enum(values).optional(), { help: `${id}'s level`, value: 'level' }) });
      const base = FAMILIES.humaneval as unknown as AnyFamily;
      const evaluate = base.evaluate.kind === 'reads' ? { ...base.evaluate, options: options.evaluate } : base.evaluate;
      return { ...base, id: id as never, evaluate };
    };
    const registry = createRegistry({ a: mine('a', ['x']), b: mine('b', ['y']) });
    const [flag] = registry.evaluateFlags();
    expect(flag).toMatchObject({ flag: '--level', families: ['a', 'b'], help: "a: a's level; b: b's level", schema: undefined });
    // Checked by the family that reads the file, not before.
    expect(familyOptionValues([flag!], { level: 'y' })).toEqual({ level: 'y' });
  });
});
