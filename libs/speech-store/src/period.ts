/**
 * Character counts reset monthly, on the first day of each calendar month at 00:00 UTC: one
 * boundary for every account, easy to predict and to explain.
 */
export function nextMonthStartUnix(nowMs: number): number {
  const now = new Date(nowMs);
  return Math.floor(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) / 1000);
}
