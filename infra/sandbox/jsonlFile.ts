import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

/** A `.jsonl` / `.jsonl.gz` file that cannot be read, named, with why. */
export class JsonlFileError extends Error {}

/** Text of a `.jsonl` file, or of a `.jsonl.gz` file decompressed. */
export function readJsonlText(path: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new JsonlFileError(
      code === 'ENOENT' ? `${path}: no such file` : code === 'EISDIR' ? `${path}: is a directory` : `${path}: ${(err as Error).message}`,
    );
  }
  if (!path.endsWith('.gz')) return bytes.toString('utf8');
  try {
    return gunzipSync(bytes).toString('utf8');
  } catch (err) {
    throw new JsonlFileError(`${path}: not gzip data, though named .gz (${(err as Error).message})`);
  }
}
