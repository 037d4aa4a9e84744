import { Counter, Gauge } from 'prom-client';
import type { Meter } from './meter.ts';
import { PREFIX, type Registry } from './metrics.ts';

const MODES = ['onchain', 'offchain'];
const TYPES = ['human', 'ai'];

/** Only these label values: a detail an entry carries is validated input, but a label must never grow with input. */
const known = (value: unknown, values: readonly string[]): string =>
  typeof value === 'string' && values.includes(value) ? value : 'other';

/**
 * The business events' `_total` counters, per process (sum them across processes). Each starts every label set at
 * 0: an increase() over a series born at its first event misses that event.
 */
export function businessMetrics(registry: Registry): Meter {
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name: PREFIX + name, help, labelNames, registers: [registry] });
  const created = counter(
    'attestations_created_total',
    'Attestations created, by mode and type (on-chain ones when their transaction is mined).',
    ['mode', 'type'],
  );
  const revocations = counter('revocations_total', 'Attestations revoked (on-chain: when the revocation is mined).');
  const batches = counter('batches_total', 'Batches created (POST /v1/attestations/batch and its tRPC procedure).');
  const transactions = counter(
    'relay_transactions_total',
    'Relay transactions by their end in the journal: mined, failed (or replaced), reorged (a block was undone).',
    ['outcome'],
  );
  const gas = counter('relay_gas_used_total', 'Gas used by mined relay transactions, in gas units.');
  const anchors = counter(
    'anchors_total',
    'Anchors made: Merkle roots of off-chain attestations, handed to the relayer.',
  );
  const signIns = counter('sign_ins_total', 'Dashboard sign-ins by outcome: success or failure.', ['outcome']);
  const answers = counter(
    'answers_read_total',
    'Public reads by uid or hash by what answered: hit (a held answer, its records unchanged), stale (held, but its ' +
      'records changed: written anew), miss (none held: written).',
    ['outcome'],
  );
  const heldBytes = new Gauge({
    name: `${PREFIX}answers_held_bytes`,
    help: "Memory the public reads' held answers take in this process: their slabs, and larger answers' own bytes.",
    registers: [registry],
  });
  const heldCount = new Gauge({
    name: `${PREFIX}answers_held`,
    help: "Public reads' answers this process holds.",
    registers: [registry],
  });
  const byOutcome = { hit: answers.labels('hit'), stale: answers.labels('stale'), miss: answers.labels('miss') };
  for (const mode of MODES) for (const type of TYPES) created.inc({ mode, type }, 0);
  for (const outcome of ['mined', 'failed', 'reorged']) transactions.inc({ outcome }, 0);
  for (const outcome of ['success', 'failure']) signIns.inc({ outcome }, 0);
  revocations.inc(0);
  batches.inc(0);
  gas.inc(0);
  anchors.inc(0);
  for (const child of Object.values(byOutcome)) child.inc(0);
  return {
    audited(entries) {
      for (const { action, details } of entries) {
        if (action === 'attestation.created')
          created.inc({ mode: known(details.mode, MODES), type: known(details.type, TYPES) });
        else if (action === 'attestation.revoked') revocations.inc();
        else if (action === 'batch.created') batches.inc();
      }
    },
    relayTransaction(outcome, gasUsed) {
      transactions.inc({ outcome });
      if (gasUsed !== undefined) gas.inc(Number(gasUsed));
    },
    anchorMade: () => anchors.inc(),
    signIn: (outcome) => signIns.inc({ outcome }),
    heldAnswer(outcome, held) {
      byOutcome[outcome].inc();
      if (held) {
        heldBytes.set(held.bytes);
        heldCount.set(held.count);
      }
    },
  };
}
