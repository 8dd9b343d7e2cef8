/**
 * The aggregate of one primary -> candidate pair's mirrored requests since the last
 * report: both answers' properties side by side, drained into a `shadow` event. Bounded:
 * counters and two histograms per side, whatever the traffic.
 */
import type { BreakerKey, ErrorClass, ShadowEvent, ShadowSide } from '@breakerbox/protocol';
import type { AnswerProperties } from './answer-properties.ts';
import { bucketOf, round6 } from '../telemetry/key-stats.ts';

class SideStats {
  ok = 0;
  errors: Partial<Record<ErrorClass, number>> = {};
  refusals = 0;
  json = { checked: 0, valid: 0 };
  validation = { checked: 0, passed: 0 };
  latency: number[];
  ttft: number[] | undefined;
  outputTokens = 0;
  costUsd = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.latency = new Array<number>(bounds.length + 1).fill(0);
  }

  add(p: AnswerProperties, jsonChecked: boolean): void {
    if (p.ok) this.ok++;
    else {
      const cls = p.errorClass ?? 'unclassified';
      this.errors[cls] = (this.errors[cls] ?? 0) + 1;
    }
    if (p.refusal) this.refusals++;
    if (jsonChecked && p.json !== undefined) {
      this.json.checked++;
      if (p.json) this.json.valid++;
    }
    if (p.validation !== undefined) {
      this.validation.checked++;
      if (p.validation) this.validation.passed++;
    }
    this.latency[bucketOf(this.bounds, p.latencyMs)]!++;
    if (p.ttftMs !== undefined) {
      this.ttft ??= new Array<number>(this.bounds.length + 1).fill(0);
      this.ttft[bucketOf(this.bounds, p.ttftMs)]!++;
    }
    this.outputTokens += p.outputTokens;
    this.costUsd += p.costUsd;
  }

  wire(): ShadowSide {
    const s: ShadowSide = {
      ok: this.ok,
      errors: { ...this.errors },
      refusals: this.refusals,
      latency_ms: { bounds: [...this.bounds], counts: [...this.latency] },
      output_tokens: this.outputTokens,
      cost_usd: round6(this.costUsd),
    };
    if (this.json.checked > 0) s.json = { ...this.json };
    if (this.validation.checked > 0) s.validation = { ...this.validation };
    if (this.ttft) s.ttft_ms = { bounds: [...this.bounds], counts: [...this.ttft] };
    return s;
  }
}

/** One pair's shadow aggregate; `drain` hands it over as an event and starts afresh. */
export class ShadowStats {
  private pairs = 0;
  private dropped = 0;
  private primary: SideStats;
  private shadow: SideStats;

  constructor(
    readonly key: BreakerKey,
    readonly candidate: BreakerKey,
    private readonly bounds: readonly number[],
    private start: number,
  ) {
    this.primary = new SideStats(bounds);
    this.shadow = new SideStats(bounds);
  }

  /**
   * Records one mirrored request's two answers. JSON validity is compared when the request
   * asked for JSON or the primary's answer was JSON; otherwise neither side is checked.
   */
  record(primary: AnswerProperties, shadow: AnswerProperties, asksJson: boolean): void {
    const jsonChecked = asksJson || primary.json === true;
    this.pairs++;
    this.primary.add(primary, jsonChecked);
    this.shadow.add(shadow, jsonChecked);
  }

  /** Counts a request picked for mirroring but shed (all mirrors busy, the primary queuing). */
  drop(): void {
    this.dropped++;
  }

  /** The event since the last drain, or null when nothing was mirrored or dropped. */
  drain(now: number): ShadowEvent | null {
    if (this.pairs === 0 && this.dropped === 0) {
      this.start = now;
      return null;
    }
    const ev: ShadowEvent = {
      type: 'shadow',
      start: this.start,
      end: Math.max(now, this.start),
      key: this.key,
      candidate: this.candidate,
      pairs: this.pairs,
      dropped: this.dropped,
      primary: this.primary.wire(),
      shadow: this.shadow.wire(),
    };
    this.pairs = 0;
    this.dropped = 0;
    this.primary = new SideStats(this.bounds);
    this.shadow = new SideStats(this.bounds);
    this.start = now;
    return ev;
  }
}
