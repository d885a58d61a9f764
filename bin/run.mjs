#!/usr/bin/env node
// `node bin/run.mjs <entry.ts> [args...]`: one of the project's TypeScript entry points (a script in
// scripts/, the worker in workers/), run in this process from its kept bundle (bin/lib/launch.mjs),
// as npm's scripts, the container image and the tests run them. The entry sees its own path as
// process.argv[1] and the arguments after it, as if started directly. EXPLORA_BUNDLE=0 runs it
// through tsx's loader instead; EXPLORA_BUNDLE_DIR names the directory, inside the project, its bundles
// are kept under.
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import console from 'node:console';
import process from 'node:process';
import { bundleDirOf, launch, ROOT } from './lib/launch.mjs';

const [given, ...args] = process.argv.slice(2);
if (!given || !/\.ts$/.test(given)) {
  console.error(`usage: node bin/run.mjs <entry.ts> [args...]: got ${given === undefined ? 'no entry' : `"${given}", not a .ts file`}`);
  process.exit(2);
}
// A relative entry names a file under the project (`scripts/start-sweep.ts`), from any directory.
const entry = isAbsolute(given) ? given : existsSync(resolve(given)) ? resolve(given) : join(ROOT, given);
if (!existsSync(entry)) {
  console.error(`bin/run.mjs: no entry point ${entry}`);
  process.exit(2);
}
process.argv = [process.argv[0], entry, ...args];
await launch(entry, {
  bundled: process.env.EXPLORA_BUNDLE !== '0',
  ...(process.env.EXPLORA_BUNDLE_DIR
    ? { dir: bundleDirOf(entry, process.env.EXPLORA_BUNDLE_DIR), dirSetting: `EXPLORA_BUNDLE_DIR=${process.env.EXPLORA_BUNDLE_DIR}` }
    : {}),
});
