import { z } from 'zod';

/** An ISO 8601 instant in a response (as Date.toISOString writes it): documented as a date-time, not checked again. */
export function timestamp(description = 'ISO 8601, UTC') {
  return z.string().meta({ description, format: 'date-time', example: '2025-01-01T12:00:00.000Z' });
}
