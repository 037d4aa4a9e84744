import { composeMail, type Composed } from './compose.ts';
import { shownName } from './shown-name.ts';

/** The host a mail's link points at: the service's own name in a subject (never an account's words). */
const serviceHost = (url: string): string => new URL(url).host;

/**
 * What each mail says. None names whether another address has an account: each goes only to its own reader. A
 * subject carries no account's text (an account name is anyone's words, sent from MAIL_FROM); a body shows an
 * account name as quoted data that no mail client turns into a link (shown-name.ts).
 */
export const templates = {
  resetPassword: (url: string): Composed =>
    composeMail(
      'Reset your dashboard password',
      [
        'Someone asked to reset the password of the dashboard sign-in for this address.',
        'The link works once, for one hour. Choosing a new password signs out every other session.',
        'If it was not you, ignore this mail: your password stays as it is.',
      ],
      { label: 'Choose a new password', url },
    ),

  verifyEmail: (url: string): Composed =>
    composeMail(
      'Confirm your e-mail address',
      [
        'Confirm that this address is yours to finish setting up your dashboard sign-in.',
        'Invitations bound to this address, and notifications, need a confirmed address. The link works for 24 hours.',
        'If you did not sign up, ignore this mail.',
      ],
      { label: 'Confirm my address', url },
    ),

  signUpAttempt: (url: string): Composed =>
    composeMail(
      'Someone tried to sign up with your address',
      [
        'Someone tried to create a dashboard sign-in for this address, which has one already. Nothing was changed.',
        'If it was you, sign in instead; if you forgot your password, choose a new one from the sign-in page.',
        'If it was not you, ignore this mail.',
      ],
      { label: 'Sign in', url },
    ),

  invitation: (input: { accountName: string; role: string; url: string; expiresAt: string }): Composed =>
    composeMail(
      `Invitation to an account on ${serviceHost(input.url)}`,
      [
        `You are invited to join the account ${shownName(input.accountName)} on ${serviceHost(input.url)} ` +
          `as ${input.role}.`,
        `The link works once, until ${input.expiresAt}. Sign up or sign in with this address to accept it.`,
        'If you did not expect this invitation, ignore this mail.',
      ],
      { label: 'Open the invitation', url: input.url },
    ),

  supportInvitation: (input: { url: string; expiresAt: string }): Composed =>
    composeMail(
      'You are invited to the Attestation Service support team',
      [
        'The operator invited this address onto the support team.',
        `The link works once, until ${input.expiresAt}. Sign up or sign in with this address to accept it.`,
      ],
      { label: 'Open the invitation', url: input.url },
    ),

  quota: (input: {
    accountName: string;
    threshold: number;
    used: number;
    limit: number;
    resetsAt: string;
    url: string;
  }): Composed =>
    composeMail(
      input.threshold >= 100
        ? `The monthly on-chain quota is used up on ${serviceHost(input.url)}`
        : `${input.threshold} % of the monthly on-chain quota is used on ${serviceHost(input.url)}`,
      [
        `The account ${shownName(input.accountName)} has used ${input.used} of its ${input.limit} on-chain attestations ` +
          'this month.',
        input.threshold >= 100
          ? 'On-chain attestations answer 429 QUOTA_EXCEEDED until the quota resets; off-chain ones are not metered.'
          : 'At 100 %, on-chain attestations answer 429 QUOTA_EXCEEDED until the quota resets.',
        `The quota resets at ${input.resetsAt}.`,
      ],
      { label: 'See the usage', url: input.url },
    ),

  deadDeliveries: (input: {
    accountName: string;
    subscriptions: Array<{ url: string; dead: number; lastError: string | null }>;
    more: number;
    url: string;
  }): Composed =>
    composeMail(
      `Webhook deliveries failed for good on ${serviceHost(input.url)}`,
      [
        `Deliveries to these webhook endpoints of the account ${shownName(input.accountName)} failed every attempt and will not be retried.`,
        'Fix the endpoint, then replay the deliveries from the dashboard or the API.',
        ...(input.more > 0 ? [`And ${input.more} more endpoints.`] : []),
      ],
      { label: 'See the deliveries', url: input.url },
      input.subscriptions.map(
        (s) =>
          `${s.url}: ${s.dead} ${s.dead === 1 ? 'delivery' : 'deliveries'}` + (s.lastError ? ` (${s.lastError})` : ''),
      ),
    ),

  relayerBalanceLow: (input: { address: string; balanceEth: string; minimumEth: string }): Composed =>
    composeMail('The relayer balance is low', [
      `The relayer ${input.address} holds ${input.balanceEth} ETH, below the minimum of ${input.minimumEth} ETH.`,
      'On-chain attestations answer 503 CHAIN_UNAVAILABLE until it is funded.',
    ]),
};
