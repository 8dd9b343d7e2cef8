/**
 * A counting semaphore with a FIFO queue: the concurrency cap across targets. A probe
 * waiting here still holds its target (so its next slot is an overlap, not a pile-up).
 */
export class Slots {
  private free: number;
  private readonly waiters: Array<() => void> = [];

  constructor(size: number) {
    this.free = size;
  }

  /** Probes waiting for a slot. */
  get queued(): number {
    return this.waiters.length;
  }

  /** Resolves when a slot is held; call `release` exactly once afterwards. */
  acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.free++;
  }
}
