/**
 * The fleet decision rules (docs/fleet.md, "Decision rules"): from one verdict evaluation of
 * the leader, which outages to open, renew or declare recovered. Pure: the caller reads the
 * analyses and the running decisions and stores what this returns.
 */
import { cleanKey, fleetKeyTag, keyLabel } from '@breakerbox/protocol';
import type { FleetDecisionRecord } from '../storage/storage.ts';
import type { ProbeFigures, Verdict } from '../verdicts/types.ts';

/** What the rules read of one key's analysis (a `KeyAnalysis` fits). */
export interface FleetAnalysis {
  /** The key and its id (`keys.id`), kept with the outage it opens. */
  info: { id: number; key: FleetDecisionRecord['key'] };
  decision: { verdict: Verdict };
  probes: Record<string, ProbeFigures>;
  evidence: string[];
}

/** The rule settings (config `fleet`). */
export interface FleetRuleSettings {
  ttlMs: number;
  maxProbeAgeMs: number;
}

/**
 * The outcome of a key's latest fresh warm probe from a location (`ok`, `slow`, `error`), null
 * when it has none that fresh. A location whose latest probe passed no longer confirms an
 * outage, and an outage is over once every deciding location's latest probe passed — one ok
 * probe each, not a window of them, so recovery is not held back by the verdict's lookback.
 */
export type LatestProbe = (keyTag: string, location: string) => string | null;

/** What one evaluation changes. */
export interface FleetChanges {
  insert: FleetDecisionRecord[];
  renew: { id: string; expiresAt: number }[];
  end: string[];
}

const fresh = (f: ProbeFigures, now: number, s: FleetRuleSettings) => f.last_ts !== null && now - f.last_ts <= s.maxProbeAgeMs;

/**
 * The locations whose own, fresh, trusted probes fail for a key judged `provider_outage`;
 * empty when the outage is not probe-confirmed. `provider_suspected`, `self_inflicted`,
 * `insufficient_data`, a verdict leaning on sibling keys, set-aside (unhealthy prober) or
 * stale locations never confirm one.
 */
export function confirmingLocations(a: FleetAnalysis, now: number, s: FleetRuleSettings, latest: LatestProbe): string[] {
  if (a.decision.verdict !== 'provider_outage') return [];
  const tag = fleetKeyTag(cleanKey(a.info.key));
  return Object.keys(a.probes)
    .sort()
    .filter((l) => {
      const f = a.probes[l]!;
      return f.status === 'failing' && !f.set_aside && fresh(f, now, s) && latest(tag, l) !== 'ok';
    });
}

/** True when the latest fresh probe from every location that decided an outage passed. */
export function recoveredFrom(keyTag: string, locations: readonly string[], latest: LatestProbe): boolean {
  return locations.length > 0 && locations.every((l) => latest(keyTag, l) === 'ok');
}

/**
 * One pass of the rules. `running` are the verdict outages still in force; `newId` names new
 * decisions. A confirmed outage with no running decision opens one (TTL `ttlMs`); a running
 * one is renewed while confirmed; a running one whose deciding locations all probe ok again
 * ends and a `recovered` decision is issued. Anything else changes nothing, so an outage
 * whose verdict weakens (suspected, stale probes, leader gone) lapses at its TTL.
 */
export function deriveFleetChanges(
  now: number,
  analyses: readonly FleetAnalysis[],
  running: readonly FleetDecisionRecord[],
  s: FleetRuleSettings,
  newId: () => string,
  latest: LatestProbe,
): FleetChanges {
  const out: FleetChanges = { insert: [], renew: [], end: [] };
  const byTag = new Map<string, FleetDecisionRecord>();
  for (const d of running) if (d.kind === 'outage' && d.origin === 'verdict') byTag.set(d.keyTag, d);
  for (const a of analyses) {
    const key = cleanKey(a.info.key);
    const tag = fleetKeyTag(key);
    const current = byTag.get(tag);
    const failing = confirmingLocations(a, now, s, latest);
    if (failing.length > 0) {
      if (current) out.renew.push({ id: current.id, expiresAt: now + s.ttlMs });
      else {
        const why = a.evidence[0] ? `; ${a.evidence[0]}` : '';
        out.insert.push(record(newId(), 'outage', key, tag, a.info.id, now, now + s.ttlMs, failing, `provider_outage of ${keyLabel(key)}: probes failing from ${failing.join(', ')}${why}`));
      }
      continue;
    }
    if (current && recoveredFrom(tag, current.locations, latest)) {
      byTag.delete(tag);
      recover(out, current, now, s, newId);
    }
  }
  return out;
}

/**
 * The leader's quick check between evaluations: running verdict outages whose deciding
 * locations all probe ok again end now, so recovery reaches the fleet within a poll of the
 * probes, not an alert interval later.
 */
export function recoveredOutages(now: number, running: readonly FleetDecisionRecord[], s: FleetRuleSettings, newId: () => string, latest: LatestProbe): FleetChanges {
  const out: FleetChanges = { insert: [], renew: [], end: [] };
  for (const d of running) if (d.kind === 'outage' && d.origin === 'verdict' && recoveredFrom(d.keyTag, d.locations, latest)) recover(out, d, now, s, newId);
  return out;
}

function recover(out: FleetChanges, current: FleetDecisionRecord, now: number, s: FleetRuleSettings, newId: () => string): void {
  out.end.push(current.id);
  // A recovery acts once; it stays listed for a TTL so an instance that reconnects meanwhile still gets it.
  out.insert.push(record(newId(), 'recovered', current.key, current.keyTag, current.keyId, now, now + s.ttlMs, current.locations, `probes ok again from ${current.locations.join(', ')}`));
}

function record(
  id: string, kind: 'outage' | 'recovered', key: FleetDecisionRecord['key'], keyTag: string, keyId: number | null,
  now: number, expiresAt: number, locations: string[], reason: string,
): FleetDecisionRecord {
  return { id, kind, key, keyTag, origin: 'verdict', reason: reason.slice(0, 1000), createdBy: null, locations, issuedAt: now, updatedAt: now, expiresAt, endedAt: null, endedBy: null, keyId };
}
