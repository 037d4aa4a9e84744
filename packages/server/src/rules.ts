import { EVENT_KINDS } from '@attestation-service/protocol';
import { z } from 'zod';

/*
 * The rules the service enforces and the dashboard's forms check before sending: one module for both, so a limit
 * changed here changes the page too. Pure (zod and constants, no Node module): the browser app imports it as
 * `@attestation-service/server/rules`, and it is of the kernel (any folder may import it; it imports none).
 */

/** A member's role in an account, from most to least powerful. */
export const ROLES = ['owner', 'admin', 'developer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];
export const roleSchema = z.enum(ROLES);

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** Whether `role` is at least `needed` (owner ⊇ admin ⊇ developer ⊇ viewer). */
export function hasRole(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) <= ROLES.indexOf(needed);
}

/** Key tiers, lowest first; an account's plan is one of them. */
export const TIERS = ['free', 'pro', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];
export const tierSchema = z.enum(TIERS);

/** An account's plan (text, as stored) as a tier; an unknown one counts as free. */
export function planTier(plan: string): Tier {
  return TIERS.find((tier) => tier === plan) ?? 'free';
}

/** The key tiers a plan lets its members mint: the plan's tier and those below it. */
export function tiersUpTo(plan: string): Tier[] {
  return TIERS.slice(0, TIERS.indexOf(planTier(plan)) + 1);
}

export function mayMint(plan: string, tier: Tier): boolean {
  return TIERS.indexOf(tier) <= TIERS.indexOf(planTier(plan));
}

/** The event kinds a webhook subscription may subscribe to (the protocol's EVENT_KINDS). */
export const eventKindSchema = z.enum(EVENT_KINDS);

/** A delivery's states: `pending` until sent (or retried), then `completed`, `dead` (five failures) or `dropped`. */
export const DELIVERY_STATES = ['pending', 'completed', 'dead', 'dropped'] as const;
/** The one closed type of a delivery's state, used by the store, the service, the worker, the CLI and the API. */
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** The longest display name: it is stored and shown to every member of the person's accounts. */
export const NAME_MAX = 100;
/** RFC 5321's limit on an address in a mail path. */
export const EMAIL_MAX = 254;
/** better-auth's minPasswordLength. */
export const PASSWORD_MIN = 10;
/** better-auth's maxPasswordLength, checked before any hashing. */
export const PASSWORD_MAX = 256;
export const KEY_NAME_MAX = 100;
export const WEBHOOK_URL_MAX = 2048;
export const REVOKE_REASON_MAX = 500;
/** An account's name, after normalisation. */
export const ACCOUNT_NAME_MAX = 64;

export const personNameSchema = z.string().trim().min(1, 'Give your name.').max(NAME_MAX);
export const emailSchema = z.email('That is not an email address.').max(EMAIL_MAX);
export const newPasswordSchema = z
  .string()
  .min(PASSWORD_MIN, `A password has at least ${PASSWORD_MIN} characters.`)
  .max(PASSWORD_MAX, `A password has at most ${PASSWORD_MAX} characters.`);

/** A new API key: a name and a tier (whether the plan allows the tier is checked against the account). */
export const createKeyInput = z.strictObject({
  name: z.string().trim().min(1, 'Name the key.').max(KEY_NAME_MAX),
  tier: tierSchema,
});

export const webhookUrlSchema = z.url({ protocol: /^https?$/ }).max(WEBHOOK_URL_MAX);
export const webhookEventsSchema = z
  .array(eventKindSchema)
  .min(1, 'must name at least one event kind')
  .max(EVENT_KINDS.length);
/** A new webhook subscription: where to POST, and which event kinds. */
export const webhookSubscriptionInput = z.strictObject({ url: webhookUrlSchema, events: webhookEventsSchema });

export const revokeReasonSchema = z.string().max(REVOKE_REASON_MAX);

/** An invitation to an account: whom (the address the link is meant for) and as what. */
export const inviteMemberInput = z.object({ email: emailSchema, role: roleSchema });

/** After NFKC: ASCII letters and digits, and single spaces or `.` `_` `-` between them (docs/decisions.md). */
const ACCOUNT_NAME_ALLOWED = /^[A-Za-z0-9]+(?:[ ._-]+[A-Za-z0-9]+)*[.]?$/;
/** Default-ignorable and format characters (zero-width joiners, bidi controls, soft hyphens) and other controls. */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cc}]/u;

/** A name as an account is stored with it: trimmed and NFKC-normalised (full-width `ＡＣＭＥ` is `ACME`). */
export function canonicalAccountName(input: string): string {
  return input.trim().normalize('NFKC');
}

/**
 * Names that pass for the operator's voice in a mail or on a page ("Support", "Verified"): no new account may be
 * named one. The phrases are refused inside a longer name too ("Verified Photos"); the short words only as the whole
 * name, or "Grassroots", "Ecosystem" and "Badminton Club" would be refused with them. Accounts that already have such
 * a name keep it; only new names are judged.
 */
const RESERVED_PHRASES = ['Attestation Service', 'official', 'verified'] as const;
const RESERVED_WORDS = ['admin', 'administrator', 'support', 'system', 'root', 'security', 'staff'] as const;
export const RESERVED_ACCOUNT_NAMES = [...RESERVED_PHRASES, ...RESERVED_WORDS] as const;

// ASCII look-alikes the NFKC-and-lower-case key does not fold: digits for letters, and letter pairs for one letter
const LOOKALIKES: Array<[RegExp, string]> = [
  [/rn/g, 'm'],
  [/vv/g, 'w'],
  [/0/g, 'o'],
  [/[1l]/g, 'i'],
  [/3/g, 'e'],
  [/4/g, 'a'],
  [/5/g, 's'],
  [/7/g, 't'],
  [/8/g, 'b'],
  [/9/g, 'g'],
];

/** What reserved names are compared by: the canonical name in lower case, its separators dropped, look-alikes folded. */
export function accountNameSkeleton(name: string): string {
  const bare = canonicalAccountName(name)
    .toLowerCase()
    .replace(/[\s._-]+/g, '');
  return LOOKALIKES.reduce((text, [pattern, letter]) => text.replace(pattern, letter), bare);
}

const skeletons = (names: readonly string[]) => names.map((name) => [name, accountNameSkeleton(name)] as const);
const PHRASE_SKELETONS = skeletons(RESERVED_PHRASES);
const WORD_SKELETONS = skeletons(RESERVED_WORDS);

/** The reserved name `input` is (or, for a phrase, holds), look-alikes included; or undefined. */
export function reservedAccountName(input: string): string | undefined {
  const skeleton = accountNameSkeleton(input);
  return (
    PHRASE_SKELETONS.find(([, reserved]) => skeleton.includes(reserved))?.[0] ??
    WORD_SKELETONS.find(([, reserved]) => skeleton === reserved)?.[0]
  );
}

/** Why a name cannot open an account, or undefined when it can (checked on the canonical name). */
export function accountNameProblem(input: string): string | undefined {
  const name = canonicalAccountName(input);
  if (name.length === 0) return 'An account name cannot be empty.';
  if (name.length > ACCOUNT_NAME_MAX) return `An account name has at most ${ACCOUNT_NAME_MAX} characters.`;
  if (INVISIBLE.test(name)) return 'An account name cannot hold invisible or control characters.';
  if (/[^\x20-\x7e]/.test(name))
    return 'An account name uses ASCII letters and digits only (letters of other scripts can pass for Latin ones).';
  if (/ {2}/.test(name)) return 'An account name cannot hold two spaces in a row.';
  if (!ACCOUNT_NAME_ALLOWED.test(name))
    return 'An account name is letters and digits with single spaces or . _ - between them (and may end with .).';
  const reserved = reservedAccountName(name);
  if (reserved)
    return `An account name cannot be "${reserved}" or a look-alike of it (or, for a phrase, hold it): it is reserved for the service.`;
  return undefined;
}

/** An account name as the dashboard takes it: refused with the rule it breaks, else canonical. */
export const accountNameSchema = z
  .string()
  .max(ACCOUNT_NAME_MAX * 4)
  .superRefine((value, ctx) => {
    const problem = accountNameProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .transform(canonicalAccountName);

/** An Ethereum address in any case (checksummed or not): a customer attester's. */
export const addressSchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must be an address: 0x followed by 40 hex characters');

/** A 65-byte ECDSA signature as one hex string (r ‖ s ‖ v), as viem and ethers return it. */
export const signatureSchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{130}$/, 'must be a 65-byte signature: 0x followed by 130 hex characters');

/** The longest domain name DNS carries (RFC 1035: 253 characters written out). */
export const DOMAIN_MAX = 253;

const DOMAIN_LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/** Why a (lower-cased) text is not a domain an account may claim, or undefined when it is one. */
export function domainProblem(domain: string): string | undefined {
  if (domain.length > DOMAIN_MAX) return `must be at most ${DOMAIN_MAX} characters`;
  const labels = domain.split('.');
  if (labels.length < 2) return 'must be a domain name such as example.com';
  if (labels.some((label) => label.length > 63 || !DOMAIN_LABEL.test(label)))
    return 'must be a domain name: letters, digits and hyphens between dots (an international name in its xn-- form)';
  // an IPv4 address is made of such labels too; a top-level domain is never all digits
  if (/^\d+$/.test(labels.at(-1)!)) return 'must be a domain name, not an IP address';
  return undefined;
}

/** A domain an account claims, as typed: trimmed, lower-cased, without a trailing dot. */
export const domainSchema = z
  .string()
  .max(DOMAIN_MAX + 8)
  .transform((v) => v.trim().toLowerCase().replace(/\.$/, ''))
  .superRefine((domain, ctx) => {
    const problem = domainProblem(domain);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
