import type { z } from 'zod';

type Checked<T> = { ok: true; data: T; problem?: undefined } | { ok: false; data?: undefined; problem: string };

/**
 * A form's values checked with the service's own schema (`@attestation-service/server/rules`) before they are sent:
 * the parsed values (trimmed, normalised as the service stores them), or the first problem as a sentence, led by the
 * field's label when the form names it.
 */
export function check<S extends z.ZodType>(
  schema: S,
  values: z.input<S>,
  labels: Record<string, string> = {},
): Checked<z.output<S>> {
  const parsed = schema.safeParse(values);
  if (parsed.success) return { ok: true, data: parsed.data };
  const issue = parsed.error.issues[0];
  const label = labels[String(issue?.path[0] ?? '')];
  const message = issue?.message ?? 'This is not valid.';
  return { ok: false, problem: label ? `${label}: ${message}` : message };
}
