/** `text` as a regular expression that matches exactly it (for case-insensitive substring filters). */
export const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
