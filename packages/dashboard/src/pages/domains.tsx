import { domainSchema } from '@attestation-service/server/rules';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ConfirmAction } from '../components/confirm.tsx';
import { CopyButton } from '../components/copy.tsx';
import { ItemButton } from '../components/item-button.tsx';
import { Messages, QueryState } from '../components/messages.tsx';
import { Submit } from '../components/submit.tsx';
import { useConfirmTarget } from '../lib/confirm.ts';
import { when } from '../lib/format.ts';
import { useRefresh } from '../lib/refresh.ts';
import { useCan } from '../lib/session.tsx';
import { useTitle } from '../lib/title.ts';
import { useTRPC, type Outputs } from '../lib/trpc.ts';
import { check } from '../lib/validate.ts';

type Domain = Outputs['domains']['list']['data'][number];

const METHOD = { dns: 'its DNS TXT record', 'well-known': 'its /.well-known/ file' } as const;

/**
 * The domains this account proves: the verification page and the badge name a verified one as the claimant, and
 * show the account's name only as self-declared. List (viewer+); add, verify and remove (admin+).
 */
export default function Domains() {
  useTitle('Domains');
  const trpc = useTRPC();
  const canManage = useCan('admin');
  const domains = useQuery(trpc.dashboard.domains.list.queryOptions());
  const removing = useConfirmTarget<Domain>();
  const list = domains.data?.data;

  return (
    <>
      <h1>Domains</h1>
      <p className="muted">
        Anyone can call an account anything, so the verification page and the badge show this account&apos;s name as
        self-declared. Prove that you control a domain and they name the domain instead, as verified.
      </p>
      {canManage ? <AddDomain onAdded={removing.setDone} /> : null}
      <section aria-labelledby="domains-title">
        <h2 id="domains-title">Your domains</h2>
        <Messages success={removing.done} />
        <QueryState pending={domains.isPending} error={domains.error} label="domains" />
        {list && list.length === 0 ? (
          <p>
            {canManage
              ? 'No domain yet: add one with the form above.'
              : 'No domain yet. An admin or owner can add one.'}
          </p>
        ) : null}
        {list?.map((domain) => (
          <DomainCard key={domain.domain} domain={domain} canManage={canManage} onRemove={() => removing.ask(domain)} />
        ))}
      </section>
      {canManage ? <RemoveDomain target={removing.target} onClose={removing.close} /> : null}
    </>
  );
}

function AddDomain({ onAdded }: { onAdded: (message: string) => void }) {
  const trpc = useTRPC();
  const [domain, setDomain] = useState('');
  const [invalid, setInvalid] = useState('');
  const refresh = useRefresh(trpc.dashboard.domains.list.queryFilter());
  const add = useMutation(
    trpc.dashboard.domains.add.mutationOptions({
      onSuccess: async (added) => {
        await refresh();
        onAdded(`${added.domain} added: publish its proof below, then verify it.`);
        setDomain('');
      },
    }),
  );

  function submit(event: FormEvent) {
    event.preventDefault();
    const input = check(domainSchema, domain);
    setInvalid(input.problem ? `Domain: ${input.problem}` : '');
    if (input.ok) add.mutate({ domain: input.data });
  }

  return (
    <section aria-labelledby="add-domain-title">
      <h2 id="add-domain-title">Add a domain</h2>
      <form onSubmit={submit} className="row-form">
        <label>
          Domain
          <input
            required
            spellCheck={false}
            autoComplete="off"
            placeholder="example.com"
            value={domain}
            onChange={(e) => setDomain(e.target.value)}
          />
        </label>
        <Submit busy={add.isPending} working="Adding…">
          Add domain
        </Submit>
      </form>
      <Messages error={invalid || add.error} />
    </section>
  );
}

/** One domain: verified (how, when), or what to publish, and the check that says which proof passed or why not. */
function DomainCard(props: { domain: Domain; canManage: boolean; onRemove: () => void }) {
  const { domain } = props;
  const trpc = useTRPC();
  const refresh = useRefresh(trpc.dashboard.domains.list.queryFilter());
  const verify = useMutation(trpc.dashboard.domains.verify.mutationOptions({ onSuccess: refresh }));
  const outcome = verify.data;
  return (
    <article className="card" aria-labelledby={`domain-${domain.domain}`}>
      <h3 id={`domain-${domain.domain}`}>
        <code>{domain.domain}</code>
      </h3>
      {domain.verifiedAt && domain.verifiedBy ? (
        <p className="note ok">
          Verified by {METHOD[domain.verifiedBy]} on {when(domain.verifiedAt)}.
        </p>
      ) : (
        <>
          <p>Not verified yet. Publish either proof, then verify:</p>
          <ul>
            <li>
              a DNS TXT record at <code>{domain.dnsName}</code> with the value <code>{domain.dnsValue}</code>{' '}
              <CopyButton value={domain.dnsValue} label="Copy the TXT value" />
            </li>
            <li>
              or a file at <code>{domain.wellKnownUrl}</code> holding <code>{domain.token}</code>{' '}
              <CopyButton value={domain.token} label="Copy the token" />
            </li>
          </ul>
        </>
      )}
      {props.canManage ? (
        <p className="actions">
          <button type="button" disabled={verify.isPending} onClick={() => verify.mutate({ domain: domain.domain })}>
            {verify.isPending ? 'Checking…' : 'Verify'}
          </button>{' '}
          <ItemButton label="Remove" item={domain.domain} onClick={props.onRemove} />
        </p>
      ) : null}
      <Messages
        error={verify.error ?? (outcome && !outcome.method ? 'Neither proof holds yet.' : undefined)}
        success={outcome?.method ? `Proved by ${METHOD[outcome.method]}.` : undefined}
      />
      {outcome ? (
        <ul aria-label="What the check found">
          <li>DNS: {outcome.checks.dns}</li>
          <li>File: {outcome.checks.wellKnown}</li>
        </ul>
      ) : null}
    </article>
  );
}

function RemoveDomain({ target, onClose }: { target: Domain | null; onClose: (message?: string) => void }) {
  const trpc = useTRPC();
  const refresh = useRefresh(trpc.dashboard.domains.list.queryFilter());
  const remove = useMutation(trpc.dashboard.domains.remove.mutationOptions({ onSuccess: refresh }));
  return (
    <ConfirmAction
      target={target}
      action={remove}
      input={(domain) => ({ domain: domain.domain })}
      done={(domain) => `${domain.domain} removed.`}
      onClose={onClose}
      title="Remove this domain?"
      confirmLabel="Remove domain"
    >
      <p>
        The verification page and the badge will no longer name <code>{target?.domain}</code> for this account&apos;s
        attestations; unless another domain is verified, they show the account&apos;s name as self-declared.
      </p>
    </ConfirmAction>
  );
}
