import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { Address } from '../components/address.tsx';
import { EmailField, NameField, PasswordField } from '../components/credential-fields.tsx';
import { Messages, QueryState } from '../components/messages.tsx';
import { Submit } from '../components/submit.tsx';
import { Accept } from './invite-accept.tsx';
import { useAuthCall } from '../lib/auth-call.ts';
import { authClient, INVITATION_TOKEN_HEADER, signUpAndIn } from '../lib/auth.ts';
import { errorStatus } from '../lib/errors.ts';
import { when } from '../lib/format.ts';
import { useTitle } from '../lib/title.ts';
import { useTRPC, type Outputs } from '../lib/trpc.ts';
import { unawaited } from '../lib/unawaited.ts';

type Invitation = Outputs['invitations']['get'];

const route = getRouteApi('/_public/invite/$token');

/** The owner setup link and member / support invitations: create a sign-in (or use one), then accept. */
export default function Invite() {
  useTitle('Invitation');
  const { token } = route.useParams();
  const trpc = useTRPC();
  const invitation = useQuery(trpc.dashboard.invitations.get.queryOptions({ token }));
  // a 401 here only means "not signed in yet"
  const me = useQuery(trpc.dashboard.session.me.queryOptions());

  if (invitation.isPending || me.isPending) return <QueryState pending error={null} label="the invitation" />;
  if (invitation.error) {
    return (
      <>
        <h1>Invitation</h1>
        <p className="note bad" role="alert">
          {errorStatus(invitation.error) === 404
            ? 'This link is no longer valid: it was used, revoked or has expired. Ask for a new one.'
            : 'The invitation could not be read. Try again in a moment.'}
        </p>
      </>
    );
  }
  const data = invitation.data;
  // after a sign-out the failed refetch keeps the old data: an error means signed out
  const signedInAs = me.isError ? null : (me.data?.user ?? null);
  return (
    <>
      <h1>{data.kind === 'setup' ? 'Set up your account' : 'You are invited'}</h1>
      <Summary invitation={data} />
      {signedInAs ? (
        <Accept
          token={token}
          invitation={data}
          who={`${signedInAs.name} (${signedInAs.email})`}
          onSignOut={unawaited(() => authClient.signOut().then(() => me.refetch()))}
        />
      ) : (
        <GetIn token={token} invitation={data} onDone={unawaited(() => me.refetch())} />
      )}
    </>
  );
}

function Summary({ invitation }: { invitation: Invitation }) {
  const what =
    invitation.kind === 'setup'
      ? invitation.adoptable.length > 0
        ? 'This one-time link makes you the owner of a new account, or of one opened with the command line: ' +
          'create your sign-in, then choose.'
        : 'This one-time link makes you the owner of a new account: create your sign-in, then name the account.'
      : invitation.kind === 'support'
        ? 'This link adds you to the operator’s support team.'
        : `This link makes you ${article(invitation.role)} ${invitation.role} of ${invitation.accountName ?? 'an account'}.`;
  return (
    <dl className="facts">
      <dt>What</dt>
      <dd>{what}</dd>
      {invitation.email ? (
        <>
          <dt>For</dt>
          <dd>
            <Address value={invitation.email} />
          </dd>
        </>
      ) : null}
      <dt>Valid until</dt>
      <dd>{when(invitation.expiresAt)}</dd>
    </dl>
  );
}

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

/** Signed out: create a sign-in with the invitation's token, or sign in with an existing one. */
function GetIn({ token, invitation, onDone }: { token: string; invitation: Invitation; onDone: () => void }) {
  const [mode, setMode] = useState<'new' | 'existing'>('new');
  const [name, setName] = useState('');
  const [email, setEmail] = useState(invitation.email ?? '');
  const [password, setPassword] = useState('');
  const { error, busy, run } = useAuthCall();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const ok = await run(() =>
      mode === 'new'
        ? signUpAndIn({ name, email, password }, { [INVITATION_TOKEN_HEADER]: token })
        : authClient.signIn.email({ email, password }),
    );
    if (ok) onDone();
  }

  return (
    <>
      <h2>Step 1 of 2: your sign-in</h2>
      <fieldset className="choice">
        <legend>Do you already have a sign-in for this dashboard?</legend>
        <label className="check">
          <input type="radio" name="mode" checked={mode === 'new'} onChange={() => setMode('new')} />
          No, create one
        </label>
        <label className="check">
          <input type="radio" name="mode" checked={mode === 'existing'} onChange={() => setMode('existing')} />
          Yes, sign in
        </label>
      </fieldset>
      <form onSubmit={unawaited(submit)} className="stack">
        {mode === 'new' ? <NameField value={name} onChange={setName} /> : null}
        <EmailField value={email} onChange={setEmail} />
        <PasswordField kind={mode === 'new' ? 'new' : 'current'} value={password} onChange={setPassword} />
        <p className="actions">
          <Submit busy={busy} working="Working…">
            {mode === 'new' ? 'Create my sign-in' : 'Sign in'}
          </Submit>
        </p>
        <Messages error={error} />
      </form>
    </>
  );
}
