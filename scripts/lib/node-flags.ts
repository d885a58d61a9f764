/**
 * The node flags the project's long-lived commands run with, as package.json's npm scripts give them
 * (`exec node <flags> bin/run.mjs <entry>`): one place to read them, so that a benchmark times a
 * command with the flags `npm run` gives it, and a test can hold the image's entry point to the same.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { PROJECT_ROOT } from '../../stack/local-stack.js';

const PackageScripts = z.object({ scripts: z.record(z.string(), z.string()) });

/** The flags between `node` and `bin/run.mjs` in the npm script `name` (which must run `entry` that way). */
export function npmScriptNodeFlags(name: string, entry: string, root: string = PROJECT_ROOT): string[] {
  const file = path.join(root, 'package.json');
  const script = PackageScripts.parse(JSON.parse(readFileSync(file, 'utf8'))).scripts[name];
  if (script === undefined) throw new Error(`${file}: no npm script "${name}"`);
  const escaped = entry.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`(?:^|&& )exec node((?: --[^\\s]+)*) bin/run\\.mjs ${escaped}$`).exec(script);
  if (!m) throw new Error(`${file}: the npm script "${name}" does not end in "exec node [--flags] bin/run.mjs ${entry}": ${script}`);
  return m[1]!.split(' ').filter((flag) => flag !== '');
}
