import { inviteMemberInput, ROLES, type Role } from '@attestation-service/server/rules';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Address } from '../components/address.tsx';
import { ConfirmAction } from '../components/confirm.tsx';
import { CopyButton, SecretValue } from '../components/copy.tsx';
import { ItemButton } from '../components/item-button.tsx';
import { LoadMore } from '../components/load-more.tsx';
import { Messages, QueryState } from '../components/messages.tsx';
import { SelectOf } from '../components/select-of.tsx';
import { Submit } from '../components/submit.tsx';
import { DataTable } from '../components/table.tsx';
import { useConfirmTarget } from '../lib/confirm.ts';
import { when } from '../lib/format.ts';
import { useKeysetPages, withCursor } from '../lib/pages.ts';
import { useRefresh } from '../lib/refresh.ts';
import { useCan, useSession } from '../lib/session.tsx';
import { useTitle } from '../lib/title.ts';
import { check } from '../lib/validate.ts';
import { useTRPC, useTRPCClient, type Outputs } from '../lib/trpc.ts';

type Member = Outputs['members']['list']['data'][number];
type Invitation = Outputs['members']['list']['invitations'][number];

/** The owner's view of the account's people: roles, removal, invitations by link. */
export default function Members() {
  useTitle('Members');
  const isOwner = useCan('owner');
  if (!isOwner) {
    return (
      <>
        <h1>Members</h1>
        <p>Only an owner of this account manages its members.</p>
      </>
    );
  }
  return <OwnerView />;
}

function OwnerView() {
  const trpc = useTRPC();
  const { me } = useSession();
  const client = useTRPCClient();
  // members come 50 a page behind "Load more"; every page carries the pending invitations (capped, not paged)
  const list = useKeysetPages(trpc.dashboard.members.list.infiniteQueryKey(), (cursor) =>
    client.dashboard.members.list.query(withCursor({ limit: 50 }, cursor)),
  );
  const invitations = list.data?.pages[0]?.invitations;
  const removing = useConfirmTarget<Member>();
  const { done, setDone } = removing;
  const refresh = useRefresh(trpc.dashboard.members.list.pathFilter());
  const setRole = useMutation(trpc.dashboard.members.setRole.mutationOptions({ onSettled: refresh }));
  const remove = useMutation(trpc.dashboard.members.remove.mutationOptions({ onSuccess: refresh }));
  const revokeInvitation = useMutation(trpc.dashboard.members.revokeInvitation.mutationOptions({ onSuccess: refresh }));

  function changeRole(member: Member, role: Role) {
    setDone('');
    setRole.mutate(
      { userId: member.userId, role },
      { onSuccess: () => setDone(`${member.name || member.email} is now ${role}.`) },
    );
  }

  return (
    <>
      <h1>Members</h1>
      <Invite onInvited={refresh} />
      <section aria-labelledby="members-title">
        <h2 id="members-title">People</h2>
        <Messages success={done} error={setRole.error || revokeInvitation.error} />
        <QueryState pending={list.isPending} error={list.error} label="members" />
        {list.data ? (
          <DataTable label="Members" columns={['Name', 'Email', 'Role', 'Since', 'Action']}>
            {list.items.map((member) => (
              <tr key={member.userId}>
                <th scope="row">
                  {member.name}
                  {member.userId === me.user.id ? <span className="muted"> (you)</span> : null}
                </th>
                <td>
                  <Address value={member.email} />
                </td>
                <td>
                  <label>
                    <span className="visually-hidden">Role of {member.email}</span>
                    <SelectOf
                      values={ROLES}
                      value={member.role}
                      disabled={setRole.isPending}
                      onChange={(role) => changeRole(member, role)}
                    />
                  </label>
                </td>
                <td>{when(member.createdAt)}</td>
                <td>
                  <ItemButton label="Remove" item={member.email} onClick={() => removing.ask(member)} />
                </td>
              </tr>
            ))}
          </DataTable>
        ) : null}
        <LoadMore pages={list} />
      </section>
      {invitations ? (
        <PendingInvitations
          invitations={invitations}
          revoking={revokeInvitation.isPending}
          onRevoke={(id) => revokeInvitation.mutate({ id })}
        />
      ) : null}
      <ConfirmAction
        target={removing.target}
        action={remove}
        input={(member) => ({ userId: member.userId })}
        done={(member) => `${member.email} removed.`}
        onClose={removing.close}
        title="Remove this member?"
        confirmLabel="Remove"
      >
        <p>
          {removing.target?.name} ({removing.target?.email}) loses access to this account at once. Keys they created
          keep working until revoked.
        </p>
      </ConfirmAction>
    </>
  );
}

/** The account's pending invitations: each with its link (while it can be unsealed), to copy or revoke. */
function PendingInvitations({
  invitations,
  revoking,
  onRevoke,
}: {
  invitations: Invitation[];
  revoking: boolean;
  onRevoke: (id: string) => void;
}) {
  return (
    <section aria-labelledby="invitations-title">
      <h2 id="invitations-title">Pending invitations</h2>
      {invitations.length === 0 ? <p>None.</p> : null}
      <ul className="plain">
        {invitations.map((inv) => (
          <li key={inv.id} className="card">
            <p>
              <strong>{inv.email ? <Address value={inv.email} /> : 'anyone with the link'}</strong> as {inv.role},
              expires {when(inv.expiresAt)}
            </p>
            {inv.url ? (
              <SecretValue value={inv.url} />
            ) : (
              <p className="muted small">The link cannot be shown again; revoke it and invite anew if it was lost.</p>
            )}
            <p className="actions">
              {inv.url ? <CopyButton value={inv.url} label="Copy link" /> : null}
              <ItemButton
                label="Revoke"
                item={`the invitation of ${inv.email ?? inv.role}`}
                disabled={revoking}
                onClick={() => onRevoke(inv.id)}
              />
            </p>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Invite({ onInvited }: { onInvited: () => Promise<void> }) {
  const trpc = useTRPC();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('developer');
  const [invalid, setInvalid] = useState('');
  const invite = useMutation(trpc.dashboard.members.invite.mutationOptions({ onSuccess: onInvited }));

  function submit(event: FormEvent) {
    event.preventDefault();
    const input = check(inviteMemberInput, { email, role }, { email: 'Email', role: 'Role' });
    setInvalid(input.problem ?? '');
    if (input.ok) invite.mutate(input.data);
  }

  return (
    <section aria-labelledby="invite-title">
      <h2 id="invite-title">Invite someone</h2>
      <form className="row-form" onSubmit={submit}>
        <label className="grow">
          Email
          <input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label>
          Role
          <SelectOf values={ROLES} value={role} onChange={setRole} />
        </label>
        <Submit busy={invite.isPending} working="Inviting…">
          Create invitation link
        </Submit>
      </form>
      <Messages error={invalid || invite.error} />
      <div aria-live="polite">
        {invite.data ? (
          <div className="card">
            <p>
              Send this link to {invite.variables?.email} yourself (no e-mail is sent). It works once, until{' '}
              {when(invite.data.expiresAt)}.
            </p>
            <SecretValue value={invite.data.url} />
            <CopyButton value={invite.data.url} label="Copy link" />
          </div>
        ) : null}
      </div>
    </section>
  );
}
