import { expect } from 'vitest';
import { AttestationServiceError } from '../src/index.ts';

/** The AttestationServiceError a call rejects with (fails the test if it resolves or throws anything else). */
export async function caught(promise: Promise<unknown>): Promise<AttestationServiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AttestationServiceError);
  return error as AttestationServiceError;
}
