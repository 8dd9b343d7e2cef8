import type { VerdictThresholds } from './figures.ts';
import type { ErrorClass } from '@breakerbox/protocol';
import { CLIENT_CLASSES, PROVIDER_CLASSES } from '@breakerbox/protocol';
import type { ClientFigures, Hint, PartHealth, ProbeFigures, ProbePower, Verdict } from './types.ts';
import type { SiblingProbes } from './sibling-probes.ts';
import { locationSplit, type LocationSplit, type StatusRule } from './location-split.ts';
import type { AnswerJudgement } from './answer-judgement.ts';
import { judgeLatency, probesAtBaseline, slowLocations, type LatencyJudgement } from './slow-probes.ts';

/** The probe side of a key, summed up over its locations. */
export type ProbeSide = 'healthy' | 'failing' | 'partial' | 'missing' | 'misconfigured';

/** Classifies the probe side from each location's status. */
export function probeSide(probes: Record<string, ProbeFigures>): { side: ProbeSide; failing: string[]; ok: string[]; misconfigured: string[]; insufficient: string[] } {
  const by = { failing: [] as string[], ok: [] as string[], misconfigured: [] as string[], insufficient: [] as string[] };
  for (const location of Object.keys(probes).sort()) by[probes[location]!.status].push(location);
  const usable = by.failing.length + by.ok.length;
  let side: ProbeSide;
  if (usable === 0) side = by.misconfigured.length > 0 ? 'misconfigured' : 'missing';
  else if (by.ok.length === 0) side = 'failing';
  else if (by.failing.length > 0) side = 'partial';
  else side = 'healthy';
  return { side, ...by };
}

/**
 * Locations whose most recent probes are fine but which failed for most of the window:
 * the provider was down in this window and has come back (or is coming back).
 */
export function recoveredLocations(probes: Record<string, ProbeFigures>, t: VerdictThresholds): string[] {
  return Object.keys(probes)
    .sort()
    .filter((l) => {
      const f = probes[l]!;
      const failed = f.error - f.misconfigured + f.slow;
      return f.status === 'ok' && f.probes >= t.min_probes && failed / f.probes > t.probe_failing_share;
    });
}

/** Probe failures (errors that are not misconfiguration, and slow probes) over a location's window. */
export const windowFailed = (f: ProbeFigures): number => f.error - f.misconfigured + f.slow;

/** A decided verdict with the reason for its hint (used by the evidence). */
export interface Decision {
  verdict: Verdict;
  hint: Hint | null;
  side: ProbeSide;
  /** Locations that failed over the window and are fine again (an outage that is ending). */
  recovered?: string[];
  /** The fleet parts that were degraded and healthy when the hint is `local`. */
  local?: { degraded: string[]; healthy: string[] };
  /** How strongly clean probes argue against a provider-side cause (clients degraded, probes ok). */
  power?: ProbePower;
  /**
   * With a `partial` probe side: whether the failing and the ok locations differ beyond
   * chance (location-split.ts) — `regional` only when they do.
   */
  split?: LocationSplit;
  /** With `intermittent`: the ok locations' window probes and how many of them failed (with `split`: every location's recent probes). */
  intermittent?: { probes: number; failed: number };
  /** With `probes_pending` / `probes_stale`: the probes asked for since the degradation began. */
  pending?: PendingInfo;
  /**
   * Set when our own classes dominate the failed calls: the verdict needs no probe (a
   * provider answers a 401 or an exhausted quota the same whatever its health), so it is
   * neither held for probes nor undecided for want of them.
   */
  ownClasses?: { share: number; side: ProbeSide };
  /** With `sibling_probes`: the probes of the provider's other keys that decided it. */
  siblings?: SiblingProbes;
  /** With `probes_stale` and no probes in the window: the locations that stopped probing the key. */
  silent?: { location: string; last_ts: number }[];
  /**
   * With `model_retired`: the calendar entry past whose date the calls fail, or (`signal`) the
   * provider's own deprecation signal on the key's answers, in words.
   */
  retired?: { shutdown: string | null; successor: string | null; link: string | null; bad_request_share: number; signal?: string };
  /** Several services call the key and some are degraded with a decided verdict of their own: the worst leads (service-lead.ts). */
  service?: ServiceLead;
  /** With degraded clients whose probes' baseline was read: the clients' latency signals and each ok location's pace (`slow`, `traffic_shape`). */
  latency?: LatencyJudgement;
  /**
   * The answer canaries judged with the clients' `invalid_output` (wrong-answers.ts): with
   * `wrong_answers` the canaries that answered wrongly; on a `self_inflicted` led by
   * `invalid_output`, the services that failed validation and what the probes showed.
   */
  answers?: AnswerJudgement;
}

/** What the hold rests on, for the evidence and the summary. */
export interface PendingInfo {
  /** The degradation's start: probes older than this do not speak for the key now. */
  since: number;
  /** When the probers were asked; null while the trigger has not asked yet (a breaker open less than `min_open_s`). */
  asked_at: number | null;
  asked: string[];
  /** Asked locations that have answered with enough probes since `since`. */
  answered: string[];
  /** Until when the verdict waits (asked_at + pending_max_s; the degradation's start + pending_max_s before asking). */
  until: number;
  /** The verdict the older probes would have given. */
  held: Decision['verdict'];
}

const CLIENT_FAULT = ['bad_request', 'auth', 'context_length', 'policy'] as const;

/** Shares of failed calls that point at us rather than the provider, by group. */
export function failureMix(c: ClientFigures): { clientFault: number; quota: number; truncated: number; ours: number; provider: number } {
  if (c.failed === 0) return { clientFault: 0, quota: 0, truncated: 0, ours: 0, provider: 0 };
  const sum = (classes: readonly ErrorClass[]) => classes.reduce((n, k) => n + c.errors[k], 0) / c.failed;
  return {
    clientFault: sum(CLIENT_FAULT),
    quota: (c.errors.quota + c.errors.rate_limit) / c.failed,
    truncated: c.errors.truncated / c.failed,
    ours: sum(CLIENT_CLASSES),
    provider: sum(PROVIDER_CLASSES),
  };
}

/** The hint when one group of our own failure classes dominates; null when none does. */
function classHint(c: ClientFigures, t: VerdictThresholds): Hint | null {
  const mix = failureMix(c);
  if (mix.clientFault >= t.hint_dominant_share) return 'client_errors';
  if (mix.quota >= t.hint_dominant_share) return 'quota';
  if (mix.truncated >= t.hint_dominant_share) return 'truncation';
  // Our own classes together dominate, none alone: still our requests, not the provider.
  if (mix.ours >= t.hint_dominant_share) return 'client_errors';
  return null;
}

/** Self-side signals that are not a failure class: retries, a full bulkhead, one part of the fleet. */
function behaviourHint(c: ClientFigures, fleet: () => PartHealth[], t: VerdictThresholds): Pick<Decision, 'hint' | 'local'> {
  if ((c.retry_ratio ?? 0) >= t.retry_storm_ratio) return { hint: 'retry_storm' };
  if ((c.rejection_share ?? 0) >= t.degraded_rejection_share && (c.slow_share ?? 0) <= t.capacity_max_slow_share) {
    return { hint: 'capacity' };
  }
  // The fleet split costs a query, so it is read only when every other hint is ruled out.
  const parts = fleet();
  const degraded = parts.filter((p) => p.degraded).map((p) => p.name);
  const healthy = parts.filter((p) => !p.degraded && p.calls >= t.local_min_calls).map((p) => p.name);
  if (degraded.length > 0 && healthy.length > 0) return { hint: 'local', local: { degraded, healthy } };
  return { hint: null };
}

/**
 * The power of clean probes: n ok recent probes of the ok location with the most of them,
 * against the clients' provider-side failure share e; chance = (1 − e)^n. A single location
 * is counted, not their sum: a provider failing in the region our clients use is seen by
 * that region's probes only.
 */
export function probePower(c: ClientFigures, probes: Record<string, ProbeFigures>, ok: string[], t: VerdictThresholds): ProbePower | undefined {
  const e = c.provider_error_share ?? 0;
  if (e <= 0 || ok.length === 0) return undefined;
  let best = ok[0]!;
  const okCount = (l: string) => probes[l]!.recent.probes - probes[l]!.recent.failed;
  for (const l of ok) if (okCount(l) > okCount(best)) best = l;
  const n = okCount(best);
  const chance = Math.pow(1 - Math.min(1, e), n);
  return { failure_share: e, location: best, probes: n, chance: Number(chance.toPrecision(3)), refutes: chance <= t.probe_refute_max_chance };
}

/**
 * The verdict table of docs/alerts.md. `probes` holds the usable locations only (an
 * unhealthy prober location is set aside before); `fleet` gives the services (or, with one
 * service, the instances) judged on their own.
 */
export function decide(
  c: ClientFigures,
  probes: Record<string, ProbeFigures>,
  fleet: PartHealth[] | (() => PartHealth[]),
  t: VerdictThresholds,
  siblings?: SiblingProbes,
  slowOpens = 0,
): Decision {
  const p = probeSide(probes);
  const parts = typeof fleet === 'function' ? fleet : () => fleet;
  // Probe-only: no client traffic at all (a fallback, a model not in use yet).
  if (c.calls === 0 && !c.degraded && (p.side === 'failing' || p.side === 'partial' || p.side === 'healthy')) {
    const verdict = p.side === 'failing' ? 'provider_outage' : p.side === 'partial' ? 'provider_degraded' : 'healthy';
    return { verdict, hint: 'probe_only', side: p.side, ...(p.side === 'partial' ? { split: locationSplit(probes, p.failing, p.ok, t) } : {}) };
  }
  if (!c.degraded && c.calls < t.min_calls) {
    // Too few calls to judge the clients, but probes failing are a verdict of their own
    // (a fallback that only sees the first failovers).
    if (p.side === 'failing') return { verdict: 'provider_outage', hint: 'low_volume', side: p.side };
    if (p.side === 'partial') return { verdict: 'provider_degraded', hint: 'low_volume', side: p.side, split: locationSplit(probes, p.failing, p.ok, t) };
    return { verdict: 'insufficient_data', hint: 'low_volume', side: p.side };
  }
  const mix = failureMix(c);
  if (c.degraded && (p.side === 'missing' || p.side === 'misconfigured')) {
    // Our own classes need no probe: the same dominance rule as with probes.
    const byClass = mix.ours >= t.hint_dominant_share ? classHint(c, t) : null;
    if (byClass) return { verdict: 'self_inflicted', hint: byClass, side: p.side, ownClasses: { share: mix.ours, side: p.side } };
    // No probe of its own: the provider's other keys speak for the provider (a failing host), never against it.
    if (siblings && mix.provider >= t.hint_dominant_share && siblings.side !== 'healthy') {
      return { verdict: siblings.side === 'failing' ? 'provider_outage' : 'provider_suspected', hint: 'sibling_probes', side: p.side, siblings };
    }
  }
  if (p.side === 'missing') return { verdict: 'insufficient_data', hint: 'no_probes', side: p.side, ...(siblings ? { siblings } : {}) };
  if (p.side === 'misconfigured') return { verdict: 'insufficient_data', hint: 'probe_misconfigured', side: p.side, ...(siblings ? { siblings } : {}) };
  if (c.degraded) {
    if (p.side === 'failing') return { verdict: 'provider_outage', hint: null, side: p.side };
    // Some locations failing and some ok: `regional` only when they differ beyond chance.
    if (p.side === 'partial') return partialDecision('provider_outage', probes, p, t);
    // Clients are judged over the whole window, probes on their latest results: right after
    // an outage the clients still look degraded while the probes are fine again. If the
    // probes failed for most of the window too, it was the provider, not us.
    const recovered = recoveredLocations(probes, t);
    if (recovered.length > 0 && recovered.length === p.ok.length) return { verdict: 'provider_outage', hint: null, side: p.side, recovered };
    // Our own failure classes dominate: ours, whatever the probes say.
    const byClass = classHint(c, t);
    if (byClass) return { verdict: 'self_inflicted', hint: byClass, side: p.side, ...(mix.ours >= t.hint_dominant_share ? { ownClasses: { share: mix.ours, side: p.side } } : {}) };
    // The probes are ok on their latest results but caught provider failures over the window:
    // the provider fails in bursts; the clients see the same.
    const windowProbes = p.ok.reduce((n, l) => n + probes[l]!.probes, 0);
    const windowFailedProbes = p.ok.reduce((n, l) => n + windowFailed(probes[l]!), 0);
    const power = probePower(c, probes, p.ok, t);
    if ((c.provider_error_share ?? 0) > 0 && windowProbes > 0 && windowFailedProbes >= t.min_probes && windowFailedProbes / windowProbes >= t.probe_intermittent_share) {
      return { verdict: 'provider_outage', hint: 'intermittent', side: p.side, intermittent: { probes: windowProbes, failed: windowFailedProbes }, ...(power ? { power } : {}) };
    }
    // Probes that answer far slower than their own baseline, with clients slow or shedding:
    // the provider is slow without failing (issue 36) — before the self-side hints, since a
    // slow provider fills the bulkhead (capacity) and slows every part of the fleet alike.
    const latency = judgeLatency(c, probes, p.ok, t, slowOpens);
    const slow = latency?.clients_slow ? slowLocations(latency) : [];
    if (latency && slow.length > 0) return { verdict: slow.length === p.ok.length ? 'provider_outage' : 'provider_degraded', hint: 'slow', side: p.side, latency };
    const behaviour = behaviourHint(c, parts, t);
    if (behaviour.hint) return { verdict: 'self_inflicted', side: p.side, ...behaviour, ...(power ? { power } : {}) };
    // Slow or shedding with no failed call while every probe answers at its usual latency:
    // the provider serves small requests as fast as ever — our requests' shape or our path.
    if (latency?.clients_slow && c.failed === 0 && probesAtBaseline(latency)) return { verdict: 'provider_suspected', hint: 'traffic_shape', side: p.side, latency };
    // No self-side signal. Provider-side errors the probes did not see are not ours: either
    // the probes are too few to tell, or the provider fails only requests shaped like ours.
    if (power?.refutes) return { verdict: 'provider_suspected', hint: 'traffic_shape', side: p.side, power };
    return { verdict: 'provider_suspected', hint: 'probes_inconclusive', side: p.side, ...(power ? { power } : {}), ...(latency ? { latency } : {}) };
  }
  if (p.side === 'failing') return { verdict: 'provider_degraded', hint: null, side: p.side };
  if (p.side === 'partial') return partialDecision('provider_degraded', probes, p, t);
  return { verdict: 'healthy', hint: p.misconfigured.length > 0 ? 'probe_misconfigured' : null, side: p.side };
}

/** A degraded service with a decided verdict of its own, its figures and what decided it. */
export interface HurtService {
  name: string;
  figures: ClientFigures;
  decision: Decision;
}

/** The services of a key split into the hurt ones (worst first) and the rest. */
export interface ServiceLead {
  /** The worst hurt service: its verdict leads. */
  lead: HurtService;
  /** The other hurt services, worst first: named too. */
  also: HurtService[];
  /** Services calling the key that are not degraded (each with its calls), by name. */
  healthy: { name: string; calls: number }[];
  /** Degraded services without a decided verdict of their own (held for probes, no probes). */
  undecided: string[];
  /** True when the key took the lead's verdict: its own, over its diluted totals, was not a decided one that hurts. */
  led: boolean;
}

/**
 * The decision for a `partial` probe side (some locations failing, some ok) with the clients
 * degraded (`provider_outage`) or fine (`provider_degraded`): `regional` only when the split
 * is beyond chance; `intermittent` when it is not though the counts could have shown one (the
 * provider fails at random everywhere: fail over to another provider, not another region);
 * `regional_unconfirmed` when the counts are too few to tell.
 */
export function partialDecision(verdict: 'provider_outage' | 'provider_degraded', probes: Record<string, ProbeFigures>, side: { failing: string[]; ok: string[] }, t: StatusRule & { probe_split_max_p: number }): Decision {
  const split = locationSplit(probes, side.failing, side.ok, t);
  const base = { verdict, side: 'partial' as ProbeSide, split };
  if (split.kind === 'regional') return { ...base, hint: 'regional' };
  if (split.kind === 'too_few') return { ...base, hint: 'regional_unconfirmed' };
  return { ...base, hint: 'intermittent', intermittent: { probes: split.failing.probes + split.ok.probes, failed: split.failing.failed + split.ok.failed } };
}
