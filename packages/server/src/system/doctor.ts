/**
 * `doctor`'s findings: what is configured (`info`), what answered (`ok`), what did not (`fail`) and what works but
 * should be changed (`warn`: it does not fail the check). A failure or warning names the setting that changes it,
 * so every line says what to do.
 */
export interface Finding {
  status: 'ok' | 'fail' | 'warn' | 'info';
  /** What it is about: `database`, `chain`, `redis`, `service`, … */
  subject: string;
  message: string;
  /** The setting to change when it failed. */
  setting?: string;
}

export const info = (subject: string, message: string): Finding => ({ status: 'info', subject, message });
export const ok = (subject: string, message: string): Finding => ({ status: 'ok', subject, message });
export const fail = (subject: string, message: string, setting?: string): Finding => ({
  status: 'fail',
  subject,
  message,
  ...(setting && { setting }),
});
export const warn = (subject: string, message: string, setting: string): Finding => ({
  status: 'warn',
  subject,
  message,
  setting,
});

/** A URL as it may be printed: its host and port only (a password, or an API key in a path or query, stays out). */
export function urlHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an endpoint';
  }
}

/** How long each probe may take: a hanging host is a finding, not a hanging command. */
export const PROBE_TIMEOUT_MS = 3_000;

export async function within<T>(ms: number, probe: Promise<T>, onTimeout: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(onTimeout()), ms)));
  try {
    return await Promise.race([probe, late]);
  } finally {
    clearTimeout(timer);
  }
}

const MARK = { ok: '✓', fail: '✗', warn: '!', info: '·' } as const;

/** One line per finding, the failures' settings at their end. */
export function renderFindings(findings: Finding[]): string {
  return findings
    .map((f) => `${MARK[f.status]} ${f.subject}: ${f.message}${f.setting ? ` — check ${f.setting}` : ''}`)
    .join('\n');
}

/** The running service's /readyz (503 with its failing checks when it is not ready). */
export async function checkReadiness(apiUrl: string, pid: number): Promise<Finding> {
  try {
    const response = await fetch(`${apiUrl}/readyz`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    const body = (await response.text()).replace(/\s+/g, ' ').slice(0, 200);
    if (response.ok) return ok('service', `pid ${pid} answers ready on ${apiUrl}`);
    return fail('service', `pid ${pid} on ${apiUrl} is not ready (${response.status}: ${body})`, 'its log');
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? 'no answer in 3 s' : 'nothing answers there';
    return fail('service', `pid ${pid} runs, but ${apiUrl}/readyz: ${reason}`, 'HOST and PORT');
  }
}
