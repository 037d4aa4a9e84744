// The load pnpm bench:soak sends (bench/soak.ts): the API's mix, the verification app's, and the seed it reads.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type autocannon from 'autocannon';

const ip = () =>
  `10.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}`;
const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]!;

/** One request of the API's mix: reads by uid, searches, off-chain creates, a few on-chain ones, dashboard, healthz. */
export function apiRequest(keys: string[], uids: string[], hashes: string[]): autocannon.Request {
  return {
    setupRequest: (req) => {
      const dice = Math.random();
      const headers = { ...req.headers, 'x-forwarded-for': ip() };
      if (dice < 0.4) return { ...req, method: 'GET', path: `/v1/attestations/${pick(uids)}`, headers };
      if (dice < 0.55) return { ...req, method: 'GET', path: `/v1/attestations?hash=${pick(hashes)}`, headers };
      if (dice < 0.65) return { ...req, method: 'GET', path: '/healthz', headers };
      if (dice < 0.7) return { ...req, method: 'GET', path: '/dashboard/', headers };
      const mode = dice < 0.702 ? 'onchain' : 'offchain';
      return {
        ...req,
        method: 'POST',
        path: '/v1/attestations',
        headers: { ...headers, authorization: `Bearer ${pick(keys)}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          type: Math.random() < 0.5 ? 'human' : 'ai',
          content: randomUUID() + randomBytes(8).toString('hex'),
          contentType: 'text/plain',
          mode,
        }),
      };
    },
  };
}

/** Badge JSON, SVG and page requests to the verification app, each from its own address. */
export function verifyRequest(uids: string[]): autocannon.Request {
  return {
    method: 'GET',
    setupRequest: (req) => {
      const dice = Math.random();
      const uid = pick(uids);
      const path =
        dice < 0.5 ? `/api/attestation/${uid}` : dice < 0.8 ? `/api/attestation/${uid}/badge.svg` : `/${uid}`;
      return { ...req, path, headers: { ...req.headers, 'x-forwarded-for': ip() } };
    },
  };
}

export async function createSeed(
  api: string,
  key: string,
  count: number,
): Promise<{ uids: string[]; hashes: string[] }> {
  const uids: string[] = [];
  const hashes: string[] = [];
  for (let i = 0; i < count; i += 50) {
    const contents = Array.from({ length: Math.min(50, count - i) }, () => randomBytes(16).toString('hex'));
    const bodies = contents.map((content) => ({ type: 'human', content, contentType: 'text/plain', mode: 'offchain' }));
    const res = await fetch(`${api}/v1/attestations/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ attestations: bodies }),
    });
    if (!res.ok) throw new Error(`seeding: ${res.status} ${await res.text()}`);
    uids.push(...((await res.json()) as { attestations: { uid: string }[] }).attestations.map((a) => a.uid));
    hashes.push(...contents.map((content) => `0x${createHash('sha256').update(content).digest('hex')}`));
  }
  return { uids, hashes };
}

/**
 * Asks `api` once for every seeded record and hash (20 at a time, each from its own address), so that the rounds
 * begin with the answers a steady service holds for what it is asked: its cache full, not filling round by round.
 */
export async function warmUp(api: string, seed: { uids: string[]; hashes: string[] }): Promise<void> {
  const paths = [
    ...seed.uids.map((uid) => `/v1/attestations/${uid}`),
    ...seed.hashes.map((h) => `/v1/attestations?hash=${h}`),
  ];
  let next = 0;
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      while (next < paths.length) {
        const path = paths[next++]!;
        const res = await fetch(`${api}${path}`, { headers: { 'x-forwarded-for': ip() } });
        if (!res.ok) throw new Error(`warming up ${path}: ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
      }
    }),
  );
}

export async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not come up`);
}
