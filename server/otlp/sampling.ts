/**
 * The weight of a sampled span: OTLP spans carry no count of their own, but OpenTelemetry's
 * consistent probability sampling records its rejection threshold in the W3C `tracestate`
 * as `ot=th:<hex>` (up to 14 hex digits, trailing zeros dropped). A span kept with
 * probability p stands for 1/p calls. Without a threshold a span counts once: what a
 * sampler that does not say so drops is not counted (docs/otlp.md, "Sampling").
 */

const MAX = 2 ** 56;

/** 1 / sampling probability from a `tracestate`, or 1 when it carries no (valid) threshold. */
export function samplingWeight(traceState: string): number {
  if (!traceState || !traceState.includes('ot=')) return 1;
  const ot = /(?:^|,)\s*ot=([^,]*)/.exec(traceState);
  const th = ot && /(?:^|;)th:([0-9a-f]{1,14})(?:;|$)/.exec(ot[1]!);
  if (!th) return 1;
  const threshold = parseInt(th[1]!.padEnd(14, '0'), 16);
  if (!(threshold < MAX)) return 1;
  return MAX / (MAX - threshold);
}
