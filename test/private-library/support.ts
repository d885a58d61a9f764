/** The published MonkeyEval / BeatNumEval files (read-only, from ../shared/reference) and the loaded datasets. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readJsonlText } from '../../infra/sandbox/jsonlFile.js';
import {
  loadPrivateLibraryDataset,
  type PrivateLibraryDataset,
  type PrivateLibraryKind,
} from '../../domain/families/renamed-library/loader.js';
import type { RenamedRuntime } from '../../domain/apidocs/renamedRuntime.js';

const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const REFERENCE = path.join(PROJECT_ROOT, '..', 'shared', 'reference', 'private-library');

export const KINDS = [
  { kind: 'monkey', original: 'pandas' },
  { kind: 'beatnum', original: 'numpy' },
] as const satisfies ReadonlyArray<{ kind: PrivateLibraryKind; original: string }>;

export interface RawTask {
  task_id: string;
  prompt: string;
  entry_point: string;
  canonical_solution: string[];
  test: string;
}

export function referenceFiles(kind: PrivateLibraryKind) {
  const original = kind === 'monkey' ? 'pandas' : 'numpy';
  return {
    rows: readJsonlText(path.join(REFERENCE, `real_${kind}_eval_v3.jsonl.gz`)),
    originalRows: readJsonlText(path.join(REFERENCE, `real_${original}_eval_v3.jsonl.gz`)),
    keywords: readFileSync(path.join(REFERENCE, `${original}_keywords.jsonl`), 'utf8'),
    mapping: readFileSync(path.join(REFERENCE, `${original}_keyword_mapping.json`), 'utf8'),
  };
}

export function rawTasks(text: string): RawTask[] {
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as RawTask);
}

export function loadKind(kind: PrivateLibraryKind): PrivateLibraryDataset {
  const files = referenceFiles(kind);
  return loadPrivateLibraryDataset({ kind, rows: files.rows, keywords: files.keywords, mapping: files.mapping });
}

export function runtimeOf(dataset: PrivateLibraryDataset): RenamedRuntime {
  const runtime = dataset.library.library.runtime;
  if (runtime.kind !== 'renamed') throw new Error(`expected a renamed runtime, got ${runtime.kind}`);
  return runtime;
}

export function pandasRuntime(): RenamedRuntime {
  const mapping = JSON.parse(referenceFiles('monkey').keywords) as Record<string, string>;
  return { kind: 'renamed', original: 'pandas', renamed: 'monkey', mapping };
}
