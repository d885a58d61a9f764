/** How a validation failure of a row or a file reads in an error message: one line, every issue. */
import type { z } from 'zod';

/**
 * `field.path: message; other: message`, each issue under its path (`root` when it concerns the
 * value as a whole) and `prefix` before the path (e.g. `input_output.` for a field parsed apart).
 */
export function issuesLine(error: Pick<z.ZodError, 'issues'>, options: { root?: string; prefix?: string } = {}): string {
  const { root = '(row)', prefix = '' } = options;
  const where = (path: readonly PropertyKey[]) => (path.length ? prefix + path.join('.') : prefix.replace(/\.$/, '') || root);
  return error.issues.map((issue) => `${where(issue.path)}: ${issue.message}`).join('; ');
}
