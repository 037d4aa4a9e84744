import { findByUids } from '../../attestations/record-store.ts';
import { toRecord } from '../../attestations/record.ts';
import type { Db } from '../../db/database.ts';
import { AppError, notFound } from '../../errors.ts';
import type { AuthenticatedKey } from '../../keys/service.ts';
import type { AssetBody } from './asset-body.ts';
import { manifestDefinition, type AttestationFacts } from './manifest.ts';
import type { SigningPool } from './signing-pool.ts';

interface ContentCredentialsDeps {
  db: Db;
  verifyBaseUrl: string;
  /** The EAS contract attestations are made under, named in every manifest. */
  easContract: string;
  /** The largest asset taken (C2PA_MAX_BYTES). */
  maxBytes: number;
  /** The signing threads, or why there are none (a real deployment without C2PA_SIGNING_CERT). */
  signing: { pool: SigningPool } | { off: string };
}

export type ContentCredentialsService = ReturnType<typeof createContentCredentialsService>;

/** How long a client turned away because every place is taken is asked to wait, in seconds. */
const BUSY_RETRY_AFTER_SECONDS = 2;
/** How long a client is asked to wait when the time-stamping authority did not answer, in seconds. */
const TSA_RETRY_AFTER_SECONDS = 30;

/** Content Credentials (C2PA manifests) for an account's own attestations, signed by the service's certificate. */
export function createContentCredentialsService(deps: ContentCredentialsDeps) {
  const { db, verifyBaseUrl, easContract } = deps;
  const poolOf = (): SigningPool => {
    if ('off' in deps.signing)
      throw new AppError('SERVICE_UNAVAILABLE', `Content Credentials are off on this service: ${deps.signing.off}`);
    return deps.signing.pool;
  };
  return {
    maxBytes: deps.maxBytes,

    /**
     * The attestation, when the caller's account made it and it stands: the manifest names this service as signer
     * and the attestation as its claim, so only the attestation's own account may attach it to bytes.
     */
    async attestationFor(auth: AuthenticatedKey, uid: string): Promise<AttestationFacts> {
      poolOf();
      const row = (await findByUids(db, [uid.toLowerCase()])).get(uid.toLowerCase());
      if (!row) throw notFound(`Attestation ${uid}`);
      if (row.accountId !== auth.accountId)
        throw new AppError(
          'FORBIDDEN',
          `Attestation ${uid} belongs to another account: only the account that made it may have Content Credentials made for it.`,
        );
      const record = toRecord(row, verifyBaseUrl);
      if (record.revoked)
        throw new AppError('ALREADY_REVOKED', `Attestation ${uid} is revoked: no Content Credentials are made for it.`);
      return { record, easContract };
    },

    /** A place for one more asset in memory (503 with Retry-After when all are taken); call the release when done. */
    admit(): () => void {
      const release = poolOf().admit();
      if (release) return release;
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        'Every Content Credentials signing place is taken. Retry shortly.',
        {},
        { 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) },
      );
    },

    /** The asset with its manifest (or the sidecar store), once its bytes are the ones attested. */
    async issue(
      facts: AttestationFacts,
      body: AssetBody,
      output: { format: string; embed: boolean },
    ): Promise<Uint8Array> {
      const expected = facts.record.contentHash.toLowerCase();
      if (body.sha256 !== expected)
        throw new AppError(
          'CONTENT_MISMATCH',
          `The body's SHA-256 is not the content hash of attestation ${facts.record.uid}: send the attested bytes.`,
          { expected, received: body.sha256 },
        );
      const task = { bytes: body.bytes, ...output, definition: manifestDefinition(facts, output.format) };
      const result = await poolOf().sign(task);
      if (result instanceof Uint8Array) return result;
      if ('noTimeStamp' in result)
        throw new AppError(
          'SERVICE_UNAVAILABLE',
          `The signature could not be time-stamped: ${result.noTimeStamp}. Retry later.`,
          {},
          { 'Retry-After': String(TSA_RETRY_AFTER_SECONDS) },
        );
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', `The body is not an asset c2pa-rs can read as ${output.format}.`, {
        contentType: output.format,
        reason: result.unreadable,
      });
    },
  };
}
