import { describe, expect, it } from 'vitest';
import { encodeAbiParameters, encodePacked, keccak256, toHex, zeroAddress, type Hex } from 'viem';
import {
  AI_DETAILS_SCHEMA_UID,
  AUDIT_ACTIONS,
  decodeAiDetails,
  decodeAttestationData,
  DELEGATED_ATTEST_TYPES,
  encodeAiDetailsData,
  encodeAttestationData,
  encodeType,
  EVENT_KINDS,
  isContentHash,
  normalizeContentHash,
  OFFCHAIN_ATTEST_TYPES,
  offchainUid,
  SCHEMA_UID,
} from '../src/index.ts';
import { nativeSecp256k1 } from '../src/secp256k1.ts';

const word = (byte: string) => `0x${byte.repeat(32)}` as Hex;

/** Two packages' fields and the uids the EAS SDK's `Offchain.getOffchainUID` (eas-sdk 2.10, version 2) gave them. */
const EAS_SDK_VECTORS = [
  {
    fields: {
      schema: word('11'),
      recipient: zeroAddress,
      time: 1_790_000_000n,
      expirationTime: 0n,
      revocable: true,
      refUID: word('00'),
      data: `${word('ab')}${'0'.repeat(63)}1` as Hex,
      salt: word('5a'),
    },
    uid: '0xdad9f73f46537b3de177e94f24f0ce2a3872cb7c97074b9ad3dc60ff27ee0dc5',
  },
  {
    // the schema is packed as the UTF-8 of its text: its case changes the uid
    fields: {
      schema: `0x${'Ab'.repeat(32)}` as Hex,
      recipient: '0x00000000000000000000000000000000000000FF' as Hex,
      time: 1n,
      expirationTime: 2n ** 64n - 1n,
      revocable: false,
      refUID: word('3c'),
      data: '0x' as Hex,
      salt: word('00'),
    },
    uid: '0x426306ea0234600c2268a9168bed7601b761e8f2aea12c4629c691d2a7816f2d',
  },
];

describe('the off-chain uid', () => {
  it.each(EAS_SDK_VECTORS)('is the EAS SDK’s getOffchainUID (%#)', ({ fields, uid }) => {
    expect(offchainUid(fields)).toBe(uid);
    // as JSON carries a package: uint64s as decimal strings
    expect(offchainUid({ ...fields, time: String(fields.time), expirationTime: String(fields.expirationTime) })).toBe(
      uid,
    );
  });

  it('is viem’s encodePacked of the same fields, for any data', () => {
    for (const data of ['0x', '0x00', encodeAiDetailsData('gpt-image-1', word('7f'))] as Hex[]) {
      const fields = { ...EAS_SDK_VECTORS[0]!.fields, data };
      const schema = toHex(new TextEncoder().encode(fields.schema));
      const packed = encodePacked(
        ['uint16', 'bytes', 'address', 'address', 'uint64', 'uint64', 'bool', 'bytes32', 'bytes', 'bytes32', 'uint32'],
        [2, schema, fields.recipient, zeroAddress, fields.time, 0n, true, fields.refUID, data, fields.salt, 0],
      );
      expect(offchainUid(fields)).toBe(keccak256(packed));
    }
  });

  it('refuses fields that do not encode, as an ABI encoder would', () => {
    const good = EAS_SDK_VECTORS[0]!.fields;
    for (const bad of [
      { recipient: '0x1234' },
      { refUID: word('00').slice(0, 64) },
      { salt: 'ff'.repeat(32) },
      { data: '0xabc' },
      { data: '0xzz' },
      { time: 2n ** 64n },
      { expirationTime: -1n },
      { time: '1.5' },
    ])
      expect(
        () => offchainUid({ ...good, ...bad } as never),
        JSON.stringify(bad, (_, v) => String(v)),
      ).toThrow();
  });
});

describe('the EIP-712 types', () => {
  it('hash to the type hashes EAS verifies against', () => {
    // EIP1271Verifier.sol (eas-contracts 1.9): ATTEST_TYPEHASH
    expect(keccak256(toHex(encodeType('Attest', DELEGATED_ATTEST_TYPES.Attest)))).toBe(
      '0xfeb2925a02bae3dae48d424a0437a2b6ac939aa9230ddc55a1a76f065d988076',
    );
    expect(encodeType('Attest', OFFCHAIN_ATTEST_TYPES.Attest)).toBe(
      'Attest(uint16 version,bytes32 schema,address recipient,uint64 time,uint64 expirationTime,bool revocable,bytes32 refUID,bytes data,bytes32 salt)',
    );
  });
});

describe('the schemas', () => {
  it('have the uids SchemaRegistry gives them (no resolver, revocable)', () => {
    expect(SCHEMA_UID).toBe('0xc396b0e1dd784ece433962756c582116e557979e1388d021b13c46a3a285b7ef');
    expect(AI_DETAILS_SCHEMA_UID).toBe('0x7dcb67809a685cc682acaced506a08c8d6ed256b6acd7b148a181d58744c7a15');
  });

  it('encode a claim as the ABI does, and decode only exactly that', () => {
    for (const type of ['human', 'ai'] as const) {
      const data = encodeAttestationData(word('Ab'), type);
      expect(data).toBe(encodeAbiParameters([{ type: 'bytes32' }, { type: 'bool' }], [word('ab'), type === 'ai']));
      expect(decodeAttestationData(data)).toEqual({ contentHash: word('ab'), type });
    }
    expect(() => encodeAttestationData('0x1234', 'human')).toThrow(TypeError);
    const ai = encodeAttestationData(word('ab'), 'ai');
    for (const other of [`${ai}00`, ai.slice(0, -1), `${ai.slice(0, -1)}2`, `${word('ab')}${'1'.repeat(64)}`, '0x'])
      expect(decodeAttestationData(other)).toBeNull();
  });

  it('encode and decode the AI details (no prompt hash: the zero word)', () => {
    expect(decodeAiDetails(encodeAiDetailsData('gpt-image-1', null))).toEqual({
      model: 'gpt-image-1',
      promptHash: null,
    });
    expect(decodeAiDetails(encodeAiDetailsData('m', word('CD')))).toEqual({ model: 'm', promptHash: word('cd') });
    expect(decodeAiDetails('0x1234')).toBeNull();
  });
});

describe('the content-hash rule', () => {
  const hex = 'aB'.repeat(32);

  it('takes 64 hex digits in any case, 0x optional, and writes them one way', () => {
    for (const text of [hex, `0x${hex}`, hex.toUpperCase(), `0x${hex.toLowerCase()}`]) {
      expect(isContentHash(text)).toBe(true);
      expect(normalizeContentHash(text)).toBe(`0x${'ab'.repeat(32)}`);
    }
  });

  it('refuses anything else', () => {
    for (const text of [
      '',
      '0x',
      hex.slice(1),
      `${hex}0`,
      `0x${hex.slice(2)}`,
      `0X${hex}`,
      `0x${hex} `,
      `${'g'}${hex.slice(1)}`,
    ]) {
      expect(isContentHash(text)).toBe(false);
      expect(() => normalizeContentHash(text)).toThrow(TypeError);
    }
  });
});

describe('the names', () => {
  it('list each event kind and audit action once', () => {
    expect(new Set(EVENT_KINDS).size).toBe(EVENT_KINDS.length);
    expect(new Set(AUDIT_ACTIONS).size).toBe(AUDIT_ACTIONS.length);
    // every event but the batch's is audited under its own name
    expect(EVENT_KINDS.filter((kind) => !(AUDIT_ACTIONS as readonly string[]).includes(kind))).toEqual([
      'batch.completed',
    ]);
  });
});

describe('libsecp256k1', () => {
  it('loads here (its prebuild is installed) and signs what it recovers', () => {
    expect(nativeSecp256k1).toBeDefined();
    const digest = new Uint8Array(32).fill(7);
    const key = new Uint8Array(32).fill(1);
    const { signature, recid } = nativeSecp256k1!.ecdsaSign(digest, key);
    expect(nativeSecp256k1!.ecdsaRecover(signature, recid, digest, false)).toHaveLength(65);
  });
});
