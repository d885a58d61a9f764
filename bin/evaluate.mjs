#!/usr/bin/env node
// scripts/evaluate.ts as a command of its own, from any directory: `bin/evaluate.mjs --problems ...`,
// loaded from its kept bundle (bin/lib/launch.mjs). EXPLORA_EVALUATE_BUNDLE=0 runs it through tsx's
// loader instead; EXPLORA_EVALUATE_BUNDLE_DIR names the directory its bundles are kept in.
import { join } from 'node:path';
import process from 'node:process';
import { bundleDirOf, launch, ROOT } from './lib/launch.mjs';

const entry = join(ROOT, 'scripts', 'evaluate.ts');
await launch(entry, {
  bundled: process.env.EXPLORA_EVALUATE_BUNDLE !== '0',
  dir: process.env.EXPLORA_EVALUATE_BUNDLE_DIR ?? bundleDirOf(entry),
  dirSetting: `EXPLORA_EVALUATE_BUNDLE_DIR=${process.env.EXPLORA_EVALUATE_BUNDLE_DIR}`,
});
