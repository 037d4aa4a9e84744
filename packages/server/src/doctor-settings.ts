import type { Config } from './config.ts';
import { info, urlHost, type Finding } from './system/doctor.ts';
import { databaseIdentity, describeDatabase } from './system/service-state.ts';

/** What the configuration says, one finding per part, each naming the setting that decides it. */
export function configuredFindings(config: Config, env: Record<string, string | undefined>): Finding[] {
  const set = (name: string) => env[name] !== undefined && env[name] !== '';
  const { chain, mail, c2pa } = config;
  return [
    info(
      'mode',
      config.productionBecause
        ? `production (${config.productionBecause})`
        : 'development (no DATABASE_URL, NODE_ENV is not production): stand-ins in DATA_DIR for what is unset',
    ),
    info('data', `DATA_DIR=${config.dataDir}`),
    info(
      'database',
      `${describeDatabase(databaseIdentity(config))}${config.databaseUrl ? '' : ' (DATABASE_URL unset)'}`,
    ),
    info(
      'chain',
      chain.rpcUrls.length === 0
        ? 'the embedded development chain, started with the service (CHAIN_RPC_URL unset)'
        : `CHAIN_RPC_URL ${chain.rpcUrls.map(urlHost).join(', ')}` +
            (chain.chainId === undefined ? ' (CHAIN_ID unset: any one chain)' : ` (CHAIN_ID ${chain.chainId})`),
    ),
    info(
      'redis',
      config.redisUrl
        ? `REDIS_URL ${urlHost(config.redisUrl)}`
        : 'none: rate-limit windows are per process (set REDIS_URL to share them between replicas)',
    ),
    info(
      'mail',
      mail.mode === 'smtp'
        ? `SMTP_URL ${urlHost(mail.smtpUrl!.reveal())}, from ${mail.from}`
        : mail.mode === 'catcher'
          ? 'the development inbox (MailDev), started with the service (SMTP_URL unset)'
          : 'off: nothing is mailed (set SMTP_URL)',
    ),
    info(
      'public base URL',
      `${config.publicBaseUrl} (${set('PUBLIC_BASE_URL') ? 'PUBLIC_BASE_URL' : 'from HOST and PORT; PUBLIC_BASE_URL unset'})`,
    ),
    info(
      'C2PA signer',
      c2pa.certificateChain
        ? 'C2PA_SIGNING_CERT and C2PA_SIGNING_KEY'
        : config.productionBecause
          ? 'none: Content Credentials answer 503 (set C2PA_SIGNING_CERT and C2PA_SIGNING_KEY)'
          : 'a development CA in DATA_DIR (C2PA_SIGNING_CERT and C2PA_SIGNING_KEY unset)',
    ),
  ];
}
