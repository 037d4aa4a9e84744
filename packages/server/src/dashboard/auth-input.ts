import { z } from 'zod';
import { assertAcceptableInput } from '../http/input-rules.ts';
import { EMAIL_MAX, NAME_MAX, PASSWORD_MAX } from '../rules.ts';

/** A profile picture is a URL; browsers and proxies commonly take up to this many characters. */
const IMAGE_URL_MAX = 2048;
/** Session tokens, passkey ids and the like are a few dozen characters. */
const TOKEN_MAX = 200;

const text = (max: number) => z.string().max(max);

/**
 * The fields of better-auth's endpoints (sign-up, sign-in, update-user, change-password, sessions, passkeys) whose
 * text it stores or looks up, typed and capped before it sees them; other fields are left to better-auth's schemas.
 */
const authBody = z.looseObject({
  name: text(NAME_MAX).optional(),
  email: text(EMAIL_MAX).optional(),
  newEmail: text(EMAIL_MAX).optional(),
  image: text(IMAGE_URL_MAX).nullable().optional(),
  password: text(PASSWORD_MAX).optional(),
  newPassword: text(PASSWORD_MAX).optional(),
  currentPassword: text(PASSWORD_MAX).optional(),
  token: text(TOKEN_MAX).optional(),
  id: text(TOKEN_MAX).optional(),
  callbackURL: text(IMAGE_URL_MAX).optional(),
});

/** Refuses (400 VALIDATION_FAILED, naming the field) a sign-in surface body that breaks the input rules or a cap. */
export function assertAuthBody(body: Record<string, unknown>): void {
  assertAcceptableInput(body);
  const checked = authBody.safeParse(body);
  if (!checked.success) throw checked.error;
}

/** Refuses a query string holding text PostgreSQL or UTF-8 cannot hold, each parameter checked once. */
export function assertAuthQuery(query: URLSearchParams): void {
  for (const [name, value] of query) assertAcceptableInput({ [name]: value });
}
