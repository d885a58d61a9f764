/**
 * A dataset file's rows as the text the families read: JSON Lines (gzipped or not) as it is, and a
 * Parquet file (Hugging Face's format for most datasets) as JSON Lines of its rows, row i on line
 * i + 1, so that every family reads either and its errors name the row as a line.
 */
import { readFileSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { Compressors } from 'hyparquet';
import { decodeMaybeGzip } from './gzipText.js';
import { JsonlFileError, readJsonlText } from './sandbox/jsonlFile.js';

const MAGIC = [0x50, 0x41, 0x52, 0x31]; // "PAR1", at both ends of a Parquet file

export function isParquet(bytes: Uint8Array): boolean {
  if (bytes.length < 12) return false;
  return MAGIC.every((b, i) => bytes[i] === b && bytes[bytes.length - 4 + i] === b);
}

// Snappy (what `datasets` and pyarrow write by default) is hyparquet's own; these are Node's.
const COMPRESSORS: Compressors = {
  GZIP: (input) => new Uint8Array(gunzipSync(input)),
  BROTLI: (input) => new Uint8Array(brotliDecompressSync(input)),
};

/** A cell's value as JSON: 64-bit integers as numbers (as `datasets`' to_json writes them) where exact, else as decimal strings. */
function jsonValue(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Date) return value.toISOString();
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) return Array.from(value as unknown as ArrayLike<number>);
  return value;
}

/** The rows of a Parquet file as JSON Lines; `source` names the file in errors. */
export async function parquetAsJsonl(bytes: Uint8Array, source: string): Promise<string> {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  // Loaded only for a Parquet file (most inputs are JSON Lines; start-up: docs/benchmarks.md).
  const { parquetReadObjects } = await import('hyparquet');
  let rows: Array<Record<string, unknown>>;
  try {
    rows = await parquetReadObjects({ file: buffer, compressors: COMPRESSORS });
  } catch (err) {
    throw new Error(`${source}: not a readable Parquet file (${(err as Error).message})`);
  }
  return rows.map((row) => JSON.stringify(row, jsonValue) + '\n').join('');
}

/** A dataset file's text: a Parquet file's rows as JSON Lines, any other file as text (gunzipped if need be). */
export async function datasetText(bytes: Uint8Array, source: string): Promise<string> {
  if (isParquet(bytes)) return parquetAsJsonl(bytes, source);
  if (/\.parquet$/i.test(source)) throw new Error(`${source}: not a Parquet file (no PAR1 mark at its start and end; cut short?)`);
  return decodeMaybeGzip(bytes);
}

/** A local rows file's text (scripts/evaluate.ts's --problems): Parquet as JSON Lines, else readJsonlText's. */
export async function readRowsText(path: string): Promise<string> {
  if (!/\.parquet$/i.test(path)) return readJsonlText(path);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new JsonlFileError(code === 'ENOENT' ? `${path}: no such file` : `${path}: ${(err as Error).message}`);
  }
  try {
    return await datasetText(bytes, path);
  } catch (err) {
    throw new JsonlFileError((err as Error).message);
  }
}
