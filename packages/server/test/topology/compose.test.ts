// deploy/compose.yaml as Compose would run it on an operator's machine, with only the settings its env file names:
// what it publishes and where, that no password is written in it, that Redis wants one, that every container has
// limits, and that no role believes an X-Forwarded-For a visitor wrote.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deployDir, readEnvFile, readYaml, type Doc } from './manifests.ts';

const [compose] = readYaml(join(deployDir, 'compose.yaml'));
const services = compose.services as Record<string, Doc>;
const nginx = readFileSync(join(deployDir, 'nginx.conf'), 'utf8');

/** Compose's interpolation: ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?error}, ${VAR?error}, and $$ for $. */
function interpolate(text: string, env: Record<string, string>): string {
  return text.replace(/\$\$|\$\{([A-Z0-9_]+)(?:(:?)([-?])([^}]*))?\}/g, (whole, name, colon, kind, arg) => {
    if (whole === '$$') return '$';
    const value = env[name as string];
    const missing = value === undefined || (colon === ':' && value === '');
    if (!missing) return value;
    if (kind === '?') throw new Error(`required: ${name} (${arg})`);
    return kind === '-' ? (arg as string) : '';
  });
}

const secrets = {
  POSTGRES_PASSWORD: 'pg-sentinel-0f3a',
  REDIS_PASSWORD: 'redis-sentinel-9c1d',
  SERVICE_SECRET: 'x'.repeat(40),
};
const environmentOf = (service: string, env: Record<string, string> = secrets) =>
  Object.fromEntries(
    Object.entries((services[service].environment ?? {}) as Record<string, string>).map(([k, v]) => [
      k,
      interpolate(String(v), env),
    ]),
  );

describe('deploy/compose.yaml', () => {
  it('asks for every secret it uses in deploy/compose.env.example and has a default for none', () => {
    const example = readEnvFile(join(deployDir, 'compose.env.example'));
    for (const name of Object.keys(secrets)) {
      expect(example[name], name).toBe('');
      const without = Object.fromEntries(Object.entries(secrets).filter(([key]) => key !== name));
      expect(() => interpolate(JSON.stringify(compose), without)).toThrow(`required: ${name}`);
    }
  });

  it('writes no password: every credential in a URL or a variable is the env file’s', () => {
    // RELAYER_PRIVATE_KEY's default is anvil's public development key, which the service refuses off that chain
    for (const name of Object.keys(services))
      for (const [key, value] of Object.entries(environmentOf(name))) {
        if (/PASSWORD|SECRET/.test(key)) expect(Object.values(secrets), `${name} ${key}`).toContain(value);
        if (/^(postgres(ql)?|rediss?):\/\//.test(value))
          expect(Object.values(secrets), `${name} ${key}`).toContain(new URL(value).password);
      }
    expect(environmentOf('api').DATABASE_URL).toBe(
      `postgresql://attestation:${secrets.POSTGRES_PASSWORD}@postgres:5432/attestation`,
    );
  });

  it('runs Redis with a password, which every role that uses Redis sends', () => {
    const command = interpolate([services.redis.command].flat().join(' '), secrets);
    expect(command).toMatch(/requirepass \$REDIS_PASSWORD/);
    expect(environmentOf('redis').REDIS_PASSWORD).toBe(secrets.REDIS_PASSWORD);
    for (const name of ['api', 'worker', 'verify'])
      expect(new URL(environmentOf(name).REDIS_URL!).password, name).toBe(secrets.REDIS_PASSWORD);
    expect(services.redis.ports).toBeUndefined();
  });

  it('publishes only the proxy, on 127.0.0.1 unless PUBLISH_ADDRESS says otherwise', () => {
    const published = Object.entries(services).filter(([, s]) => s.ports?.length);
    expect(published.map(([name]) => name)).toEqual(['proxy']);
    const ports = (services.proxy.ports as string[]).map((p) => interpolate(p, secrets));
    expect(ports).toEqual(['127.0.0.1:8080:8080', '127.0.0.1:8081:8081']);
    expect((services.proxy.ports as string[]).map((p) => interpolate(p, { PUBLISH_ADDRESS: '0.0.0.0' }))).toEqual([
      '0.0.0.0:8080:8080',
      '0.0.0.0:8081:8081',
    ]);
  });

  it('puts each role that trusts X-Forwarded-For behind nginx, which appends the visitor to it', () => {
    const servers = nginx.split(/^server \{/m).slice(1);
    const listening = Object.entries(services).filter(([, s]) => /--(api|verify)\b/.test([s.command].flat().join(' ')));
    expect(listening.map(([name]) => name)).toEqual(['api', 'verify']);
    for (const [name, service] of listening) {
      const trustProxy = environmentOf(name).TRUST_PROXY;
      if (trustProxy === undefined || trustProxy === '0') continue;
      expect(service.ports, name).toBeUndefined();
      const server = servers.find((s) => s.includes(`http://${name}:`));
      expect(server, `nginx server for ${name}`).toBeDefined();
      expect(server).toMatch(/proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
    }
    expect(environmentOf('verify').TRUST_PROXY).toBe('1');
  });

  it('gives the verification app no database, service secret or relayer key, and no way to PostgreSQL', () => {
    const env = environmentOf('verify');
    for (const key of ['DATABASE_URL', 'SERVICE_SECRET', 'RELAYER_PRIVATE_KEY']) expect(env).not.toHaveProperty(key);
    const networksOf = (name: string) => [services[name].networks ?? ['default']].flat() as string[];
    expect(networksOf('verify').filter((n) => networksOf('postgres').includes(n))).toEqual([]);
    expect(compose.networks.database.internal).toBe(true);
  });

  it('limits every container’s memory and CPU', () => {
    for (const [name, service] of Object.entries(services)) {
      const limits = service.deploy?.resources?.limits ?? {};
      expect({ name, memory: typeof limits.memory, cpus: typeof limits.cpus }).toEqual({
        name,
        memory: 'string',
        cpus: 'string',
      });
    }
  });
});
