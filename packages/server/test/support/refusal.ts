import { expect } from 'vitest';
import { AppError } from '../../src/errors.ts';

/** The AppError a promise is refused with (the test fails when it resolves or fails otherwise). */
export async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}
