import { UsageError } from '../../errors.ts';
import type { WithInfrastructure } from '../../infrastructure.ts';
import { loadServiceSecrets } from '../../system/service-secret.ts';
import { createCredentialIssuer } from './issuer.ts';
import { credentialKeySealer } from './key-seal.ts';

/**
 * `credentials keys [--json]`, `credentials rotate-key [--json]`, `credentials retire-key KID`: the keys that sign
 * Verifiable Credentials. A rotation adds a key that signs from then on (every process within 30 s); the old keys stay
 * published, so what they signed still verifies, until retired. Returns false when the command failed (exit 1).
 */
export async function credentialsCommand(
  withInfrastructure: WithInfrastructure,
  args: string[],
  flags: { json?: boolean | undefined },
): Promise<boolean> {
  const [action, kid] = args;
  if (action === 'retire-key' && !kid) throw new UsageError('credentials retire-key needs the kid (credentials keys)');
  if (action !== 'keys' && action !== 'rotate-key' && action !== 'retire-key')
    throw new UsageError(`unknown credentials command: ${action ?? '(none)'}`);
  return withInfrastructure(async ({ db, clock, config }) => {
    const issuer = createCredentialIssuer({
      db,
      clock,
      sealer: credentialKeySealer(await loadServiceSecrets(config)),
      publicBaseUrl: config.publicBaseUrl,
    });
    if (action === 'rotate-key') {
      const made = `${issuer.did}#${await issuer.rotate()}`;
      console.log(flags.json ? JSON.stringify({ kid: made }) : `${made} signs from now on (within 30 s everywhere)`);
      return true;
    }
    if (action === 'retire-key') {
      const retired = await issuer.retire(kid!);
      if (retired) console.log(`${kid} retired: unpublished, signs no more`);
      else console.error(`no live key ${kid}`);
      return retired;
    }
    const keys = await issuer.publicKeys();
    keys.forEach((key, i) =>
      console.log(
        flags.json ? JSON.stringify({ kid: key.kid, signing: i === 0 }) : `${key.kid}${i === 0 ? '  (signing)' : ''}`,
      ),
    );
    return true;
  });
}
