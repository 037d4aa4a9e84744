import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.ts';
import { requireOptional } from '../../src/system/optional.ts';

describe('optional development dependencies', () => {
  it('a missing one stops the process with one line naming the setting and the package', () => {
    const check = () => requireOptional('embedded-postgres-not-installed', 'DATABASE_URL', 'the embedded PostgreSQL');
    expect(check).toThrow(ConfigError);
    expect(check).toThrow(
      'DATABASE_URL is not set and the embedded PostgreSQL (development dependency embedded-postgres-not-installed) is not in this install; set DATABASE_URL',
    );
  });

  it('an installed one passes, even when its package does not export its manifest', () => {
    expect(() => requireOptional('embedded-postgres', 'DATABASE_URL', 'the embedded PostgreSQL')).not.toThrow();
    expect(() => requireOptional('@foundry-rs/anvil', 'CHAIN_RPC_URL', 'the embedded dev chain')).not.toThrow();
  });
});
