import { randomBytes, randomUUID } from 'node:crypto';
import type { AuditAction } from '@attestation-service/protocol';
import { appendAudit } from '../audit/append.ts';
import { auditEntry, type MemberActor, type RequestOrigin } from '../audit/entry.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import { AppError, notFound } from '../errors.ts';
import { dnsProofName, dnsProofValue, wellKnownProofUrl, type DomainView, type VerifyOutcome } from './contracts.ts';
import type { DomainProver } from './proof.ts';
import {
  countDomains,
  deleteDomain,
  findDomain,
  insertDomain,
  isDomainClaimed,
  listDomains,
  markVerified,
  type DomainRow,
} from './store.ts';

/** Enough for an organisation's names and their country domains; each one costs lookups when it is checked. */
const MAX_DOMAINS_PER_ACCOUNT = 10;

interface DomainCaller {
  accountId: string;
  member: MemberActor;
}

function view(row: DomainRow): DomainView {
  return {
    domain: row.domain,
    token: row.token,
    dnsName: dnsProofName(row.domain),
    dnsValue: dnsProofValue(row.token),
    wellKnownUrl: wellKnownProofUrl(row.domain),
    createdAt: row.createdAt.toISOString(),
    verifiedAt: row.verifiedAt?.toISOString() ?? null,
    verifiedBy: row.verifiedBy,
  };
}

const alreadyClaimed = (domain: string) =>
  new AppError('ALREADY_EXISTS', `This account claims ${domain} already: verify it, or remove it first.`);

/**
 * An account's domains: claimed with a fresh token, verified when the domain's DNS or web server shows it, removed.
 * Each change is audited in its own transaction; a check that proves nothing changes nothing.
 */
export function createDomainService(deps: { db: Db; clock: Clock; prove: DomainProver }) {
  const { db, clock } = deps;
  const audit = (caller: DomainCaller, origin: RequestOrigin, at: Date, action: AuditAction, details: object) =>
    auditEntry({
      accountId: caller.accountId,
      actorMember: caller.member,
      at,
      action,
      resource: `domain:${(details as { domain: string }).domain}`,
      details: { ...details },
      origin,
    });

  return {
    async list(accountId: string): Promise<{ data: DomainView[] }> {
      return { data: (await listDomains(db, accountId)).map(view) };
    },

    async add(caller: DomainCaller, domain: string, origin: RequestOrigin): Promise<DomainView> {
      const now = new Date(clock.now());
      // 128 bits: nobody publishes it by chance, and it reads easily in a TXT record
      const row = {
        id: randomUUID(),
        accountId: caller.accountId,
        domain,
        token: randomBytes(16).toString('hex'),
        createdAt: now,
      };
      await inTransaction(db, async (tx) => {
        if (await findDomain(tx, caller.accountId, domain)) throw alreadyClaimed(domain);
        if ((await countDomains(tx, caller.accountId)) >= MAX_DOMAINS_PER_ACCOUNT)
          throw new AppError('VALIDATION_FAILED', `An account claims at most ${MAX_DOMAINS_PER_ACCOUNT} domains.`, {
            errors: [{ path: 'domain', message: `at most ${MAX_DOMAINS_PER_ACCOUNT} domains: remove one first` }],
          });
        await insertDomain(tx, row);
        await appendAudit(tx, audit(caller, origin, now, 'domain.added', { domain }));
      }).catch((error: unknown) => {
        if (isDomainClaimed(error)) throw alreadyClaimed(domain);
        throw error;
      });
      return view({ ...row, verifiedAt: null, verifiedBy: null });
    },

    /**
     * Checks the domain's proofs now. The first time one passes, the domain is verified (and audited); a domain
     * verified before stays so whatever a later check finds (re-verification is a decision not yet taken).
     */
    async verify(caller: DomainCaller, domain: string, origin: RequestOrigin): Promise<VerifyOutcome> {
      const row = await findDomain(db, caller.accountId, domain);
      if (!row) throw notFound(`Domain ${domain}`);
      // the lookups run outside any transaction: they take seconds, and no row is held meanwhile
      const { method, checks } = await deps.prove(row.domain, row.token);
      if (!method) return { domain: view(row), verified: row.verifiedAt !== null, method: null, checks };
      const now = new Date(clock.now());
      const verified = await inTransaction(db, async (tx) => {
        const marked = await markVerified(tx, row.id, now, method);
        if (marked) await appendAudit(tx, audit(caller, origin, now, 'domain.verified', { domain, method }));
        return marked;
      });
      return { domain: view(verified ?? row), verified: true, method, checks };
    },

    async remove(caller: DomainCaller, domain: string, origin: RequestOrigin): Promise<void> {
      const now = new Date(clock.now());
      await inTransaction(db, async (tx) => {
        if (!(await deleteDomain(tx, caller.accountId, domain))) throw notFound(`Domain ${domain}`);
        await appendAudit(tx, audit(caller, origin, now, 'domain.removed', { domain }));
      });
    },
  };
}

export type DomainService = ReturnType<typeof createDomainService>;
