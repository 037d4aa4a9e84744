import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { Device } from '../../components/device.tsx';
import { ItemButton } from '../../components/item-button.tsx';
import { Messages, QueryState } from '../../components/messages.tsx';
import { DataTable } from '../../components/table.tsx';
import { authClient } from '../../lib/auth.ts';
import { unwrapAuth } from '../../lib/errors.ts';
import { when } from '../../lib/format.ts';
import { useRefresh } from '../../lib/refresh.ts';
import { useTRPC } from '../../lib/trpc.ts';
import { logFailure } from '../../lib/unawaited.ts';

/** The member's signed-in sessions: revoke one, or sign out everywhere. */
export function Sessions() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [done, setDone] = useState('');
  // by id, from the service: the page never holds a session token (docs/decisions.md, "Secrets at rest")
  const list = useQuery(trpc.dashboard.session.sessions.queryOptions());
  const refresh = useRefresh(trpc.dashboard.session.sessions.queryFilter());
  const revoke = useMutation(
    trpc.dashboard.session.revokeSession.mutationOptions({
      onSuccess: () => {
        setDone('Session signed out.');
        return refresh();
      },
    }),
  );
  const everywhere = useMutation({
    mutationFn: async () => unwrapAuth(await authClient.revokeSessions()),
    onSuccess: () => {
      queryClient.clear();
      navigate({ to: '/sign-in', replace: true }).catch(logFailure);
    },
  });

  return (
    <section aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      <Messages success={done} error={revoke.error || everywhere.error} />
      <QueryState pending={list.isPending} error={list.error} label="sessions" />
      {list.data ? (
        <DataTable
          label="Your signed-in sessions"
          columns={['Browser', 'Address', 'Signed in', 'Last active', 'Expires', 'Action']}
        >
          {list.data.map((s) => (
            <tr key={s.id}>
              <th scope="row">
                <Device userAgent={s.userAgent} />
                {s.current ? <span className="badge ok">this session</span> : null}
              </th>
              <td>{s.ipAddress || '—'}</td>
              <td>{when(s.createdAt)}</td>
              <td>{when(s.updatedAt)}</td>
              <td>{when(s.expiresAt)}</td>
              <td>
                {s.current ? null : (
                  <ItemButton
                    label="Sign out"
                    item="this session"
                    disabled={revoke.isPending}
                    onClick={() => revoke.mutate({ id: s.id })}
                  />
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <p>
        <button type="button" className="danger" disabled={everywhere.isPending} onClick={() => everywhere.mutate()}>
          Sign out everywhere
        </button>{' '}
        <span className="muted small">Every session ends, this one included.</span>
      </p>
    </section>
  );
}
