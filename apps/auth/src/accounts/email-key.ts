/**
 * The unique key of an account's email: trimmed and lower-cased, so `A@x.io` and ` a@x.io` are one
 * account. The account keeps the email as given for display; lookups and the unique index use this.
 */
export function emailKeyOf(email: string): string {
  return email.trim().toLowerCase();
}
