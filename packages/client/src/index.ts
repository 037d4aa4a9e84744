/** The attestation service's TypeScript SDK. The typed client lands with the SDK release. */
export const SDK_VERSION = '0.1.0';
