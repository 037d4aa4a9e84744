import { ConfigError } from '../config.ts';

/** The chain ids anvil, Hardhat and Ganache start with: no public network uses them. */
const DEV_CHAIN_IDS = new Set([31_337, 1_337]);

/**
 * The accounts of the `test test … junk` mnemonic that anvil and Hardhat unlock and fund by default: their private
 * keys are published, so anything sent to them on a real network is taken at once.
 */
const WELL_KNOWN = [
  '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
  '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
  '0x976EA74026E726554dB657fA54763abd0C3a0aa9',
  '0x14dC79964da2C08b23698B3D3cc7Ca32193d9955',
  '0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f',
  '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
].map((a) => a.toLowerCase());

/**
 * Whether a chain is one for development: the chain id says so, not the host (a tunnel to a real node is on
 * localhost; a compose stack's anvil is not).
 */
function isDevChainId(chainId: number): boolean {
  return DEV_CHAIN_IDS.has(chainId);
}

/**
 * Refuses to relay from a well-known development account, or with no key configured, on any chain but a development
 * one. `source` says where the address came from, for the message.
 */
export function refuseWellKnownSigner(
  chainId: number,
  address: string,
  source: 'default' | 'RELAYER_PRIVATE_KEY' | 'RELAYER_ADDRESS',
): void {
  if (isDevChainId(chainId)) return;
  const fix = 'set RELAYER_PRIVATE_KEY to a key of your own, or RELAYER_SIGNER_URL (docs/operations.md, "The signer")';
  if (source === 'default')
    throw new ConfigError(
      `invalid configuration: chain ${chainId} is not a development chain and no relayer key is set (the default is anvil's public account 0); ${fix}`,
    );
  const index = WELL_KNOWN.indexOf(address.toLowerCase());
  if (index >= 0)
    throw new ConfigError(
      `invalid configuration: ${source} is anvil's development account ${index}, whose private key is public, and chain ${chainId} is not a development chain; ${fix}`,
    );
}
