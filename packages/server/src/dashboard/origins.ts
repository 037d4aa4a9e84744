const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The origins the dashboard's pages are served from: PUBLIC_BASE_URL's, and when that is a loopback address, the other
 * loopback names on the same port (the service prints `127.0.0.1`, browsers and links often say `localhost`: both must
 * sign in). Trusting them is safe: a page on that port of this machine is the service itself. Each name keeps its own
 * cookies; passkeys work on `localhost` only, since WebAuthn takes no IP address as its relying party.
 */
export function dashboardOrigins(publicBaseUrl: string): string[] {
  const url = new URL(publicBaseUrl);
  if (!LOOPBACK.includes(url.hostname)) return [url.origin];
  const port = url.port ? `:${url.port}` : '';
  return [
    url.origin,
    ...LOOPBACK.filter((host) => host !== url.hostname).map((host) => `${url.protocol}//${host}${port}`),
  ];
}
