import { createClient } from '@attestation-service/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAttestation, randomIp, revoke, startAnotherApp, startStack, type Stack } from './support.ts';

const IPTC = 'http://cv.iptc.org/newscodes/digitalsourcetype/';

let stack: Stack;

// verdicts are not reused here: each read sees the API and the chain as they are now
beforeAll(async () => {
  stack = await startStack({ cacheTtlMs: 0 });
}, 60_000);
afterAll(() => stack?.stop());

const get = (base: string, path: string) => fetch(`${base}${path}`, { headers: { 'x-forwarded-for': randomIp() } });

/** The SDK as a visitor of its own (an address of its own for each call, as the other tests' calls have). */
const visitor = () =>
  createClient({
    baseUrl: stack.svc.url,
    fetch: (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('x-forwarded-for', randomIp());
      return fetch(input, { ...init, headers });
    },
  });

/** What the page says of revocation: each signal's state, and whether it says they disagree. */
async function revocationOn(base: string, uid: string) {
  const page = await (await get(base, `/${uid}`)).text();
  const state = (by: string) => new RegExp(`data-revocation-by="${by}" data-state="([a-z-]+)"`).exec(page)?.[1];
  return {
    verdict: /data-verdict="([a-z-]+)"/.exec(page)?.[1],
    eas: state('eas'),
    statusList: state('status-list'),
    disagree: page.includes('data-revocation-agreement="disagree"'),
    page,
  };
}

describe('revocation by the status list, beside EAS', () => {
  it.each(['offchain', 'onchain'] as const)(
    '%s: the page says "not revoked" by both, and once revoked through the API, "revoked" by both',
    async (mode) => {
      const { created, key } = await createAttestation(stack.svc, {
        type: 'human',
        content: `status list ${mode} ${Math.random()}`,
        mode,
      });
      expect(await revocationOn(stack.verify.url, created.uid)).toMatchObject({
        verdict: 'verified',
        eas: 'not-revoked',
        statusList: 'not-revoked',
        disagree: false,
      });
      await revoke(stack.svc, created.uid, key);
      const after = await revocationOn(stack.verify.url, created.uid);
      expect(after).toMatchObject({ verdict: 'revoked', eas: 'revoked', statusList: 'revoked', disagree: false });
      expect(after.page).toContain('and the service&#39;s status list says so too');
      expect(after.page).toMatch(/<li class="pass" data-check="Status list">/);
    },
    60_000,
  );

  it('says "could not check" when the status list cannot be read, and leaves the verdict to the chain', async () => {
    const { created } = await createAttestation(stack.svc, {
      type: 'ai',
      content: `status list unreachable ${Math.random()}`,
      mode: 'offchain',
    });
    const client = visitor();
    // the records from the real API; credentials and status lists from an address nothing listens on
    const app = await startAnotherApp(stack, {
      apiUrl: 'http://127.0.0.1:9',
      records: { get: (uid) => client.attestations.get(uid), search: async () => [] },
      cacheTtlMs: 0,
    });
    try {
      const seen = await revocationOn(app.url, created.uid);
      expect(seen).toMatchObject({ verdict: 'verified', eas: 'not-revoked', statusList: 'unchecked' });
      expect(seen.page).toMatch(/credential<\/strong>:\s+could not check: the API did not answer/);
      expect(seen.page).not.toContain('data-check="Status list"');
      const badge: any = await (await get(app.url, `/api/attestation/${created.uid}`)).json();
      expect(badge).toMatchObject({ status: 'verified', statusList: { state: 'unchecked' } });
    } finally {
      await app.stop();
    }
  });
});

describe('the digital source type', () => {
  it('is on the page, the JSON badge and the SVG badge, in words and as the IPTC URI', async () => {
    const { created } = await createAttestation(stack.svc, {
      type: 'ai',
      content: `source type ${Math.random()}`,
      mode: 'offchain',
    });
    const page = await (await get(stack.verify.url, `/${created.uid}`)).text();
    expect(page).toContain(`data-source-type="${IPTC}trainedAlgorithmicMedia"`);
    expect(page).toContain('Trained algorithmic media (generative AI)');
    const badge: any = await (await get(stack.verify.url, `/api/attestation/${created.uid}`)).json();
    expect(badge).toMatchObject({
      digitalSourceType: `${IPTC}trainedAlgorithmicMedia`,
      digitalSourceTypeLabel: 'Trained algorithmic media (generative AI)',
      statusList: { state: 'not-revoked', list: expect.any(String), index: expect.any(Number) },
    });
    const svg = await (await get(stack.verify.url, `/api/attestation/${created.uid}/badge.svg`)).text();
    expect(svg).toContain('<title>attestation: AI-generated (trained model) · verified</title>');
    expect(svg).toContain(
      `<desc>Digital source type: Trained algorithmic media (generative AI) (${IPTC}trainedAlgorithmicMedia)</desc>`,
    );
  });

  it('carries a term the creator named, such as a human digital capture', async () => {
    const key = (await stack.svc.createKey('pro')).key;
    const client = createClient({ baseUrl: stack.svc.url, apiKey: key });
    const created = await client.attestations.create({
      type: 'human',
      content: `captured ${Math.random()}`,
      contentType: 'text/plain',
      mode: 'offchain',
      digitalSourceType: `${IPTC}digitalCapture`,
    });
    const badge: any = await (await get(stack.verify.url, `/api/attestation/${created.uid}`)).json();
    expect(badge).toMatchObject({
      type: 'human',
      digitalSourceType: `${IPTC}digitalCapture`,
      digitalSourceTypeLabel: 'Original digital capture sampled from real life',
    });
    const svg = await (await get(stack.verify.url, `/api/attestation/${created.uid}/badge.svg`)).text();
    expect(svg).toContain('Human-made (digital capture) · verified');
  });
});
