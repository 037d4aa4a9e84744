/**
 * The path a request line logs: its query is dropped (a link's token may ride there), and a path under one of
 * `credentialPrefixes` (whose next segment is a token: an invitation link, better-auth's reset callback) keeps the
 * prefix only, served or not. Matched without case, since a client may send `/Dashboard/invite/…` too.
 */
export function loggedPath(rawUrl: string | undefined, credentialPrefixes: readonly string[]): string {
  const path = (rawUrl ?? '/').split('?')[0]!;
  const lower = path.toLowerCase();
  const prefix = credentialPrefixes.find((p) => lower.startsWith(p.toLowerCase()));
  return prefix && path.length > prefix.length ? `${path.slice(0, prefix.length)}[redacted]` : path;
}
