import { encodeFunctionData, zeroAddress, zeroHash, type Hex } from 'viem';
import { EAS_ARTIFACT } from '../chain/eas-artifacts.ts';
import type { RoundWork } from '../chain/round.ts';
import { encodeAttestationData, SCHEMA_UID } from '@attestation-service/protocol';
import type { Db } from '../db/database.ts';
import { claimDelegated, delegatedItemsOf, type DelegatedItem } from './delegated-store.ts';

/**
 * Gas of customers' signed requests on EAS 1.4, measured on anvil (`multiAttestByDelegation` of one attester: 1.63 M
 * for 10, 6.34 M for 40 and 15.81 M for 100 human items; 7.14 M for 40 AI ones): 63 k for the transaction, 157 k per
 * item, 177 k when AI-generated; the signature's check costs each item ~9 k over the relayer's own. Rounded up. A
 * refUID costs what it costs the relayer's own items (relay-work.ts).
 */
const DELEGATED_ATTEST_GAS = { transaction: 65_000n, human: 160_000n, ai: 180_000n, ref: 22_500n } as const;

/** The request data EAS verifies a delegated signature over: the same fields as the relayer's own attestations. */
function delegatedRequestData(item: Pick<DelegatedItem, 'type' | 'contentHash' | 'refUid'>) {
  return {
    recipient: zeroAddress as Hex,
    expirationTime: 0n,
    revocable: true,
    refUID: (item.refUid ?? zeroHash) as Hex,
    data: encodeAttestationData(item.contentHash, item.type),
    value: 0n,
  };
}

/** `attestByDelegation` for one item, else one `multiAttestByDelegation`, in the items' (nonce) order. */
function delegatedAttestCalldata(items: DelegatedItem[]): Hex {
  if (items.length === 1) {
    const item = items[0]!;
    return encodeFunctionData({
      abi: EAS_ARTIFACT.abi,
      functionName: 'attestByDelegation',
      args: [
        {
          schema: SCHEMA_UID,
          data: delegatedRequestData(item),
          signature: item.delegation.signature,
          attester: item.attester,
          deadline: BigInt(item.delegation.deadline),
        },
      ],
    });
  }
  // each request carries one attester and one deadline, both signed: consecutive items sharing them share a request
  const requests: DelegatedItem[][] = [];
  for (const item of items) {
    const last = requests.at(-1)?.[0];
    if (last && last.attester === item.attester && last.delegation.deadline === item.delegation.deadline)
      requests.at(-1)!.push(item);
    else requests.push([item]);
  }
  return encodeFunctionData({
    abi: EAS_ARTIFACT.abi,
    functionName: 'multiAttestByDelegation',
    args: [
      requests.map((group) => ({
        schema: SCHEMA_UID,
        data: group.map(delegatedRequestData),
        signatures: group.map((item) => item.delegation.signature),
        attester: group[0]!.attester,
        deadline: BigInt(group[0]!.delegation.deadline),
      })),
    ],
  });
}

/** The calldata of a journal entry of delegated items; undefined when it carries the relayer's own. */
export async function delegatedCalldataOf(db: Db, journalId: string): Promise<Hex | undefined> {
  const items = await delegatedItemsOf(db, journalId);
  return items.length > 0 ? delegatedAttestCalldata(items) : undefined;
}

/**
 * Delegated on-chain creation as relay work: it claims only customers' signed requests (EAS cannot mix them with
 * the relayer's own items in one call) and shares the creation work's finish, fail and requeue (same kind).
 */
export function delegatedCreationWork(creation: RoundWork, db: Db, maxItems: number): RoundWork {
  return {
    ...creation,
    claim: (tx, gasBudget, open) =>
      claimDelegated(
        tx,
        {
          items: maxItems,
          gas: gasBudget,
          baseGas: DELEGATED_ATTEST_GAS.transaction,
          gasOf: (type) => DELEGATED_ATTEST_GAS[type],
          refGas: DELEGATED_ATTEST_GAS.ref,
        },
        open,
      ),
    calldata: async (journalId) => (await delegatedCalldataOf(db, journalId)) ?? creation.calldata(journalId),
  };
}
