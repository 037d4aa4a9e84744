import { useSession } from '../lib/session.tsx';

/** What the service accepts as a webhook receiver (WEBHOOK_ALLOW_PRIVATE_URLS on the server decides). */
export function ReceiverHint() {
  const { me } = useSession();
  return (
    <span className="hint">
      {me.webhookPrivateUrls
        ? 'http or https; this service also accepts private and loopback addresses (development setting).'
        : 'https, reachable from the internet (no private or loopback addresses).'}
    </span>
  );
}
