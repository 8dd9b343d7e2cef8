/**
 * Leadership among collectors sharing one database: exactly one at a time evaluates alerts,
 * sends notifications, builds hourly aggregates and prunes. Ingest and reads never ask it.
 */
export interface LeaderLease {
  /** True while this collector holds the lease (checked against its own deadline, not only the last renewal's answer). */
  isHeld(): boolean;
  /** One attempt: takes the lease when free, or confirms it is still held. Resolves to `isHeld()` afterwards. */
  tick(): Promise<boolean>;
  /** Calls `listener` when this collector gains or loses the lease; returns the unsubscribe. */
  onChange(listener: (held: boolean) => void): () => void;
  /** Ticks every renewal interval until `close` (timers do not keep the process alive). */
  start(): void;
  /** Stops ticking and gives the lease up, so another collector takes over at its next tick. */
  close(): Promise<void>;
}

/** SQLite is single-collector: its lease is always held. */
export function alwaysHeldLease(): LeaderLease {
  return {
    isHeld: () => true,
    tick: async () => true,
    onChange: () => () => undefined,
    start: () => undefined,
    close: async () => undefined,
  };
}
