const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/** What the dashboard's origins depend on: Config's `publicBaseUrl`, `productionBecause` and `dashboard`. */
interface OriginSettings {
  publicBaseUrl: string;
  productionBecause: string | undefined;
  dashboard: { origins: readonly string[]; publicBaseUrlSet: boolean };
}

/**
 * Why a deployment's dashboard is off, or undefined when it is on: in production its origins must be the operator's
 * word (PUBLIC_BASE_URL), never the development default `http://localhost:PORT`, which no visitor's browser is on.
 */
export function dashboardOff(settings: OriginSettings): string | undefined {
  if (!settings.productionBecause || settings.dashboard.publicBaseUrlSet) return undefined;
  return (
    `The dashboard is off: set PUBLIC_BASE_URL to the address browsers reach the service at ` +
    `(and DASHBOARD_ORIGINS for any other), required when ${settings.productionBecause}.`
  );
}

/**
 * The origins the dashboard's pages are served from and sign in from: PUBLIC_BASE_URL's and DASHBOARD_ORIGINS. When
 * PUBLIC_BASE_URL is a loopback address, the other loopback names on the same port too (the service
 * prints `127.0.0.1`, browsers and links often say `localhost`: both must sign in); trusting them is safe there, as a
 * page on that port of this machine is the service itself. Each name keeps its own cookies; passkeys work on
 * `localhost` only, since WebAuthn takes no IP address as its relying party. None while the dashboard is off.
 */
export function dashboardOrigins(settings: OriginSettings): string[] {
  if (dashboardOff(settings)) return [];
  const url = new URL(settings.publicBaseUrl);
  const own = [url.origin, ...settings.dashboard.origins];
  if (!LOOPBACK.includes(url.hostname)) return [...new Set(own)];
  const port = url.port ? `:${url.port}` : '';
  const aliases = LOOPBACK.filter((host) => host !== url.hostname).map((host) => `${url.protocol}//${host}${port}`);
  return [...new Set([...own, ...aliases])];
}
