import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../../server/test/support/service.ts';
import { createAttestation, randomIp, revoke, startStack, type Stack } from './support.ts';

let stack: Stack;
let origin: string;
let derived: string;

beforeAll(async () => {
  stack = await startStack();
  const made = await createAttestation(stack.svc, {
    type: 'human',
    content: `origin ${Math.random()}`,
    mode: 'onchain',
  });
  origin = made.created.uid;
  const res = await call(stack.svc.url, 'POST', '/v1/attestations', {
    key: made.key,
    body: {
      type: 'ai',
      content: `an edit ${Math.random()}`,
      contentType: 'text/plain',
      mode: 'offchain',
      refUid: origin,
    },
  });
  expect(res.status).toBe(201);
  derived = res.body.uid;
  await revoke(stack.svc, origin, made.key);
}, 60_000);
afterAll(() => stack?.stop());

const get = (path: string) => fetch(`${stack.verify.url}${path}`, { headers: { 'x-forwarded-for': randomIp() } });

describe('the verification page of a derived claim', () => {
  it('shows "Derived from" its origin, linked, with the origin\'s verdict, and checks the signed refUID', async () => {
    const page = await (await get(`/${derived}`)).text();
    expect(page).toContain('data-verdict="verified"');
    expect(page).toMatch(new RegExp(`data-link-verdict="revoked">\\s*Derived from <a href="/${origin}"`));
    expect(page).toMatch(/<li class="pass" data-check="Derived from">/);
  });

  it('carries the chain in the JSON badge', async () => {
    const badge = (await (await get(`/api/attestation/${derived}`)).json()) as { derivedFrom: unknown };
    expect(badge.derivedFrom).toEqual([
      { uid: origin, verdict: 'revoked', verifyUrl: `${stack.verify.url}/${origin}` },
    ]);
  });
});
