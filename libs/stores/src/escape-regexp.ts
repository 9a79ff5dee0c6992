/**
 * `text` as a regular expression that matches exactly it: user input in MongoDB `$regex` filters
 * (case-insensitive substring and search filters of content and the speech store).
 */
export const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
