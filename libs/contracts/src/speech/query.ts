import { z } from 'zod/v4';

const givenOnce = (name: string) => `${name} must be given once`;

/**
 * A query-string parameter given at most once. Express reads `?a=1&a=2` as an array: the speech API
 * takes each parameter once, so a repeated one is refused rather than one of its values picked.
 */
export const onceParam = (name: string) => z.string({ error: givenOnce(name) }).optional();

/** An optional parameter checked by `ok`, with the speech API's message when it fails. */
export const checkedParam = (name: string, ok: (value: string) => boolean, message: string) =>
  z
    .string({ error: givenOnce(name) })
    .refine(ok, { error: message })
    .optional();

/** A parameter from a closed list (the JSON Schema keeps the list); repeated is "given once". */
export const enumParam = <const Values extends readonly [string, ...string[]]>(
  name: string,
  values: Values,
  message: string,
) => z.enum(values, { error: (issue) => (typeof issue.input === 'string' ? message : givenOnce(name)) }).optional();

/** Whole digits (at most `digits` of them) from `min` to `max`. */
export const integerParam = (name: string, digits: number, min: number, max: number, message: string) =>
  checkedParam(
    name,
    (v) => new RegExp(`^\\d{1,${digits}}$`).test(v) && Number(v) >= min && Number(v) <= max,
    message,
  ).meta({ type: 'integer', minimum: min, maximum: max });

/** A page size given as digits (at most `digits` of them), from 1 to `max`. */
export const pageSizeParam = (name: string, digits: number, max: number, message: string) =>
  integerParam(name, digits, 1, max, message);

/** `true` or `false` in any case. */
export const booleanParam = (name: string) =>
  checkedParam(name, (v) => /^(true|false)$/i.test(v), `${name} must be true or false`).meta({
    type: 'string',
    pattern: '^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$',
  });
