import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Messages, QueryState } from '../../components/messages.tsx';
import { useSession } from '../../lib/session.tsx';
import { useTRPC } from '../../lib/trpc.ts';

/** Which notifications this member gets by mail, for the account they act in. */
export function Notifications() {
  const trpc = useTRPC();
  const client = useQueryClient();
  const { membership } = useSession();
  const prefs = useQuery({ ...trpc.dashboard.mail.preferences.queryOptions(), enabled: membership !== null });
  const status = useQuery(trpc.dashboard.mail.status.queryOptions());
  const save = useMutation(
    trpc.dashboard.mail.setPreferences.mutationOptions({
      onSuccess: (data) => client.setQueryData(trpc.dashboard.mail.preferences.queryKey(), data),
    }),
  );
  if (!membership) return null;
  const current = prefs.data;
  const toggle = (field: 'quota' | 'webhooks', value: boolean) => {
    if (current) save.mutate({ ...current, [field]: value });
  };
  return (
    <section aria-labelledby="notifications-title">
      <h2 id="notifications-title">Notifications</h2>
      <p className="muted">
        Mails about {membership.accountName}, to your confirmed address.
        {status.data && !status.data.mail ? ' This service sends no mail at the moment.' : ''}
      </p>
      <QueryState pending={prefs.isPending} error={prefs.error} label="notification settings" />
      {current ? (
        <div className="stack">
          <label className="check">
            <input
              type="checkbox"
              checked={current.quota}
              disabled={save.isPending}
              onChange={(e) => toggle('quota', e.target.checked)}
            />
            The monthly on-chain quota reaches 80 % and 100 %
          </label>
          <label className="check">
            <input
              type="checkbox"
              checked={current.webhooks}
              disabled={save.isPending}
              onChange={(e) => toggle('webhooks', e.target.checked)}
            />
            Webhook deliveries failed for good (one digest an hour at most)
          </label>
        </div>
      ) : null}
      <Messages error={save.error} success={save.isSuccess ? 'Saved.' : undefined} />
    </section>
  );
}
