/**
 * A file's bytes as text, gunzipped when they are gzip's (its magic bytes). A module of its own:
 * scripts/evaluate.ts reads its input through it, and must not load the S3 client with it.
 */
import { gunzipSync } from 'node:zlib';

export function decodeMaybeGzip(bytes: Uint8Array): string {
  const buf = Buffer.from(bytes);
  return (buf[0] === 0x1f && buf[1] === 0x8b ? gunzipSync(buf) : buf).toString('utf8');
}
