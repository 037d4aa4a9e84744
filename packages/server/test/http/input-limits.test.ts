import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import {
  assertAcceptableInput,
  assertJsonShape,
  MAX_CONTAINER_ENTRIES,
  MAX_INPUT_DEPTH,
  MAX_REPORTED_PROBLEMS,
} from '../../src/http/input-rules.ts';

/** The refusal `run` throws (its details.errors), or undefined when it accepts. */
function refusal(run: () => void): { path: string; message: string }[] | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).errorCode).toBe('VALIDATION_FAILED');
    return ((error as AppError).details as { errors: { path: string; message: string }[] }).errors;
  }
}

const nestedArrays = (levels: number): unknown => {
  let value: unknown = [];
  for (let i = 1; i < levels; i++) value = [value];
  return value;
};
const nestedObjects = (levels: number): unknown => {
  let value: unknown = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
};
const utf8 = (text: string) => Buffer.from(text, 'utf8');

describe('nesting is capped at MAX_INPUT_DEPTH levels', () => {
  it('takes exactly MAX_INPUT_DEPTH levels of lists or objects, and refuses one more', () => {
    expect(MAX_INPUT_DEPTH).toBe(32);
    expect(refusal(() => assertAcceptableInput(nestedArrays(32)))).toBeUndefined();
    expect(refusal(() => assertAcceptableInput(nestedObjects(32)))).toBeUndefined();
    expect(refusal(() => assertAcceptableInput(nestedArrays(33)))).toEqual([
      { path: Array(32).fill('0').join('.'), message: 'must not nest objects or lists deeper than 32 levels' },
    ]);
    expect(refusal(() => assertAcceptableInput(nestedObjects(33)))?.[0]?.path).toBe(Array(32).fill('a').join('.'));
  });

  it('a refused value deep down names the place where it passes the cap, not the whole depth', () => {
    const errors = refusal(() => assertAcceptableInput({ content: nestedArrays(200_000) }));
    expect(errors).toHaveLength(1);
    expect(errors![0]!.path.split('.')).toHaveLength(32);
    expect(errors![0]!.path.startsWith('content.0.0')).toBe(true);
  });

  it('scans JSON text for depth before it is parsed, counting no bracket inside a string', () => {
    expect(refusal(() => assertJsonShape(utf8(`${'['.repeat(32)}${']'.repeat(32)}`)))).toBeUndefined();
    expect(refusal(() => assertJsonShape(utf8(`${'['.repeat(33)}${']'.repeat(33)}`)))).toEqual([
      { path: '', message: 'must not nest objects or lists deeper than 32 levels' },
    ]);
    const quoted = JSON.stringify({ a: '['.repeat(100), b: '\\"{{{{', c: '"[[[' });
    expect(refusal(() => assertJsonShape(utf8(quoted)))).toBeUndefined();
    // siblings close their levels: 999 lists side by side are one level deep
    expect(refusal(() => assertJsonShape(utf8(`[${'[0],'.repeat(999)}0]`)))).toBeUndefined();
    expect(refusal(() => assertJsonShape(utf8(`${'[[],0,'.repeat(40)}${']'.repeat(40)}`)))).toHaveLength(1);
  });

  it('multi-byte characters (é, emoji) never look like brackets or quotes', () => {
    const text = JSON.stringify({ a: 'é😀"[', b: [['ü']] });
    expect(refusal(() => assertJsonShape(utf8(text)))).toBeUndefined();
  });
});

describe('lists and objects hold at most MAX_CONTAINER_ENTRIES entries', () => {
  it('takes a list of MAX_CONTAINER_ENTRIES items and refuses one more, without walking it', () => {
    expect(MAX_CONTAINER_ENTRIES).toBe(1000);
    expect(refusal(() => assertAcceptableInput({ events: Array(1000).fill('x') }))).toBeUndefined();
    const items = Array(1001).fill('\u0000');
    expect(refusal(() => assertAcceptableInput({ events: items }))).toEqual([
      { path: 'events', message: 'must hold at most 1000 items' },
    ]);
  });

  it('takes an object of MAX_CONTAINER_ENTRIES fields and refuses one more', () => {
    const fields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    expect(refusal(() => assertAcceptableInput(fields(1000)))).toBeUndefined();
    expect(refusal(() => assertAcceptableInput({ x: fields(100_000) }))).toEqual([
      { path: 'x', message: 'must hold at most 1000 fields' },
    ]);
  });
});

describe('the JSON text is judged for width before it is parsed', () => {
  const list = (n: number) => utf8(JSON.stringify(Array(n).fill(0)));
  const object = (n: number) =>
    utf8(JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 0]))));

  it('takes 1,000 items or fields at any level and refuses one more, naming which', () => {
    expect(refusal(() => assertJsonShape(list(1000)))).toBeUndefined();
    expect(refusal(() => assertJsonShape(object(1000)))).toBeUndefined();
    expect(refusal(() => assertJsonShape(list(1001)))).toEqual([{ path: '', message: 'must hold at most 1000 items' }]);
    const nested = utf8(
      `{"a":[{"b":${JSON.stringify(Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [i, 1])))}}]}`,
    );
    expect(refusal(() => assertJsonShape(nested))).toEqual([{ path: '', message: 'must hold at most 1000 fields' }]);
  });

  it('counts entries per container: 999 small lists of 999 items each are fine', () => {
    const row = JSON.stringify(Array(999).fill(1));
    expect(refusal(() => assertJsonShape(utf8(`[${Array(999).fill(row).join(',')}]`)))).toBeUndefined();
  });

  it('skips strings whole: commas, brackets and escaped quotes inside them count for nothing', () => {
    const text = JSON.stringify({ a: ','.repeat(5000), b: '\\"[[[,,,', c: 'x\\', d: ['"', '\\'] });
    expect(refusal(() => assertJsonShape(utf8(text)))).toBeUndefined();
    // an escaped backslash before a quote ends the string: the brackets after it are counted
    const closing = utf8(`["a\\\\",${'['.repeat(40)}${']'.repeat(40)}]`);
    expect(refusal(() => assertJsonShape(closing))?.[0]?.message).toMatch(/deeper than 32/);
  });
});

describe('what one refusal reports', () => {
  it(`lists at most ${MAX_REPORTED_PROBLEMS} problems however many the input holds`, () => {
    const errors = refusal(() => assertAcceptableInput({ items: Array(900).fill('a\u0000') }));
    expect(errors).toHaveLength(MAX_REPORTED_PROBLEMS);
    expect(errors![0]).toEqual({ path: 'items.0', message: 'must not contain the NUL character (U+0000)' });
  });

  it('still refuses NUL and lone surrogates in values and field names at any allowed depth', () => {
    expect(refusal(() => assertAcceptableInput({ a: [{ b: 'x\u0000' }] }))).toEqual([
      { path: 'a.0.b', message: 'must not contain the NUL character (U+0000)' },
    ]);
    expect(refusal(() => assertAcceptableInput({ a: { '\ud800': 1 } }))).toEqual([
      { path: 'a', message: 'field names must be well-formed Unicode text (it holds a lone surrogate)' },
    ]);
  });
});
