import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

/** Text of a `.jsonl` file, or of a `.jsonl.gz` file decompressed. */
export function readJsonlText(path: string): string {
  const bytes = readFileSync(path);
  return (path.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
}
