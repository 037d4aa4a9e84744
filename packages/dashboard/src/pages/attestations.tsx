import { isContentHash, normalizeContentHash } from '@attestation-service/protocol';
import { REVOKE_REASON_MAX } from '@attestation-service/server/rules';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ConfirmAction } from '../components/confirm.tsx';
import { FileHashDrop } from '../components/file-hash.tsx';
import { ItemButton } from '../components/item-button.tsx';
import { LoadMore } from '../components/load-more.tsx';
import { Messages, QueryState } from '../components/messages.tsx';
import { SelectOf } from '../components/select-of.tsx';
import { DataTable } from '../components/table.tsx';
import { useConfirmTarget } from '../lib/confirm.ts';
import { short, when } from '../lib/format.ts';
import { useKeysetPages, withCursor } from '../lib/pages.ts';
import { useRefresh } from '../lib/refresh.ts';
import { useCan } from '../lib/session.tsx';
import { useTitle } from '../lib/title.ts';
import { useTRPC, useTRPCClient, type Outputs } from '../lib/trpc.ts';

type Attestation = Outputs['attestations']['list']['data'][number];

interface Filters {
  type?: 'human' | 'ai';
  mode?: 'onchain' | 'offchain';
  revoked?: boolean;
  contentHash?: string;
}

/** The account's attestations, newest first, with filters, hash search (typed or from a file) and revoke. */
export default function Attestations() {
  useTitle('Attestations');
  const canRevoke = useCan('admin');
  const [filters, setFilters] = useState<Filters>({});
  const [hashText, setHashText] = useState('');
  const [hashError, setHashError] = useState('');
  const revoking = useConfirmTarget<Attestation>();
  const trpc = useTRPC();
  const client = useTRPCClient();
  const list = useKeysetPages(trpc.dashboard.attestations.list.infiniteQueryKey(filters), (cursor) =>
    client.dashboard.attestations.list.query(withCursor({ ...filters, limit: 50 }, cursor)),
  );
  const items = list.items;

  function set<K extends keyof Filters>(key: K, value: Filters[K] | undefined) {
    setFilters((current) => {
      const next = { ...current };
      if (value === undefined) delete next[key];
      else next[key] = value;
      return next;
    });
  }

  function searchHash(hash: string) {
    const text = hash.trim();
    if (text && !isContentHash(text)) {
      setHashError('A content hash is 64 hexadecimal digits, with or without 0x.');
      return;
    }
    setHashError('');
    setHashText(text);
    set('contentHash', text ? normalizeContentHash(text) : undefined);
  }

  return (
    <>
      <h1>Attestations</h1>
      <section aria-labelledby="filters-title" className="filters">
        <h2 id="filters-title" className="visually-hidden">
          Filters
        </h2>
        <FilterSelects filters={filters} set={set} />
        <form
          className="row-form"
          role="search"
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            searchHash(hashText);
          }}
        >
          <label className="grow">
            Content hash
            <input
              value={hashText}
              placeholder="0x…"
              spellCheck={false}
              autoComplete="off"
              onChange={(e) => setHashText(e.target.value)}
            />
          </label>
          <button type="submit">Search</button>
          {filters.contentHash ? (
            <button type="button" className="secondary" onClick={() => searchHash('')}>
              Clear
            </button>
          ) : null}
        </form>
        <FileHashDrop onHash={searchHash} />
        <Messages error={hashError} />
      </section>
      <section aria-labelledby="list-title">
        <h2 id="list-title">Newest first</h2>
        <Messages success={revoking.done} />
        <QueryState pending={list.isPending} error={list.error} label="attestations" />
        {list.isSuccess && items.length === 0 ? <p>No attestations match.</p> : null}
        {items.length > 0 ? <AttestationRows items={items} canRevoke={canRevoke} onRevoke={revoking.ask} /> : null}
        <LoadMore pages={list} />
      </section>
      {canRevoke ? <RevokeAttestation target={revoking.target} onClose={revoking.close} /> : null}
    </>
  );
}

type SetFilter = <K extends keyof Filters>(key: K, value: Filters[K] | undefined) => void;

/** The type, mode and revoked filters. */
function FilterSelects({ filters, set }: { filters: Filters; set: SetFilter }) {
  return (
    <div className="row-form">
      <label>
        Type
        <SelectOf
          values={['', 'human', 'ai']}
          labels={{ '': 'Any', human: 'Human', ai: 'AI' }}
          value={filters.type ?? ''}
          onChange={(type) => set('type', type || undefined)}
        />
      </label>
      <label>
        Mode
        <SelectOf
          values={['', 'onchain', 'offchain']}
          labels={{ '': 'Any', onchain: 'On-chain', offchain: 'Off-chain' }}
          value={filters.mode ?? ''}
          onChange={(mode) => set('mode', mode || undefined)}
        />
      </label>
      <label>
        Revoked
        <SelectOf
          values={['', 'false', 'true']}
          labels={{ '': 'Any', false: 'Not revoked', true: 'Revoked' }}
          value={filters.revoked === undefined ? '' : filters.revoked ? 'true' : 'false'}
          onChange={(revoked) => set('revoked', revoked === '' ? undefined : revoked === 'true')}
        />
      </label>
    </div>
  );
}

/** The attestations of the pages loaded, each with its revoke button for an admin. */
function AttestationRows({
  items,
  canRevoke,
  onRevoke,
}: {
  items: Attestation[];
  canRevoke: boolean;
  onRevoke: (a: Attestation) => void;
}) {
  return (
    <DataTable
      label="Attestations"
      columns={['UID', 'Type', 'Mode', 'Status', 'Content hash', 'Created', canRevoke && 'Action']}
    >
      {items.map((a) => (
        <tr key={a.uid}>
          <th scope="row">
            <a href={a.verifyUrl} title={a.uid}>
              <code>{short(a.uid)}</code>
              <span className="visually-hidden"> (verification page)</span>
            </a>
          </th>
          <td>{a.type}</td>
          <td>{a.mode}</td>
          <td>{a.revokedAt ? <span className="badge bad">revoked {when(a.revokedAt)}</span> : a.status}</td>
          <td>
            <code title={a.contentHash}>{short(a.contentHash)}</code>
          </td>
          <td>{when(a.createdAt)}</td>
          {canRevoke ? (
            <td>{a.revokedAt ? null : <ItemButton label="Revoke" item={a.uid} onClick={() => onRevoke(a)} />}</td>
          ) : null}
        </tr>
      ))}
    </DataTable>
  );
}

function RevokeAttestation({ target, onClose }: { target: Attestation | null; onClose: (message?: string) => void }) {
  const trpc = useTRPC();
  const [reason, setReason] = useState('');
  const refresh = useRefresh(trpc.dashboard.attestations.list.pathFilter());
  const revoke = useMutation(trpc.dashboard.attestations.revoke.mutationOptions({ onSuccess: refresh }));
  return (
    <ConfirmAction
      target={target}
      action={revoke}
      input={(a) => ({ uid: a.uid, ...(reason.trim() ? { reason: reason.trim() } : {}) })}
      done={(a) => `Attestation ${short(a.uid)} revoked.`}
      onClose={(message) => {
        setReason('');
        onClose(message);
      }}
      title="Revoke this attestation?"
      confirmLabel="Revoke permanently"
    >
      <p>
        Its verification page will show it as revoked
        {target?.mode === 'onchain' ? ', and the revocation is sent on-chain' : ''}. This cannot be undone.
      </p>
      <label>
        Reason (optional)
        <input maxLength={REVOKE_REASON_MAX} value={reason} onChange={(e) => setReason(e.target.value)} />
      </label>
    </ConfirmAction>
  );
}
