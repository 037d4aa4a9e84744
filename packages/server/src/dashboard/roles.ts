import { AppError } from '../errors.ts';

/** A member's role in an account, from most to least powerful. */
export const ROLES = ['owner', 'admin', 'developer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** Whether `role` is at least `needed` (owner ⊇ admin ⊇ developer ⊇ viewer). */
export function hasRole(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) <= ROLES.indexOf(needed);
}

/** FORBIDDEN unless the member's role is at least `needed`; the message names both. */
export function requireRole(role: Role, needed: Role): void {
  if (!hasRole(role, needed))
    throw new AppError('FORBIDDEN', `This needs the ${needed} role or higher; yours is ${role}.`, {
      role,
      needed,
    });
}
