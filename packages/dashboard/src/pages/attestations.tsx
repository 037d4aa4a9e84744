import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ConfirmDialog } from '../components/confirm.tsx';
import { FileHashDrop } from '../components/file-hash.tsx';
import { Messages, QueryState } from '../components/messages.tsx';
import { short, when } from '../lib/format.ts';
import { isContentHash } from '../lib/hash.ts';
import { useCan } from '../lib/session.tsx';
import { useTitle } from '../lib/title.ts';
import { useKeysetPages, withCursor } from '../lib/pages.ts';
import { useTRPC, useTRPCClient, type Out } from '../lib/trpc.ts';
import { TableWrap } from '../components/table-wrap.tsx';

type Attestation = Out<'attestations', 'list'>['items'][number];

const ATTESTATION_PAGES = 'dashboard.attestations.list';

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
  const [revoking, setRevoking] = useState<Attestation | null>(null);
  const [done, setDone] = useState('');
  const client = useTRPCClient();
  const list = useKeysetPages([ATTESTATION_PAGES, filters], (cursor) =>
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
      setHashError('A content hash is 0x followed by 64 hexadecimal digits.');
      return;
    }
    setHashError('');
    setHashText(text);
    set('contentHash', text ? text.toLowerCase() : undefined);
  }

  return (
    <>
      <h1>Attestations</h1>
      <section aria-labelledby="filters-title" className="filters">
        <h2 id="filters-title" className="visually-hidden">
          Filters
        </h2>
        <div className="row-form">
          <label>
            Type
            <select
              value={filters.type ?? ''}
              onChange={(e) => set('type', (e.target.value || undefined) as Filters['type'])}
            >
              <option value="">Any</option>
              <option value="human">Human</option>
              <option value="ai">AI</option>
            </select>
          </label>
          <label>
            Mode
            <select
              value={filters.mode ?? ''}
              onChange={(e) => set('mode', (e.target.value || undefined) as Filters['mode'])}
            >
              <option value="">Any</option>
              <option value="onchain">On-chain</option>
              <option value="offchain">Off-chain</option>
            </select>
          </label>
          <label>
            Revoked
            <select
              value={filters.revoked === undefined ? '' : String(filters.revoked)}
              onChange={(e) => set('revoked', e.target.value === '' ? undefined : e.target.value === 'true')}
            >
              <option value="">Any</option>
              <option value="false">Not revoked</option>
              <option value="true">Revoked</option>
            </select>
          </label>
        </div>
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
        <Messages success={done} />
        <QueryState pending={list.isPending} error={list.error} label="attestations" />
        {list.isSuccess && items.length === 0 ? <p>No attestations match.</p> : null}
        {items.length > 0 ? (
          <TableWrap label="Attestations">
            <table>
              <thead>
                <tr>
                  <th scope="col">UID</th>
                  <th scope="col">Type</th>
                  <th scope="col">Mode</th>
                  <th scope="col">Status</th>
                  <th scope="col">Content hash</th>
                  <th scope="col">Created</th>
                  {canRevoke ? <th scope="col">Action</th> : null}
                </tr>
              </thead>
              <tbody>
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
                      <td>
                        {a.revokedAt ? null : (
                          <button type="button" className="danger small" onClick={() => setRevoking(a)}>
                            Revoke<span className="visually-hidden"> {a.uid}</span>
                          </button>
                        )}
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        ) : null}
        {list.hasNextPage ? (
          <p>
            <button
              type="button"
              className="secondary"
              onClick={() => void list.fetchNextPage()}
              disabled={list.isFetchingNextPage}
            >
              {list.isFetchingNextPage ? 'Loading…' : 'Load more'}
            </button>
          </p>
        ) : null}
      </section>
      {canRevoke ? (
        <RevokeAttestation
          target={revoking}
          onClose={(message) => {
            setRevoking(null);
            if (message) setDone(message);
          }}
        />
      ) : null}
    </>
  );
}

function RevokeAttestation({ target, onClose }: { target: Attestation | null; onClose: (message?: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [reason, setReason] = useState('');
  const revoke = useMutation(
    trpc.dashboard.attestations.revoke.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: [ATTESTATION_PAGES] }),
    }),
  );
  function close(message?: string) {
    revoke.reset();
    setReason('');
    onClose(message);
  }
  return (
    <ConfirmDialog
      open={target !== null}
      title="Revoke this attestation?"
      confirmLabel="Revoke permanently"
      busy={revoke.isPending}
      error={revoke.error}
      onCancel={() => close()}
      onConfirm={() =>
        target &&
        revoke.mutate(
          { uid: target.uid, ...(reason.trim() ? { reason: reason.trim() } : {}) },
          { onSuccess: () => close(`Attestation ${short(target.uid)} revoked.`) },
        )
      }
    >
      <p>
        Its verification page will show it as revoked
        {target?.mode === 'onchain' ? ', and the revocation is sent on-chain' : ''}. This cannot be undone.
      </p>
      <label>
        Reason (optional)
        <input maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} />
      </label>
    </ConfirmDialog>
  );
}
