/**
 * Parquet dataset files (Hugging Face's format) read as JSON Lines of their rows: files written by
 * pyarrow with the `datasets` schema of CodeXGLUE's sets (test/support/parquet/, made by
 * write_codexglue_parquet.py from the rows in classification-rows.ts) read back to those rows, in
 * order, with their types (int32 ids, bools); other files pass as text; a file named .parquet that
 * is not one, or is cut short, is refused naming it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { datasetText, isParquet, readRowsText } from '../../infra/datasetText.js';
import { CLONE_ROWS, DEFECT_ROWS, jsonl } from '../support/classification-rows.js';

const dir = path.resolve(import.meta.dirname, '../support/parquet');
const fixture = (name: string) => path.join(dir, `${name}-test-00000-of-00001.parquet`);

describe('Parquet rows as JSON Lines', () => {
  it("reads pyarrow's files of CodeXGLUE's sets back to their rows, row i on line i + 1", async () => {
    for (const [name, rows] of [['clone', CLONE_ROWS], ['defect', DEFECT_ROWS]] as const) {
      const bytes = readFileSync(fixture(name));
      expect(isParquet(bytes)).toBe(true);
      const text = await datasetText(bytes, fixture(name));
      expect(text).toBe(jsonl(rows));
      expect(await readRowsText(fixture(name))).toBe(text);
    }
  });

  it('passes JSON Lines and gzip through as text', async () => {
    const text = jsonl(DEFECT_ROWS);
    expect(await datasetText(Buffer.from(text), 'a.jsonl')).toBe(text);
    expect(await datasetText(gzipSync(text), 'a.jsonl.gz')).toBe(text);
  });

  it('refuses a .parquet file that is not one, or is cut short, naming it', async () => {
    await expect(datasetText(Buffer.from(jsonl(DEFECT_ROWS)), 'test.parquet')).rejects.toThrow(
      'test.parquet: not a Parquet file (no PAR1 mark at its start and end; cut short?)',
    );
    const bytes = readFileSync(fixture('clone'));
    await expect(datasetText(bytes.subarray(0, bytes.length - 100), 'clone.parquet')).rejects.toThrow(/^clone\.parquet: not a Parquet file/);
    // Both marks there, the footer garbled.
    const garbled = Buffer.from(bytes);
    garbled.fill(0xff, garbled.length - 60, garbled.length - 8);
    await expect(datasetText(garbled, 'clone.parquet')).rejects.toThrow(/^clone\.parquet: not a readable Parquet file/);
    await expect(readRowsText(path.join(dir, 'missing.parquet'))).rejects.toThrow(/missing\.parquet: no such file/);
  });
});
