#!/usr/bin/env node
// scripts/evaluate.ts as a command of its own, from any directory: `bin/evaluate.mjs --problems ...`.
// Node loads TypeScript through tsx's loader here rather than through `npx tsx`, whose start-up
// alone (~0.55 s) is more than the whole budget for the first program (docs/benchmarks.md).
import { register } from 'tsx/esm/api';

register();
await import('../scripts/evaluate.ts');
