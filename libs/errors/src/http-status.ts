/** Status carried by framework errors (body-parser sets `status`/`statusCode`), 500 otherwise. */
export function httpStatusOf(err: unknown): number {
  if (typeof err === 'object' && err !== null) {
    const candidate =
      (err as { status?: unknown; statusCode?: unknown }).status ?? (err as { statusCode?: unknown }).statusCode;
    if (typeof candidate === 'number' && candidate >= 400 && candidate <= 599) return candidate;
  }
  return 500;
}
