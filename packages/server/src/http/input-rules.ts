import { AppError } from '../errors.ts';

/** One refused piece of input, as `details.errors` lists it. */
interface InputProblem {
  path: string;
  message: string;
}

/** How deep objects and arrays may nest in any input: no procedure takes more than a few levels. */
export const MAX_INPUT_DEPTH = 32;
/** How many items an array, or fields an object, may hold: the largest input (a batch) takes 100. */
export const MAX_CONTAINER_ENTRIES = 1000;
/** How many problems one answer lists: a caller needs the first few, not one per item of a hostile body. */
export const MAX_REPORTED_PROBLEMS = 20;

const NUL = 'must not contain the NUL character (U+0000)';
const LONE_SURROGATE = 'must be well-formed Unicode text (it holds a lone surrogate)';
const TOO_DEEP = `must not nest objects or lists deeper than ${MAX_INPUT_DEPTH} levels`;
const TOO_MANY_ITEMS = `must hold at most ${MAX_CONTAINER_ENTRIES} items`;
const TOO_MANY_FIELDS = `must hold at most ${MAX_CONTAINER_ENTRIES} fields`;

// ES2024's String.prototype.isWellFormed (Node 20+); the TypeScript lib here is ES2023
const isWellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/** What is wrong with a piece of text PostgreSQL (NUL) or UTF-8 (a lone surrogate) cannot hold; else undefined. */
function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return NUL;
  if (!isWellFormed(text)) return LONE_SURROGATE;
  return undefined;
}

/**
 * A value met on the walk. Each frame points at its parent instead of carrying its path, so the walk stays linear
 * in the input's size; a path is spelled out (at most MAX_INPUT_DEPTH steps) only for a problem that is reported.
 */
interface Frame {
  value: unknown;
  key: string;
  depth: number;
  parent: Frame | undefined;
}

function pathOf(frame: Frame | undefined): string {
  const keys: string[] = [];
  for (let at = frame; at?.parent !== undefined; at = at.parent) keys.push(at.key);
  return keys.reverse().join('.');
}

/**
 * Every problem of an input, up to MAX_REPORTED_PROBLEMS, in one pass that visits each value once: text that
 * PostgreSQL or UTF-8 cannot hold (object keys included), nesting past MAX_INPUT_DEPTH and containers past
 * MAX_CONTAINER_ENTRIES (neither is walked into). Its own stack, not recursion: no input overflows the call stack.
 */
function findProblems(input: unknown): InputProblem[] {
  const problems: InputProblem[] = [];
  const report = (frame: Frame | undefined, message: string) => problems.push({ path: pathOf(frame), message });
  const stack: Frame[] = [{ value: input, key: '', depth: 0, parent: undefined }];
  while (stack.length > 0 && problems.length < MAX_REPORTED_PROBLEMS) {
    const frame = stack.pop()!;
    const { value } = frame;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) report(frame, problem);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    const depth = frame.depth + 1;
    if (depth > MAX_INPUT_DEPTH) {
      report(frame, TOO_DEEP);
    } else if (Array.isArray(value)) {
      if (value.length > MAX_CONTAINER_ENTRIES) report(frame, TOO_MANY_ITEMS);
      else
        for (let i = value.length - 1; i >= 0; i--)
          stack.push({ value: value[i], key: String(i), depth, parent: frame });
    } else {
      const keys = Object.keys(value);
      if (keys.length > MAX_CONTAINER_ENTRIES) report(frame, TOO_MANY_FIELDS);
      for (let i = keys.length - 1; i >= 0 && keys.length <= MAX_CONTAINER_ENTRIES; i--) {
        const key = keys[i]!;
        const keyProblem = textProblem(key);
        // a bad field name is named by where it is, never echoed (it is not text we can print)
        if (keyProblem) report(frame, `field names ${keyProblem}`);
        else stack.push({ value: (value as Record<string, unknown>)[key], key, depth, parent: frame });
      }
    }
  }
  return problems;
}

/** 400 VALIDATION_FAILED listing these problems, the first in the message. */
function inputRefused(problems: InputProblem[]): AppError {
  const [first] = problems;
  const where = first!.path ? `${first!.path}: ` : '';
  return new AppError('VALIDATION_FAILED', `Invalid request: ${where}${first!.message}`, {
    errors: problems.slice(0, MAX_REPORTED_PROBLEMS),
  });
}

/**
 * Refuses (400 VALIDATION_FAILED) an input nested too deep, too wide, or holding text that PostgreSQL would refuse
 * or that has no UTF-8 form, before any schema, store or batched query walks it: one member's bad input must never
 * fail a group, and no input may cost more than its size (docs/decisions.md, "Input rules").
 */
export function assertAcceptableInput(input: unknown): void {
  const problems = findProblems(input);
  if (problems.length > 0) throw inputRefused(problems);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/** Where the string whose opening quote is at `open` ends (its closing quote), or the text's length. */
function stringEnd(text: Uint8Array, open: number): number {
  for (let at = open + 1; ; at++) {
    at = text.indexOf(QUOTE, at);
    if (at === -1) return text.length;
    let backslashes = 0;
    while (text[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

/**
 * Refuses JSON text nesting deeper than MAX_INPUT_DEPTH or holding a list or object of more than
 * MAX_CONTAINER_ENTRIES entries, before it is parsed: one pass over the bytes (strings skipped by a native search),
 * so a body of a million brackets or a hundred thousand fields costs a millisecond or two here instead of a parse
 * and a walk. Malformed text is left to the parser.
 */
export function assertJsonShape(text: Uint8Array): void {
  // per open level: its entries so far, and whether it is an object
  const entries = new Uint32Array(MAX_INPUT_DEPTH + 1);
  const isObject = new Uint8Array(MAX_INPUT_DEPTH + 1);
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const byte = text[i]!;
    if (byte === QUOTE) {
      i = stringEnd(text, i);
    } else if (byte === COMMA) {
      if (++entries[depth]! >= MAX_CONTAINER_ENTRIES) {
        throw inputRefused([{ path: '', message: isObject[depth] ? TOO_MANY_FIELDS : TOO_MANY_ITEMS }]);
      }
    } else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
      if (++depth > MAX_INPUT_DEPTH) throw inputRefused([{ path: '', message: TOO_DEEP }]);
      entries[depth] = 0;
      isObject[depth] = byte === OPEN_BRACE ? 1 : 0;
    } else if ((byte === CLOSE_BRACKET || byte === CLOSE_BRACE) && depth > 0) {
      depth--;
    }
  }
}

/** A page cursor we did not issue (bad shape, out of range, or an impossible date): 400 before any query. */
export function invalidCursor(): AppError {
  const message = 'is not a cursor this API returned';
  const errors = [{ path: 'cursor', message }];
  return new AppError('VALIDATION_FAILED', `Invalid request: cursor: ${message}`, { errors });
}
