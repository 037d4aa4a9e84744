import { z } from 'zod';

type Issue = z.core.$ZodRawIssue;

const TYPE_NAMES: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
};

const FORMAT_NAMES: Record<string, string> = {
  datetime: 'an ISO 8601 date-time',
  date: 'an ISO 8601 date',
  time: 'an ISO 8601 time',
  url: 'a URL',
  uuid: 'a UUID',
  email: 'an email address',
};

type SchemaWithChecks = { _zod?: { def?: { checks?: Array<{ _zod: { def: Record<string, unknown> } }> } } } | undefined;

/** What a number schema declares (whole, bounds), read from its checks: "must be a whole number from 1 to 100". */
function numberRule(issue: Issue): string {
  const defs = ((issue.inst as SchemaWithChecks)?._zod?.def?.checks ?? []).map((c) => c._zod.def);
  const whole = defs.some((d) => d.check === 'number_format' && String(d.format).includes('int'));
  const min = defs.find((d) => d.check === 'greater_than' && d.inclusive)?.value;
  const max = defs.find((d) => d.check === 'less_than' && d.inclusive)?.value;
  const range = min !== undefined && max !== undefined ? ` from ${String(min)} to ${String(max)}` : '';
  return `must be ${whole ? 'a whole number' : 'a number'}${range}`;
}

const literal = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value) : String(value));

function invalidType(issue: Extract<Issue, { code: 'invalid_type' }>): string {
  if (issue.expected === 'number') return numberRule(issue);
  return `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
}

type Bound = 'at most' | 'at least' | 'less than' | 'more than' | 'exactly';

function sizeRule(origin: string, bound: Bound, n: number | bigint): string {
  const plural = Number(n) === 1 ? '' : 's';
  if (origin === 'string' && bound === 'at least' && n === 1) return 'must not be empty';
  if (origin === 'string') return `must be ${bound} ${n} character${plural}`;
  if (origin === 'array' || origin === 'set') return `must hold ${bound} ${n} item${plural}`;
  return `must be ${bound} ${n}`;
}

function tooBig(issue: Extract<Issue, { code: 'too_big' }>): string {
  return sizeRule(issue.origin, issue.exact ? 'exactly' : issue.inclusive ? 'at most' : 'less than', issue.maximum);
}

function tooSmall(issue: Extract<Issue, { code: 'too_small' }>): string {
  return sizeRule(issue.origin, issue.exact ? 'exactly' : issue.inclusive ? 'at least' : 'more than', issue.minimum);
}

function invalidFormat(issue: Extract<Issue, { code: 'invalid_format' }>): string {
  if (issue.format === 'regex') return 'is not in the expected format';
  if (issue.format === 'starts_with') return `must start with "${(issue as { prefix?: string }).prefix}"`;
  return `must be ${FORMAT_NAMES[issue.format] ?? `a valid ${issue.format}`}`;
}

/** A union of formats (an instant as a date-time or a date): name them all; else say no form matched. */
function invalidUnion(issue: Extract<Issue, { code: 'invalid_union' }>): string {
  const formatOf = (branch: Array<{ code: string; format?: string }>) =>
    branch.length === 1 && branch[0]!.code === 'invalid_format' ? FORMAT_NAMES[branch[0]!.format ?? ''] : undefined;
  const formats = (issue.errors ?? []).map(formatOf);
  if (formats.length > 0 && formats.every(Boolean)) return `must be ${formats.join(' or ')}`;
  return 'is not in any of the accepted forms';
}

const NAMED_KEYS = 5;

function unrecognizedKeys(issue: Extract<Issue, { code: 'unrecognized_keys' }>): string {
  // a few names, not every one of a hostile body's thousand keys
  const shown = issue.keys.slice(0, NAMED_KEYS).map((key) => JSON.stringify(key.slice(0, 64)));
  const more = issue.keys.length > NAMED_KEYS ? ` and ${issue.keys.length - NAMED_KEYS} more` : '';
  return `${shown.join(', ')}${more} ${issue.keys.length === 1 ? 'is not a field' : 'are not fields'} of this request`;
}

/** zod's default messages ("Invalid input: expected number, received NaN") as plain sentences about the field. */
function plainMessage(issue: Issue): string | undefined {
  const missing = issue.input === undefined && ['invalid_type', 'invalid_value', 'invalid_union'].includes(issue.code);
  if (missing) return 'is required';
  switch (issue.code) {
    case 'invalid_type':
      return invalidType(issue);
    case 'invalid_value':
      if (issue.values.length === 1) return `must be ${literal(issue.values[0])}`;
      return `must be one of: ${issue.values.map(String).join(', ')}`;
    case 'too_big':
      return tooBig(issue);
    case 'too_small':
      return tooSmall(issue);
    case 'invalid_format':
      return invalidFormat(issue);
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return unrecognizedKeys(issue);
    case 'invalid_union':
      return invalidUnion(issue);
    case 'invalid_key':
      return 'holds a field name that is not allowed';
    case 'invalid_element':
      return 'holds a value that is not allowed';
    default:
      return 'is not valid';
  }
}

// Once per process: a schema's own message (contracts.ts) still wins over this; this replaces only zod's defaults.
z.config({ customError: plainMessage });
