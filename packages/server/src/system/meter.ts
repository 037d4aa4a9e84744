/**
 * The business events the metrics count, reported where they happen. Nothing is counted until the metrics install a
 * meter (METRICS_PORT set): until then each report is a call to an empty function, and prom-client is never loaded.
 */
export interface Meter {
  /** Audit entries as appended: creations (by mode and type), revocations and batches are counted from them. */
  audited(entries: ReadonlyArray<{ action: string; details: Record<string, unknown> }>): void;
  /** A relay transaction's end as the journal records it, with the gas a mined one used. */
  relayTransaction(outcome: 'mined' | 'failed' | 'reorged', gasUsed?: bigint): void;
  /** An anchor made (its tree of attestations, about to be relayed). */
  anchorMade(): void;
  signIn(outcome: 'success' | 'failure'): void;
  /**
   * A public read answered from what is held (`hit`), written anew because its records changed (`stale`) or because
   * nothing was held (`miss`); with what is held after a write (held-answers.ts).
   */
  heldAnswer(outcome: 'hit' | 'stale' | 'miss', held?: { bytes: number; count: number }): void;
}

const NONE: Meter = {
  audited: () => undefined,
  relayTransaction: () => undefined,
  anchorMade: () => undefined,
  signIn: () => undefined,
  heldAnswer: () => undefined,
};

let current: Meter = NONE;

/** The process's meter: the one the metrics installed, or one that counts nothing. */
export function meter(): Meter {
  return current;
}

/** Installs the metrics' meter for this process; the returned function takes it out again (at shutdown). */
export function installMeter(installed: Meter): () => void {
  current = installed;
  return () => {
    if (current === installed) current = NONE;
  };
}
