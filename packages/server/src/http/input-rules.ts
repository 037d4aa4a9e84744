import { AppError } from '../errors.ts';

/** One refused piece of input, as `details.errors` lists it. */
interface InputProblem {
  path: string;
  message: string;
}

const NUL = 'must not contain the NUL character (U+0000)';
const LONE_SURROGATE = 'must be well-formed Unicode text (it holds a lone surrogate)';
const MAX_PROBLEMS = 20;

// ES2024's String.prototype.isWellFormed (Node 20+); the TypeScript lib here is ES2023
const isWellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/** What is wrong with a piece of text PostgreSQL (NUL) or UTF-8 (a lone surrogate) cannot hold; else undefined. */
function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return NUL;
  if (!isWellFormed(text)) return LONE_SURROGATE;
  return undefined;
}

/**
 * Every string of an input, at any depth, object keys included, that holds a NUL or a lone surrogate. Walks with
 * its own stack (not recursion): a 1 MiB body of nested arrays must not overflow the call stack.
 */
function findTextProblems(input: unknown): InputProblem[] {
  const problems: InputProblem[] = [];
  const stack: Array<{ value: unknown; path: string[] }> = [{ value: input, path: [] }];
  while (stack.length > 0 && problems.length < MAX_PROBLEMS) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) problems.push({ path: path.join('.'), message: problem });
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: [...path, String(i)] });
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        const keyProblem = textProblem(key);
        // a bad field name is named by where it is, never echoed (it is not text we can print)
        if (keyProblem) problems.push({ path: path.join('.'), message: `field names ${keyProblem}` });
        else stack.push({ value: child, path: [...path, key] });
      }
    }
  }
  return problems;
}

/**
 * Refuses (400 VALIDATION_FAILED) an input holding text that PostgreSQL would refuse or that has no UTF-8 form,
 * before it reaches any schema, store or batched query: one member's bad text must never fail a group.
 */
export function assertAcceptableText(input: unknown): void {
  const problems = findTextProblems(input);
  if (problems.length === 0) return;
  const [first] = problems;
  const where = first!.path ? `${first!.path}: ` : '';
  throw new AppError('VALIDATION_FAILED', `Invalid request: ${where}${first!.message}`, { errors: problems });
}

/** A page cursor we did not issue (bad shape, out of range, or an impossible date): 400 before any query. */
export function invalidCursor(): AppError {
  const message = 'is not a cursor this API returned';
  const errors = [{ path: 'cursor', message }];
  return new AppError('VALIDATION_FAILED', `Invalid request: cursor: ${message}`, { errors });
}
