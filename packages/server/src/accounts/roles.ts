import { AppError } from '../errors.ts';
import { hasRole, type Role } from '../rules.ts';

export { isRole, ROLES, type Role } from '../rules.ts';

/** FORBIDDEN unless the member's role is at least `needed`; the message names both. */
export function requireRole(role: Role, needed: Role): void {
  if (!hasRole(role, needed))
    throw new AppError('FORBIDDEN', `This needs the ${needed} role or higher; yours is ${role}.`, {
      role,
      needed,
    });
}
