/** The innermost cause's message: Temporal wraps an activity's own error in ActivityFailure etc. */
export function rootCauseMessage(err: unknown): string {
  let e = err as { message?: string; cause?: unknown } | undefined;
  while (e && typeof e === 'object' && e.cause) e = e.cause as typeof e;
  return e?.message ?? String(err);
}
