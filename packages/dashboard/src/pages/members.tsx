import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ConfirmDialog } from '../components/confirm.tsx';
import { CopyButton } from '../components/copy.tsx';
import { Messages, QueryState } from '../components/messages.tsx';
import { when } from '../lib/format.ts';
import { ROLES, type Role } from '../lib/roles.ts';
import { useCan, useSession } from '../lib/session.tsx';
import { useTitle } from '../lib/title.ts';
import { useTRPC, type Out } from '../lib/trpc.ts';
import { TableWrap } from '../components/table-wrap.tsx';

type Member = Out<'members', 'list'>['members'][number];

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
  const queryClient = useQueryClient();
  const { me } = useSession();
  const list = useQuery(trpc.dashboard.members.list.queryOptions());
  const [removing, setRemoving] = useState<Member | null>(null);
  const [done, setDone] = useState('');
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.dashboard.members.list.queryKey() });
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
          <TableWrap label="Members">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Since</th>
                  <th scope="col">Action</th>
                </tr>
              </thead>
              <tbody>
                {list.data.members.map((member) => (
                  <tr key={member.userId}>
                    <th scope="row">
                      {member.name}
                      {member.userId === me.user.id ? <span className="muted"> (you)</span> : null}
                    </th>
                    <td className="break">{member.email}</td>
                    <td>
                      <label>
                        <span className="visually-hidden">Role of {member.email}</span>
                        <select
                          value={member.role}
                          disabled={setRole.isPending}
                          onChange={(e) => changeRole(member, e.target.value as Role)}
                        >
                          {ROLES.map((r) => (
                            <option key={r} value={r}>
                              {r}
                            </option>
                          ))}
                        </select>
                      </label>
                    </td>
                    <td>{when(member.createdAt)}</td>
                    <td>
                      <button type="button" className="danger small" onClick={() => setRemoving(member)}>
                        Remove<span className="visually-hidden"> {member.email}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        ) : null}
      </section>
      {list.data ? (
        <section aria-labelledby="invitations-title">
          <h2 id="invitations-title">Pending invitations</h2>
          {list.data.invitations.length === 0 ? <p>None.</p> : null}
          <ul className="plain">
            {list.data.invitations.map((inv) => (
              <li key={inv.id} className="card">
                <p>
                  <strong>{inv.email ?? 'anyone with the link'}</strong> as {inv.role}, expires {when(inv.expiresAt)}
                </p>
                {inv.url ? (
                  <p className="secret-value">
                    <code tabIndex={0}>{inv.url}</code>
                  </p>
                ) : (
                  <p className="muted small">
                    The link cannot be shown again; revoke it and invite anew if it was lost.
                  </p>
                )}
                <p className="actions">
                  {inv.url ? <CopyButton value={inv.url} label="Copy link" /> : null}
                  <button
                    type="button"
                    className="danger small"
                    disabled={revokeInvitation.isPending}
                    onClick={() => revokeInvitation.mutate({ id: inv.id })}
                  >
                    Revoke<span className="visually-hidden"> the invitation of {inv.email ?? inv.role}</span>
                  </button>
                </p>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <ConfirmDialog
        open={removing !== null}
        title="Remove this member?"
        confirmLabel="Remove"
        busy={remove.isPending}
        error={remove.error}
        onCancel={() => {
          remove.reset();
          setRemoving(null);
        }}
        onConfirm={() =>
          removing &&
          remove.mutate(
            { userId: removing.userId },
            {
              onSuccess: () => {
                setDone(`${removing.email} removed.`);
                setRemoving(null);
              },
            },
          )
        }
      >
        <p>
          {removing?.name} ({removing?.email}) loses access to this account at once. Keys they created keep working
          until revoked.
        </p>
      </ConfirmDialog>
    </>
  );
}

function Invite({ onInvited }: { onInvited: () => void }) {
  const trpc = useTRPC();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('developer');
  const invite = useMutation(trpc.dashboard.members.invite.mutationOptions({ onSuccess: onInvited }));

  function submit(event: FormEvent) {
    event.preventDefault();
    invite.mutate({ email, role });
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
          <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={invite.isPending}>
          {invite.isPending ? 'Inviting…' : 'Create invitation link'}
        </button>
      </form>
      <Messages error={invite.error} />
      <div aria-live="polite">
        {invite.data ? (
          <div className="card">
            <p>
              Send this link to {invite.variables?.email} yourself (no e-mail is sent). It works once, until{' '}
              {when(invite.data.expiresAt)}.
            </p>
            <p className="secret-value">
              <code tabIndex={0}>{invite.data.url}</code>
            </p>
            <CopyButton value={invite.data.url} label="Copy link" />
          </div>
        ) : null}
      </div>
    </section>
  );
}
