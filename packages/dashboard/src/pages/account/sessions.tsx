import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ItemButton } from '../../components/item-button.tsx';
import { Messages, QueryState } from '../../components/messages.tsx';
import { DataTable } from '../../components/table.tsx';
import { authClient } from '../../lib/auth.ts';
import { unwrapAuth } from '../../lib/errors.ts';
import { when } from '../../lib/format.ts';
import { navigate } from '../../lib/router.tsx';

const SESSIONS = ['auth', 'sessions'] as const;

interface SessionRow {
  id: string;
  token: string;
  createdAt: Date | string;
  updatedAt: Date | string;
  expiresAt: Date | string;
  ipAddress?: string | null | undefined;
  userAgent?: string | null | undefined;
  current: boolean;
}

const iso = (value: Date | string) => new Date(value).toISOString();

/** The member's signed-in sessions: revoke one, or sign out everywhere. */
export function Sessions() {
  const queryClient = useQueryClient();
  const [done, setDone] = useState('');
  const list = useQuery({
    queryKey: SESSIONS,
    queryFn: async (): Promise<SessionRow[]> => {
      const [sessions, current] = await Promise.all([authClient.listSessions(), authClient.getSession()]);
      const token = current.data?.session.token;
      return (unwrapAuth(sessions) ?? []).map((s) => ({ ...s, current: s.token === token }));
    },
  });
  const revoke = useMutation({
    mutationFn: async (token: string) => unwrapAuth(await authClient.revokeSession({ token })),
    onSuccess: () => {
      setDone('Session signed out.');
      return queryClient.invalidateQueries({ queryKey: SESSIONS });
    },
  });
  const everywhere = useMutation({
    mutationFn: async () => unwrapAuth(await authClient.revokeSessions()),
    onSuccess: () => {
      queryClient.clear();
      navigate('sign-in', { replace: true });
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
              <th scope="row" className="break">
                {s.userAgent || 'unknown'}
                {s.current ? <span className="badge ok">this session</span> : null}
              </th>
              <td>{s.ipAddress || '—'}</td>
              <td>{when(iso(s.createdAt))}</td>
              <td>{when(iso(s.updatedAt))}</td>
              <td>{when(iso(s.expiresAt))}</td>
              <td>
                {s.current ? null : (
                  <ItemButton
                    label="Sign out"
                    item="this session"
                    disabled={revoke.isPending}
                    onClick={() => revoke.mutate(s.token)}
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
