/** The describe step's generations file (bigcode's list of descriptions per task) for HumanEvalPack's JavaScript test rows. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { JS_ROWS } from './humanevalpack-rows.js';

export const JS_DESCRIPTIONS = JSON.stringify(JS_ROWS.map((row) => [`Says what ${row.entry_point} returns.`]));

/** The file written in `dir`, and its path. */
export function writeJsDescriptions(dir: string): string {
  const file = path.join(dir, 'describe-generations.json');
  writeFileSync(file, JS_DESCRIPTIONS);
  return file;
}
