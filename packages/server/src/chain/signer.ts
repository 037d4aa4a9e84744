import {
  getTypesForEIP712Domain,
  http,
  isAddressEqual,
  numberToHex,
  parseTransaction,
  recoverTransactionAddress,
  recoverTypedDataAddress,
  serializeTypedData,
  type Hex,
  type LocalAccount,
  type TransactionSerializable,
  type TypedDataDefinition,
} from 'viem';
import { toAccount } from 'viem/accounts';
import { ConfigError } from '../config.ts';
import { firstLine } from './broadcast.ts';

/** The signer did not sign (unreachable, or it refused): nothing was sent, the work waits for it. */
class SignerUnavailableError extends Error {}

/** Calls the first of `methods` the signer serves (the next one only when it answers "method not found"). */
type Call = (methods: string[], params: unknown[]) => Promise<unknown>;

/**
 * JSON-RPC calls to the signer; its URL (which may carry credentials) never reaches an error message. Web3Signer
 * and nodes serve `eth_*`; Clef's external API names the same calls `account_*`.
 */
function signerRpc(url: string): Call {
  const rpc = http(url, { timeout: 10_000, retryCount: 1 })({ retryCount: 1 });
  return async ([method, ...others], params) => {
    try {
      return await rpc.request({ method: method!, params } as never);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === -32601 && others.length > 0) return signerRpc(url)(others, params);
      const refused = code === -32601 ? ' (method not served)' : '';
      throw new SignerUnavailableError(`the signer did not sign: ${firstLine(error)}${refused}`);
    }
  };
}

/** The request eth_signTransaction takes (Web3Signer, Clef, anvil): quantities as hex. */
function signRequest(from: Hex, tx: TransactionSerializable) {
  const hex = (v: bigint | number | undefined) => (v === undefined ? undefined : numberToHex(v));
  return {
    from,
    to: tx.to,
    data: tx.data,
    value: hex(tx.value ?? 0n),
    nonce: hex(tx.nonce),
    gas: hex(tx.gas),
    maxFeePerGas: hex(tx.maxFeePerGas),
    maxPriorityFeePerGas: hex(tx.maxPriorityFeePerGas),
    chainId: hex(tx.chainId),
    type: '0x2',
  };
}

/** Whether the signer signed what was asked, as `address`: a signer that changed a field is not trusted. */
async function checkSigned(raw: Hex, address: Hex, tx: TransactionSerializable): Promise<void> {
  const got = parseTransaction(raw);
  const same =
    got.to?.toLowerCase() === tx.to?.toLowerCase() &&
    (got.data ?? '0x') === (tx.data ?? '0x') &&
    got.nonce === tx.nonce &&
    got.gas === tx.gas &&
    got.maxFeePerGas === tx.maxFeePerGas &&
    got.maxPriorityFeePerGas === tx.maxPriorityFeePerGas &&
    got.chainId === tx.chainId &&
    (got.value ?? 0n) === (tx.value ?? 0n);
  if (!same) throw new SignerUnavailableError('the signer signed another transaction than the one asked');
  const signer = await recoverTransactionAddress({ serializedTransaction: raw as never });
  if (!isAddressEqual(signer, address))
    throw new SignerUnavailableError(`the signer signed as ${signer}, not as the relayer ${address}`);
}

/**
 * The relayer's account kept by a JSON-RPC signer at RELAYER_SIGNER_URL (Web3Signer, Clef, or a node with the
 * account unlocked): transactions through `eth_signTransaction`, EIP-712 (off-chain attestations) through
 * `eth_signTypedData_v4` (`eth_signTypedData` as Web3Signer names it, `account_*` as Clef does). Every signature is checked against
 * what was asked and the address before it is used. The address: RELAYER_ADDRESS, else the signer's first account.
 */
export async function remoteAccount(url: string, address: Hex | undefined): Promise<LocalAccount> {
  const call = signerRpc(url);
  const accounts = (await call(['eth_accounts', 'account_list'], []).catch(() => undefined)) as Hex[] | undefined;
  if (address === undefined) {
    if (!accounts?.[0])
      throw new ConfigError(
        'invalid configuration: RELAYER_SIGNER_URL lists no account (eth_accounts); set RELAYER_ADDRESS to the one it signs for',
      );
    address = accounts[0];
  } else if (accounts && accounts.length > 0 && !accounts.some((a) => isAddressEqual(a, address!)))
    throw new ConfigError('invalid configuration: the signer at RELAYER_SIGNER_URL does not hold RELAYER_ADDRESS');
  const from = address;

  return toAccount({
    address: from,
    async signTransaction(tx) {
      const answer = (await call(['eth_signTransaction', 'account_signTransaction'], [signRequest(from, tx)])) as
        Hex | { raw: Hex };
      const raw = typeof answer === 'string' ? answer : answer.raw; // Clef answers { raw, tx }
      await checkSigned(raw, from, tx);
      return raw as never;
    },
    async signTypedData(definition) {
      const { domain = {}, message, primaryType, types } = definition as TypedDataDefinition;
      const typedData = serializeTypedData({
        domain,
        message,
        primaryType,
        types: { EIP712Domain: getTypesForEIP712Domain({ domain }), ...types },
      } as never);
      const methods = ['eth_signTypedData_v4', 'eth_signTypedData', 'account_signTypedData'];
      const signature = (await call(methods, [from, typedData])) as Hex;
      const signer = await recoverTypedDataAddress({ ...(definition as TypedDataDefinition), signature });
      if (!isAddressEqual(signer, from))
        throw new SignerUnavailableError(`the signer signed as ${signer}, not as the relayer ${from}`);
      return signature;
    },
    async signMessage() {
      throw new SignerUnavailableError('the relayer signs no messages');
    },
  });
}
