// first match wins: Edge and Opera also say Chrome, Chrome also says Safari; Android also says Linux, iOS says Mac OS X
const BROWSERS: readonly (readonly [RegExp, string])[] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOpera\b/, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/\bChrom(?:e|ium)\/|\bCriOS\/|\bHeadlessChrome\//, 'Chrome'],
  [/\bSafari\//, 'Safari'],
  [/^curl\//, 'curl'],
  [/^node$|^undici\b/, 'Node.js'],
];
const SYSTEMS: readonly (readonly [RegExp, string])[] = [
  [/\bWindows\b/, 'Windows'],
  [/\biPhone|\biPad|\biPod/, 'iOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

/** A user-agent string as a person reads it: `Chrome on Linux`; null when neither part is recognised. */
function deviceOf(userAgent: string): string | null {
  const text = userAgent.slice(0, 512); // any client may send any header: look at a bounded prefix only
  const browser = BROWSERS.find(([pattern]) => pattern.test(text))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(text))?.[1];
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? system ?? null;
}

/** The browser and system of a session, the raw user-agent string in the title. */
export function Device({ userAgent }: { userAgent: string | null }) {
  if (!userAgent) return <>Unknown browser</>;
  return <span title={userAgent}>{deviceOf(userAgent) ?? 'Unknown browser'}</span>;
}
