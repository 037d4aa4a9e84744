import 'reflect-metadata';
import { mkdtemp, readFile, stat, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { DEVELOPMENT_CA_NAME, makeSigningChain } from '../../src/credentials/c2pa/dev-ca.ts';
import { DEVELOPMENT_SIGNER_FILE, loadSigningIdentity } from '../../src/credentials/c2pa/identity.ts';

const dataDir = () => mkdtemp(join(tmpdir(), 'c2pa-identity-'));

describe('the Content Credentials signer', () => {
  it('is made once in DATA_DIR in development (key mode 0600), a leaf under a CA, and reused', async () => {
    const dir = await dataDir();
    const first = await loadSigningIdentity(loadConfig({ DATA_DIR: dir }));
    const path = join(dir, DEVELOPMENT_SIGNER_FILE);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(first).toMatchObject({ alg: 'es256', development: true });
    expect(first.chain).toHaveLength(2);
    const [leaf, ca] = first.chain.map((der) => new x509.X509Certificate(der));
    expect(leaf!.issuer).toBe(ca!.subject);
    expect(leaf!.subject).not.toBe(leaf!.issuer);
    expect(ca!.subject).toContain(DEVELOPMENT_CA_NAME);
    const usage = leaf!.getExtension(x509.KeyUsagesExtension)!;
    expect(usage.usages).toBe(x509.KeyUsageFlags.digitalSignature);
    expect(leaf!.getExtension(x509.BasicConstraintsExtension)!.ca).toBe(false);

    const again = await loadSigningIdentity(loadConfig({ DATA_DIR: dir }));
    expect(again.chain).toEqual(first.chain);
    expect(await readFile(path, 'utf8')).toContain('-----BEGIN PRIVATE KEY-----');
  });

  it('refuses a DATA_DIR signer that other users can read', async () => {
    const dir = await dataDir();
    await loadSigningIdentity(loadConfig({ DATA_DIR: dir }));
    await chmod(join(dir, DEVELOPMENT_SIGNER_FILE), 0o644);
    await expect(loadSigningIdentity(loadConfig({ DATA_DIR: dir }))).rejects.toThrow(/chmod 600/);
  });

  it.each([
    ['DATABASE_URL is set', { DATABASE_URL: 'postgres://db.example/attestations' }],
    ['NODE_ENV=production', { NODE_ENV: 'production' }],
  ])('is refused in production (%s) without C2PA_SIGNING_CERT, naming what to set', async (because, env) => {
    const dir = await dataDir();
    const attempt = loadSigningIdentity(loadConfig({ DATA_DIR: dir, ...env }));
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    await expect(attempt).rejects.toThrow(new RegExp(`C2PA_SIGNING_CERT and C2PA_SIGNING_KEY .* when ${because}`));
    await expect(stat(join(dir, DEVELOPMENT_SIGNER_FILE))).rejects.toThrow(); // no development chain was made
  });

  it('takes a configured chain and key (PEM text), in production too', async () => {
    const { keyPem, chainPem } = await makeSigningChain({ caName: 'Operator CA' });
    const config = loadConfig({ NODE_ENV: 'production', C2PA_SIGNING_CERT: chainPem, C2PA_SIGNING_KEY: keyPem });
    const identity = await loadSigningIdentity(config);
    expect(identity).toMatchObject({ alg: 'es256', development: false });
    expect(new x509.X509Certificate(identity.chain[1]!).subject).toContain('Operator CA');
  });

  it('refuses a key that is not the first certificate’s, and the development chain in production', async () => {
    const one = await makeSigningChain({ caName: 'Operator CA' });
    const other = await makeSigningChain({ caName: 'Operator CA' });
    const mismatched = loadConfig({ C2PA_SIGNING_CERT: one.chainPem, C2PA_SIGNING_KEY: other.keyPem });
    await expect(loadSigningIdentity(mismatched)).rejects.toThrow(/key does not belong to the first certificate/);
    const dev = await makeSigningChain();
    const copied = loadConfig({
      NODE_ENV: 'production',
      C2PA_SIGNING_CERT: dev.chainPem,
      C2PA_SIGNING_KEY: dev.keyPem,
    });
    await expect(loadSigningIdentity(copied)).rejects.toThrow(/development chain .* refused when NODE_ENV=production/);
  });

  it('refuses half a signer at boot: a chain without its key', async () => {
    const { chainPem } = await makeSigningChain();
    expect(() => loadConfig({ C2PA_SIGNING_CERT: chainPem })).toThrow(
      'set both C2PA_SIGNING_CERT and C2PA_SIGNING_KEY, or neither',
    );
  });
});
