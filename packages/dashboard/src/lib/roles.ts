/** A member's role in an account, highest first: owner > admin > developer > viewer. */
export type Role = 'owner' | 'admin' | 'developer' | 'viewer';

export const ROLES: readonly Role[] = ['owner', 'admin', 'developer', 'viewer'];

const RANK: Record<Role, number> = { viewer: 0, developer: 1, admin: 2, owner: 3 };

/** Whether a role may do what `needed` may (the server decides too: this only hides controls). */
export function atLeast(role: Role, needed: Role): boolean {
  return RANK[role] >= RANK[needed];
}

export type Tier = 'free' | 'pro' | 'enterprise';

export const TIERS: readonly Tier[] = ['free', 'pro', 'enterprise'];

/** An account's plan (text, as the service answers it) as a tier; an unknown one counts as free. */
export function planTier(plan: string): Tier {
  return TIERS.find((tier) => tier === plan) ?? 'free';
}

/** The key tiers an account's plan lets its members mint: the plan's tier and those below it. */
export function tiersUpTo(plan: string): Tier[] {
  return TIERS.slice(0, TIERS.indexOf(planTier(plan)) + 1);
}
