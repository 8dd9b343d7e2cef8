/** Counts what a request refused and keeps a few distinct reasons for OTLP's partial-success message. */
export class Rejections {
  count = 0;
  private readonly reasons = new Map<string, number>();

  /** Refuses `n` data points or records for `reason`. */
  add(reason: string, n = 1): void {
    if (n <= 0) return;
    this.count += n;
    if (this.reasons.has(reason) || this.reasons.size < 5) this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + n);
  }

  /** The partial-success `error_message`, empty when nothing was refused. */
  message(): string {
    if (this.count === 0) return '';
    const parts = [...this.reasons].map(([reason, n]) => `${n} × ${reason}`);
    const listed = [...this.reasons.values()].reduce((a, b) => a + b, 0);
    if (listed < this.count) parts.push(`${this.count - listed} for other reasons`);
    return `breakerbox refused ${this.count}: ${parts.join('; ')} (see docs/otlp.md)`;
  }
}
