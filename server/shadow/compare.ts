/**
 * The shadow comparison of one primary -> candidate pair (issue 28, `GET /api/shadow`): each
 * side's shares, percentiles and cost per call over the same mirrored requests, the share
 * differences tested, the bill projected at the primary's current volume, and plain
 * statements of what is not yet significant.
 */
import type { BreakerKey } from '@breakerbox/protocol';
import type { ShadowPairSums, ShadowSideSums } from '../storage/storage.ts';
import type { ProjectedBill, ShadowPairView, ShadowSideView, ShareDifference } from '../schemas/shadow.ts';
import { quantile } from '../storage/histogram.ts';
import { MIN_ANSWERS_FOR_TEST, MIN_ANSWERS_P50, MIN_ANSWERS_P95, twoProportionZ, wilson, Z95 } from './significance.ts';

const MONTH_MS = 30 * 86_400_000;

function sideView(s: ShadowSideSums, answers: number): ShadowSideView {
  let failed = 0;
  for (const n of Object.values(s.errors)) failed += n ?? 0;
  const ttftAnswers = s.ttft.reduce((a, b) => a + b, 0);
  const pct = (counts: number[], n: number, q: number, min: number) => (n >= min ? round(quantile(counts, q)) : null);
  return {
    answers,
    ok: s.ok,
    errors: s.errors,
    error_share: answers > 0 ? wilson(failed - (s.errors.truncated ?? 0), answers) : null,
    truncation_share: answers > 0 ? wilson(s.errors.truncated ?? 0, answers) : null,
    refusal_share: answers > 0 ? wilson(s.refusals, answers) : null,
    json_valid_share: s.json && s.json.checked > 0 ? wilson(s.json.valid, s.json.checked) : null,
    validation_pass_share: s.validation && s.validation.checked > 0 ? wilson(s.validation.passed, s.validation.checked) : null,
    latency_p50_ms: pct(s.latency, answers, 0.5, MIN_ANSWERS_P50),
    latency_p95_ms: pct(s.latency, answers, 0.95, MIN_ANSWERS_P95),
    ttft_p50_ms: pct(s.ttft, ttftAnswers, 0.5, MIN_ANSWERS_P50),
    ttft_p95_ms: pct(s.ttft, ttftAnswers, 0.95, MIN_ANSWERS_P95),
    ttft_answers: ttftAnswers,
    output_tokens_per_call: answers > 0 ? s.outputTokens / answers : null,
    cost_per_call_usd: answers > 0 ? s.costUsd / answers : null,
  };
}

function round(x: number | null): number | null {
  return x === null ? null : Math.round(x * 10) / 10;
}

const SHARES = [
  ['error_share', 'error share'],
  ['truncation_share', 'truncation share'],
  ['refusal_share', 'refusal share'],
  ['json_valid_share', 'JSON-valid share'],
  ['validation_pass_share', 'validation pass share'],
] as const;

function pct(x: number): string {
  return `${(x * 100).toFixed(1)} %`;
}

function usd(x: number): string {
  const sign = x < 0 ? '-' : '+';
  return `${sign}$${Math.round(Math.abs(x)).toLocaleString('en-US')}`;
}

/** The bill in words: "switching raises the bill by ×3.1, +$4,200 / month". */
export function billStatement(bill: ProjectedBill | null, why: string): string {
  if (!bill) return why;
  if (Math.abs(bill.ratio - 1) < 0.005) return `switching leaves the bill unchanged (×1.0, ${usd(bill.delta_usd_per_month)} / month)`;
  return `switching ${bill.ratio > 1 ? 'raises' : 'lowers'} the bill by ×${bill.ratio.toFixed(1)}, ${usd(bill.delta_usd_per_month)} / month`;
}

/** The primary's volume over the window: its calls and cost (every service). */
export interface PrimaryVolume {
  calls: number;
  costUsd: number;
}

/** The comparison of one pair over a window of `spanMs`. */
export function comparePair(p: ShadowPairSums, key: BreakerKey, volume: PrimaryVolume, spanMs: number): ShadowPairView {
  const primary = sideView(p.primary, p.pairs);
  const shadow = sideView(p.shadow, p.pairs);
  const differences: ShareDifference[] = [];
  const notSignificant: string[] = [];
  for (const [field, label] of SHARES) {
    const a = primary[field];
    const b = shadow[field];
    if (!a || !b) continue;
    const z = twoProportionZ(Math.round(a.value * a.n), a.n, Math.round(b.value * b.n), b.n);
    const significant = z !== null && Math.abs(z) >= Z95;
    differences.push({ metric: field, primary: a.value, shadow: b.value, z: z === null ? null : Math.round(z * 100) / 100, significant });
    if (z === null) notSignificant.push(`${label}: too few answers to test (${Math.min(a.n, b.n)} on the smaller side, ${MIN_ANSWERS_FOR_TEST} needed)`);
    else if (!significant && a.value !== b.value) notSignificant.push(`${label}: ${pct(a.value)} vs ${pct(b.value)} is not a significant difference yet (|z| = ${Math.abs(z).toFixed(2)} < 1.96)`);
  }
  if (p.pairs < MIN_ANSWERS_P50) notSignificant.push(`latency: ${p.pairs} mirrored requests, p50 needs ${MIN_ANSWERS_P50}`);
  else if (p.pairs < MIN_ANSWERS_P95) notSignificant.push(`latency: ${p.pairs} mirrored requests, p95 needs ${MIN_ANSWERS_P95}`);
  if (shadow.ttft_answers > 0 && shadow.ttft_answers < MIN_ANSWERS_P50) notSignificant.push(`TTFT: ${shadow.ttft_answers} streamed answers, p50 needs ${MIN_ANSWERS_P50}`);

  let bill: ProjectedBill | null = null;
  let why = 'no projection: no mirrored request yet';
  const pc = primary.cost_per_call_usd;
  const sc = shadow.cost_per_call_usd;
  if (pc !== null && sc !== null) {
    if (pc <= 0) why = 'no projection: the primary\'s mirrored calls cost nothing (no price known for its model?)';
    else if (volume.calls <= 0 || spanMs <= 0) why = 'no projection: the primary reported no calls in the window';
    else {
      const scale = MONTH_MS / spanMs;
      const ratio = sc / pc;
      const current = volume.costUsd * scale;
      const projected = current * ratio;
      bill = {
        primary_calls_per_month: Math.round(volume.calls * scale),
        primary_usd_per_month: Math.round(current * 100) / 100,
        projected_usd_per_month: Math.round(projected * 100) / 100,
        ratio: Math.round(ratio * 1000) / 1000,
        delta_usd_per_month: Math.round((projected - current) * 100) / 100,
      };
      if (p.pairs < MIN_ANSWERS_FOR_BILL) notSignificant.push(`bill: cost per call from ${p.pairs} mirrored requests only`);
    }
  }
  return {
    key,
    candidate: p.candidate,
    services: p.services,
    pairs: p.pairs,
    dropped: p.dropped,
    last_seen: p.lastEnd,
    primary,
    shadow,
    differences,
    bill,
    bill_statement: billStatement(bill, why),
    not_significant: notSignificant,
  };
}

/** Mirrored requests below which the projected bill is flagged as resting on few calls. */
const MIN_ANSWERS_FOR_BILL = 20;
