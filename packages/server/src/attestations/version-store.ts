import { sql as raw, type ExpressionBuilder } from 'kysely';
import { accountNameSubquery } from '../accounts/store.ts';
import type { AnchorColumns } from '../anchoring/record.ts';
import type { DB } from '../db/database.ts';
import type { AttestationRow } from './store.ts';

/**
 * The parts of a record read from other rows than its own: its promotion's uid, its anchor, its claimant's name and
 * domain. A change to one of them leaves the record's own row (and its `xmin`) as it was: a version names them.
 */
export const linkedColumns = (eb: ExpressionBuilder<DB, 'attestations'>) =>
  [
    // a promotion names its original; the original reads its on-chain uid back through that link (docs/decisions.md)
    eb
      .selectFrom('attestations as p')
      .select('p.uid')
      .whereRef('p.offchainUid', '=', 'attestations.uid')
      // literals, not parameters (a precompiled read takes only its own); the index's predicate says <> 'failed'
      .where('p.status', '<>', raw.lit('failed'))
      .where('p.status', '=', raw.lit('confirmed'))
      .as('onchainUid'),
    eb
      .selectFrom('anchors as n')
      .select((n) =>
        n
          .fn<AnchorColumns['anchor']>('json_build_object', [
            raw.lit('root'),
            'n.root',
            raw.lit('txHash'),
            'n.txHash',
            raw.lit('blockNumber'),
            'n.blockNumber',
            raw.lit('timestamp'),
            'n.timestamp',
          ])
          .as('anchor'),
      )
      .whereRef('n.id', '=', 'attestations.anchorId')
      .where('n.txHash', 'is not', null)
      .as('anchor'),
    eb
      .case()
      .when('attestations.delegation', 'is not', null)
      .then(accountNameSubquery(eb.ref('attestations.accountId')))
      .end()
      .as('claimantName'),
    eb
      .case()
      .when('attestations.delegation', 'is not', null)
      .then(
        eb
          .selectFrom('accountDomains as d')
          .select('d.domain')
          .whereRef('d.accountId', '=', 'attestations.accountId')
          .where('d.verifiedAt', 'is not', null)
          .orderBy('d.verifiedAt')
          .orderBy('d.domain')
          // a literal: the precompiled reads take no parameter but their own
          .limit(raw.lit(1)),
      )
      .end()
      .as('claimantDomain'),
  ] as const;

/** The transaction that wrote a record's row as it is: any update writes a new row version, with its own. */
export const xmin = raw<string>`attestations.xmin::text`.as('xmin');

/** What a version is read from, without the record's bulk (its signed packages). */
export const versionColumns = (eb: ExpressionBuilder<DB, 'attestations'>) =>
  ['attestations.id', xmin, ...linkedColumns(eb)] as const;

/** A version's parts as PostgreSQL names them. */
export interface VersionParts {
  id: string;
  xmin: string;
  onchain_uid: string | null;
  anchor: AnchorColumns['anchor'];
  claimant_name: string | null;
  claimant_domain: string | null;
}

/** A record with the version it was read at. */
export interface VersionedRecord {
  row: AttestationRow;
  version: string;
}

/**
 * The version of records as read now, in their order: each one's id, its row's `xmin` and the values it reads from
 * other rows. Two equal versions are the same records with the same fields; a record added or gone, or any field
 * changed, makes them differ. A held answer is sent again only under its version (attestations/held-answers.ts).
 */
export function versionOf(records: VersionParts[]): string {
  return JSON.stringify(
    records.map((p) => [p.id, p.xmin, p.onchain_uid, p.anchor, p.claimant_name, p.claimant_domain]),
  );
}
