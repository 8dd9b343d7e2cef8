/**
 * The daily cost cap across all targets: spend is the providers' returned usage ×
 * the configured price. Once today's spend reaches the cap, probing pauses (logged
 * once) until the next UTC day, when it resumes (logged once).
 */
import type { Logger } from './logger.ts';

const DAY_MS = 86_400_000;

/** Tracks today's spend against an optional cap. */
export class DailyCostCap {
  private readonly capUsd: number | undefined;
  private readonly now: () => number;
  private readonly log: Logger;
  private day: number;
  private spent = 0;
  private pausedDay: number | undefined;

  constructor(capUsd: number | undefined, now: () => number, log: Logger) {
    this.capUsd = capUsd;
    this.now = now;
    this.log = log;
    this.day = Math.floor(now() / DAY_MS);
  }

  /** Spend so far today, in USD. */
  get spentToday(): number {
    this.rollOver();
    return this.spent;
  }

  /** True while probing is paused because today's cap is reached. */
  paused(): boolean {
    this.rollOver();
    return this.pausedDay !== undefined;
  }

  /** Adds one probe's cost; pauses probing when the cap is reached. */
  record(costUsd: number): void {
    this.rollOver();
    if (costUsd > 0) this.spent += costUsd;
    if (this.capUsd !== undefined && this.pausedDay === undefined && this.spent >= this.capUsd) {
      this.pausedDay = this.day;
      const resumesAt = new Date((this.day + 1) * DAY_MS).toISOString();
      this.log.warn('daily cost cap reached: probing paused until the next UTC day', {
        spent_usd: round(this.spent),
        cap_usd: this.capUsd,
        resumes_at: resumesAt,
      });
    }
  }

  private rollOver(): void {
    const today = Math.floor(this.now() / DAY_MS);
    if (today === this.day) return;
    const wasPaused = this.pausedDay !== undefined;
    this.day = today;
    this.spent = 0;
    this.pausedDay = undefined;
    if (wasPaused) this.log.info('new UTC day: daily cost cap reset, probing resumed', { cap_usd: this.capUsd });
  }
}

function round(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}
