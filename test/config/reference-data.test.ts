/** The suite's check of ../shared/reference: every file a test reads is listed, and a missing one is named with its source. */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REFERENCE_DIR, REFERENCE_FILES, missingReferenceFiles, requireReferenceData } from '../support/reference-data.js';

const TEST_DIR = fileURLToPath(new URL('..', import.meta.url));

function testSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => readFileSync(path.join(e.parentPath, e.name), 'utf8'));
}

describe('reference data check', () => {
  it('passes on the reference directory beside this clone', () => {
    expect(missingReferenceFiles(REFERENCE_DIR)).toEqual([]);
    expect(() => requireReferenceData()).not.toThrow();
  });

  it('names each missing file and where to get it, and nothing else', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'explora-reference-'));
    try {
      cpSync(path.join(REFERENCE_DIR, 'humaneval'), path.join(dir, 'humaneval'), { recursive: true });
      const message = (() => {
        try {
          requireReferenceData(dir);
        } catch (err) {
          return (err as Error).message;
        }
        return 'no error';
      })();
      expect(message).toContain(`lacks ${REFERENCE_FILES.length - 3} of its ${REFERENCE_FILES.length} files`);
      expect(message).toContain('  mbpp/mbpp.jsonl  (from google-research/google-research mbpp/mbpp.jsonl)');
      expect(message).not.toContain('humaneval/HumanEval.jsonl.gz');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lists every reference file a test names', () => {
    const named = new Set<string>();
    for (const source of testSources(TEST_DIR)) {
      for (const match of source.matchAll(/shared\/reference\/([\w./{},-]+\.(?:jsonl\.gz|jsonl|json|md))/g)) named.add(match[1]!);
    }
    const listed = new Set(REFERENCE_FILES.map((f) => f.file));
    for (const file of named) if (!file.includes('{')) expect(listed, `${file} is read by a test`).toContain(file);
  });
});
