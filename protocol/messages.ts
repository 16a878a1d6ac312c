import { z } from 'zod';
import { formatDuration } from './durations.ts';

/**
 * mon's words for validation problems wherever a schema sets none of its own: "required", "must be a
 * string", "must be at most 100 characters", "must be one of GET, HEAD", "unknown field \"color\"".
 * Importing this module installs them for the whole process (the API's error handler and the mon.toml
 * loader import it), so no answer and no file error carries the schema library's phrasing.
 */

type Issue = z.core.$ZodRawIssue;

/** What a value must be, by the type a schema expected. */
const kinds: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  bigint: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  tuple: 'a list',
  set: 'a list',
  object: 'an object',
  record: 'an object',
  map: 'an object',
  date: 'a date',
  null: 'null',
};

/** String formats a schema may ask for. */
const formats: Record<string, string> = {
  email: 'an email address',
  url: 'a URL',
  uuid: 'a UUID',
  datetime: 'a date and time such as 2026-03-01T12:00:00Z',
  date: 'a date such as 2026-03-01',
  time: 'a time such as 12:00:00',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  cidrv4: 'an IPv4 range such as 10.0.0.0/8',
  cidrv6: 'an IPv6 range such as fd00::/8',
  base64: 'base64 text',
  base64url: 'base64url text',
};

/** The message of an issue in mon's words. */
export function plainMessage(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.expected === 'never' || issue.expected === 'undefined' || issue.expected === 'void')
        return 'is not allowed here';
      if (issue.input === undefined) return 'required';
      return `must be ${kinds[issue.expected] ?? `a ${issue.expected}`}`;
    case 'too_big':
      return bound('max', issue.maximum, issue);
    case 'too_small':
      return bound('min', issue.minimum, issue);
    case 'invalid_format':
      return formatMessage(issue);
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
    case 'invalid_union':
      return unionMessage(issue);
    case 'invalid_key':
      return 'is not allowed as a key here';
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${shown(issue.values[0])}`
        : `must be one of ${issue.values.map(shown).join(', ')}`;
    default:
      return 'is not valid';
  }
}

z.config({ customError: plainMessage });

/**
 * The field an issue is about and its message, for an answer's `detail`: an unknown key is named
 * itself ("color: unknown field") rather than through the object that holds it.
 */
export function fieldIssue(issue: z.core.$ZodIssue): { path: PropertyKey[]; message: string } {
  if (issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined) {
    return { path: [...issue.path, issue.keys[0]], message: 'unknown field' };
  }
  return { path: issue.path, message: issue.message };
}

/** A limit of a size or value: "must be at most 100 characters", "must have at least 1 item". */
function bound(
  side: 'min' | 'max',
  limit: number | bigint,
  issue: { origin: string; inclusive?: boolean; exact?: boolean; path?: PropertyKey[] },
): string {
  const exclusive = issue.inclusive === false;
  const relation = issue.exact
    ? 'exactly'
    : side === 'max'
      ? exclusive
        ? 'less than'
        : 'at most'
      : exclusive
        ? 'more than'
        : 'at least';
  const n = Number(limit);
  const key = issue.path?.at(-1);
  switch (issue.origin) {
    case 'number':
    case 'int':
    case 'bigint':
      // Millisecond fields (everyMs, graceMs) read better as durations: "must be at most 7d".
      if (typeof key === 'string' && key.endsWith('Ms') && Number.isSafeInteger(n) && n >= 0)
        return `must be ${relation} ${formatDuration(n)}`;
      return `must be ${relation} ${limit}`;
    case 'string':
      if (n === 1 && relation === 'at least') return 'must not be empty';
      return `must be ${relation} ${n} character${n === 1 ? '' : 's'}`;
    case 'array':
    case 'set':
      if (n === 1 && relation === 'at least') return 'must not be empty';
      return `must have ${relation} ${n} item${n === 1 ? '' : 's'}`;
    case 'file':
      return `must be ${relation} ${n} bytes`;
    case 'date':
      return `must be ${side === 'max' ? 'no later than' : 'no earlier than'} ${new Date(n).toISOString()}`;
    default:
      return side === 'max' ? 'is too large' : 'is too small';
  }
}

function formatMessage(issue: Issue & { code: 'invalid_format' }): string {
  const known = formats[issue.format];
  if (known) return `must be ${known}`;
  if (issue.format === 'starts_with') return `must start with "${issue.prefix}"`;
  if (issue.format === 'ends_with') return `must end with "${issue.suffix}"`;
  if (issue.format === 'includes') return `must contain "${issue.includes}"`;
  return 'is not in the required format';
}

/**
 * A value that fits none of a union's forms: the problem of the one form whose type it has (700 for a
 * status code or pattern: "must be at most 599"), else the types it may have.
 */
function unionMessage(issue: Issue & { code: 'invalid_union' }): string {
  if (issue.inclusive === false) return 'matches more than one of the allowed forms';
  const firsts = issue.errors.map((branch) => branch[0]).filter((first) => first !== undefined);
  const wrongType = (first: z.core.$ZodIssue) => first.code === 'invalid_type' && first.path.length === 0;
  const typed = firsts.filter((first) => !wrongType(first));
  if (typed.length === 1 && typed[0]!.path.length === 0) return typed[0]!.message;
  if (typed.length === 0 && firsts.length > 0) {
    const expected = firsts.map((first) =>
      first.code === 'invalid_type' ? kinds[first.expected] : undefined,
    );
    if (expected.every((kind) => kind !== undefined)) return `must be ${[...new Set(expected)].join(' or ')}`;
  }
  return 'is not valid';
}

function shown(value: unknown): string {
  if (value === '') return '""';
  return typeof value === 'string' ? value : String(value);
}
