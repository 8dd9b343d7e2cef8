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
  info: { key: FleetDecisionRecord['key'] };
  decision: { verdict: Verdict };
  probes: Record<string, ProbeFigures>;
  evidence: string[];
}

/** The rule settings (config `fleet`). */
export interface FleetRuleSettings {
  ttlMs: number;
  maxProbeAgeMs: number;
}

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
export function confirmingLocations(a: FleetAnalysis, now: number, s: FleetRuleSettings): string[] {
  if (a.decision.verdict !== 'provider_outage') return [];
  return Object.keys(a.probes)
    .sort()
    .filter((l) => {
      const f = a.probes[l]!;
      return f.status === 'failing' && !f.set_aside && fresh(f, now, s);
    });
}

/** True when every location that decided an outage now probes ok, freshly and trusted. */
export function recoveredFrom(a: FleetAnalysis, locations: readonly string[], now: number, s: FleetRuleSettings): boolean {
  if (locations.length === 0) return false;
  return locations.every((l) => {
    const f = a.probes[l];
    return f !== undefined && f.status === 'ok' && !f.set_aside && fresh(f, now, s);
  });
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
): FleetChanges {
  const out: FleetChanges = { insert: [], renew: [], end: [] };
  const byTag = new Map<string, FleetDecisionRecord>();
  for (const d of running) if (d.kind === 'outage' && d.origin === 'verdict') byTag.set(d.keyTag, d);
  for (const a of analyses) {
    const key = cleanKey(a.info.key);
    const tag = fleetKeyTag(key);
    const current = byTag.get(tag);
    const failing = confirmingLocations(a, now, s);
    if (failing.length > 0) {
      if (current) out.renew.push({ id: current.id, expiresAt: now + s.ttlMs });
      else {
        const why = a.evidence[0] ? `; ${a.evidence[0]}` : '';
        out.insert.push(record(newId(), 'outage', key, tag, now, now + s.ttlMs, failing, `provider_outage of ${keyLabel(key)}: probes failing from ${failing.join(', ')}${why}`));
      }
      continue;
    }
    if (current && recoveredFrom(a, current.locations, now, s)) {
      out.end.push(current.id);
      // A recovery acts once; it stays listed for a TTL so an instance that reconnects meanwhile still gets it.
      out.insert.push(record(newId(), 'recovered', key, tag, now, now + s.ttlMs, current.locations, `probes ok again from ${current.locations.join(', ')}`));
    }
  }
  return out;
}

function record(id: string, kind: 'outage' | 'recovered', key: FleetDecisionRecord['key'], keyTag: string, now: number, expiresAt: number, locations: string[], reason: string): FleetDecisionRecord {
  return { id, kind, key, keyTag, origin: 'verdict', reason: reason.slice(0, 1000), createdBy: null, locations, issuedAt: now, updatedAt: now, expiresAt, endedAt: null, endedBy: null };
}
