/**
 * The `@validate(constraint:)` language (docs/content.md):
 *   length:MIN..MAX   string length (either bound may be left out: "length:..100")
 *   range:MIN..MAX    integer/number range
 *   email             an email address
 *   url               an http(s) URL
 *   pattern:REGEX     the whole string matches REGEX (JavaScript syntax, anchored by the author)
 * On a list, the constraint applies to each element. Null and absent values are not checked
 * (non-null is the type system's job).
 */
export type Check = (value: unknown) => string | null;

function bounds(spec: string): [number | null, number | null] {
  const match = /^(-?\d+)?\.\.(-?\d+)?$/.exec(spec);
  if (!match) throw new Error(`malformed bounds "${spec}"`);
  return [match[1] !== undefined ? Number(match[1]) : null, match[2] !== undefined ? Number(match[2]) : null];
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{1,63}$/;

export function compileConstraint(constraint: string): Check {
  const colon = constraint.indexOf(':');
  const kind = colon === -1 ? constraint : constraint.slice(0, colon);
  const arg = colon === -1 ? '' : constraint.slice(colon + 1);
  let check: Check;
  switch (kind) {
    case 'length': {
      const [min, max] = bounds(arg);
      check = (v) => {
        if (typeof v !== 'string') return 'must be a string';
        const length = v.trim().length === 0 && (min ?? 0) > 0 ? 0 : v.length;
        if (min !== null && length < min)
          return min === 1 ? 'must not be blank' : `must have at least ${min} characters`;
        if (max !== null && length > max) return `must have at most ${max} characters`;
        return null;
      };
      break;
    }
    case 'range': {
      const [min, max] = bounds(arg);
      check = (v) => {
        if (typeof v !== 'number') return 'must be a number';
        if ((min !== null && v < min) || (max !== null && v > max))
          return `must be between ${min ?? '-∞'} and ${max ?? '∞'}`;
        return null;
      };
      break;
    }
    case 'email':
      check = (v) =>
        typeof v === 'string' && v.length <= 320 && EMAIL.test(v) ? null : 'must be a valid email address';
      break;
    case 'url':
      check = (v) => {
        if (typeof v !== 'string') return 'must be a URL';
        try {
          const url = new URL(v);
          return url.protocol === 'http:' || url.protocol === 'https:' ? null : 'must be an http(s) URL';
        } catch {
          return 'must be an http(s) URL';
        }
      };
      break;
    case 'pattern': {
      const re = new RegExp(arg, 'u');
      check = (v) => (typeof v === 'string' && v.length <= 10_000 && re.test(v) ? null : `must match ${arg}`);
      break;
    }
    default:
      throw new Error(`unknown @validate constraint "${constraint}"`);
  }
  return (value) => {
    if (value === null || value === undefined) return null;
    if (Array.isArray(value)) {
      for (const item of value) {
        const problem = check(item);
        if (problem) return problem;
      }
      return null;
    }
    return check(value);
  };
}
