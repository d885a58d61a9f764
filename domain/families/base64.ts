/**
 * A text's UTF-8 bytes in base64: how a family's harness carries a solution or its tests inside the
 * program it runs (decoded there with Python's base64), untouched by quoting. btoa over the bytes,
 * in chunks (String.fromCharCode takes a bounded number of arguments), keeps the domain layer free
 * of Node's Buffer.
 */
export function utf8Base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
