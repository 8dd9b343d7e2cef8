/**
 * No guess presented as a verdict (docs/alerts.md, "Probe on suspicion"): while a key's
 * client side is degrading and the probes asked for have not answered, the probe side is
 * not decided; and once they answer, each location is judged on its probes since the
 * degradation began, not on the minutes before it.
 */
import type { FreshProbes, OnDemandCounts, SuspicionRow, SuspicionsPart } from '../storage/storage.ts';
import type { VerdictThresholds } from './figures.ts';
import type { Decision, PendingInfo } from './rules.ts';
import type { ProbeFigures } from './types.ts';

/** What the verdict engine needs to hold a verdict for requested probes. */
export interface PendingProbesSource {
  /** The latest suspicion per key triggered in [from, to]. */
  latestPerKey(from: number, to: number): Promise<Map<number, SuspicionRow>>;
  probesSince(keyId: number, since: number, to: number): Promise<Map<string, FreshProbes>>;
  /** Per location, the requests of [from, to] (for `/api/probes`). */
  onDemand(from: number, to: number, now: number): Promise<Map<string, OnDemandCounts>>;
  /** How long a verdict waits for the requested probes (ms). */
  pendingMaxMs: number;
}

/** The source over the storage's suspicions, for the engine of the main thread and of the read worker alike. */
export function pendingProbesSource(store: SuspicionsPart, pendingMaxMs: number): PendingProbesSource {
  return { latestPerKey: store.latestPerKey, probesSince: store.probesSince, onDemand: store.onDemand, pendingMaxMs };
}

/**
 * Judges each usable location that has at least `min_probes` warm probes since the
 * degradation began on those probes alone (failing above `probe_failing_share`), so a
 * burst of failed on-demand probes is not outvoted by the healthy minutes before it.
 */
export function freshenProbes(probes: Record<string, ProbeFigures>, fresh: Map<string, FreshProbes>, t: VerdictThresholds): void {
  for (const [location, f] of Object.entries(probes)) {
    const n = fresh.get(location);
    if (f.set_aside || !n || n.probes < t.min_probes) continue;
    const status: ProbeFigures['status'] = n.failed / n.probes > t.probe_failing_share ? 'failing' : 'ok';
    probes[location] = { ...f, status, recent: { probes: n.probes, failed: n.failed } };
  }
}

/**
 * Clients failing now, before their window shows it: a suspicion triggered at most `maxMs`
 * ago (the trigger saw provider-side failures on several instances, a failing run, or a
 * breaker open) whose asked probes fail at some usable location. The window's figures lag —
 * minutes of healthy traffic before the outage outweigh its first seconds — so the suspicion
 * is the client evidence and the probes asked for are the confirmation (docs/alerts.md).
 */
export function failingNow(s: SuspicionRow | undefined, fresh: Map<string, FreshProbes> | null, usable: Record<string, ProbeFigures>, to: number, maxMs: number, t: VerdictThresholds): boolean {
  if (!s || !fresh || to - s.triggeredAt > maxMs) return false;
  return Object.entries(usable).some(([location, f]) => {
    const n = fresh.get(location);
    return !f.set_aside && n !== undefined && n.probes >= t.min_probes && n.failed / n.probes > t.probe_failing_share;
  });
}

/**
 * Holds a verdict that rests on the probe side while the requested probes are outstanding:
 * `insufficient_data` / `probes_pending` until every asked location answered with
 * `min_probes` probes since the degradation began, or `pending_max_s` passed; after that,
 * with no probe at all since the degradation began, `insufficient_data` / `probes_stale` —
 * never `self_inflicted` on probes older than the degradation. A provider outage the
 * probes already show is not held, nor a failure of our own classes (it needs no probe).
 */
export function holdForProbes(d: Decision, s: SuspicionRow, fresh: Map<string, FreshProbes>, usable: string[], to: number, maxMs: number, t: VerdictThresholds): Decision {
  if (d.verdict === 'provider_outage' || d.verdict === 'insufficient_data' || d.ownClasses) return d;
  const asked = s.locations.filter((l) => usable.includes(l));
  const answered = asked.filter((l) => (fresh.get(l)?.probes ?? 0) >= t.min_probes);
  const info: PendingInfo = { since: s.startedAt, asked_at: s.triggeredAt, asked, answered, until: s.triggeredAt + maxMs, held: d.verdict };
  if (answered.length < asked.length && to < info.until) return { verdict: 'insufficient_data', hint: 'probes_pending', side: d.side, pending: info };
  return staleOr(d, fresh, usable, info);
}

/**
 * Before the trigger has asked (a breaker opened less than `min_open_s` ago, or the trigger
 * has not run since): a key whose breaker is open now and that no usable location has probed
 * `min_probes` times since it opened waits as `probes_pending` too, for at most
 * `pending_max_s` after the open — so an alert that fires on the open (open_share) never
 * pages "self-inflicted" on the probes from before it. With probe on suspicion on, the
 * trigger asks within seconds and `holdForProbes` takes over.
 */
export function holdBeforeAsking(d: Decision, openSince: number, fresh: Map<string, FreshProbes>, usable: string[], to: number, maxMs: number, t: VerdictThresholds): Decision {
  if (d.verdict === 'provider_outage' || d.verdict === 'insufficient_data' || d.ownClasses || usable.length === 0) return d;
  const answered = usable.filter((l) => (fresh.get(l)?.probes ?? 0) >= t.min_probes);
  const info: PendingInfo = { since: openSince, asked_at: null, asked: [], answered, until: openSince + maxMs, held: d.verdict };
  if (answered.length === 0 && to < info.until) return { verdict: 'insufficient_data', hint: 'probes_pending', side: d.side, pending: info };
  return staleOr(d, fresh, usable, info);
}

/** After the wait: with no probe at all since the degradation began, `probes_stale`; else the decision. */
function staleOr(d: Decision, fresh: Map<string, FreshProbes>, usable: string[], info: PendingInfo): Decision {
  const anyFresh = usable.some((l) => (fresh.get(l)?.probes ?? 0) > 0);
  if (!anyFresh) return { verdict: 'insufficient_data', hint: 'probes_stale', side: d.side, pending: info };
  return d;
}
