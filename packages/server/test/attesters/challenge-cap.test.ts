import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PENDING_CHALLENGES } from '../../src/attesters/challenge-cap.ts';
import { CHALLENGE_TTL_MS } from '../../src/attesters/service.ts';
import { call, startTestService, type TestService } from '../support/service.ts';
import { newCustomer } from './support.ts';

let svc: TestService;
let offsetMs = 0;

beforeAll(async () => {
  svc = await startTestService({ worker: false, clock: { now: () => Date.now() + offsetMs } });
});
afterAll(() => svc?.stop());

const challenge = (key: string, address = newCustomer().address) =>
  call(svc.url, 'POST', '/v1/attesters/challenges', { key, body: { address } });

describe('pending attester challenges per account', () => {
  it(`refuses a challenge while ${MAX_PENDING_CHALLENGES} are unused, with 429, until one is used or expires`, async () => {
    const { key } = await svc.createKey('pro');
    const customer = newCustomer();
    const first = await challenge(key, customer.address);
    expect(first.status).toBe(201);
    for (let i = 1; i < MAX_PENDING_CHALLENGES; i++) expect((await challenge(key)).status).toBe(201);

    const refused = await challenge(key);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      code: 'RATE_LIMITED',
      details: { limit: MAX_PENDING_CHALLENGES, windowSeconds: CHALLENGE_TTL_MS / 1000, scope: 'account' },
    });
    expect(Number(refused.headers.get('retry-after'))).toBe(refused.body.details.retryAfterSeconds);
    expect(refused.body.details.retryAfterSeconds).toBeGreaterThan(0);
    // another account is not held by this one's challenges
    expect((await challenge((await svc.createKey('pro')).key)).status).toBe(201);

    // a used challenge, even a wrong signature's, no longer counts
    const signature = await newCustomer().signMessage({ message: first.body.message });
    const wrong = await call(svc.url, 'POST', '/v1/attesters', {
      key,
      body: { challengeId: first.body.id, signature },
    });
    expect(wrong.status).toBe(400);
    expect((await challenge(key)).status).toBe(201);
    expect((await challenge(key)).status).toBe(429);

    offsetMs += CHALLENGE_TTL_MS + 1_000; // every pending one has expired
    expect((await challenge(key)).status).toBe(201);
  });
});
