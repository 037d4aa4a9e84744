// What the global setup provides to every test file (vitest's inject), declared where both sides import it.
export {};

declare module 'vitest' {
  export interface ProvidedContext {
    /** A database on the run's PostgreSQL server from which test databases are created and dropped. */
    adminDatabaseUrl: string;
    /** `attestation_test_<unix seconds>_<run id>_`: every test database of this run starts with it. */
    testDatabasePrefix: string;
    /** The run's anvil with EAS deployed and our schema registered (each test service gets its own funded relayer key). */
    chain: { rpcUrl: string; eas: string; schemaRegistry: string };
  }
}
