/**
 * The fleet decisions' writes and reads: the leader's pass over its verdicts, on-call's
 * drain and release of one key (audited: the rows keep who, why and until when, and each
 * action is logged), and the key page's list with how many instances applied each one.
 */
import { randomUUID } from 'node:crypto';
import { cleanKey, fleetKeyTag, type BreakerKey, type TransitionReason } from '@breakerbox/protocol';
import type { FleetDecisionRecord, Storage } from '../storage/storage.ts';
import { deriveFleetChanges, recoveredOutages, type FleetAnalysis, type FleetChanges, type FleetRuleSettings, type LatestProbe } from './derive.ts';

/** A decision as the API and the dashboard show it. */
export interface FleetDecisionView {
  id: string;
  kind: FleetDecisionRecord['kind'];
  key: BreakerKey;
  origin: FleetDecisionRecord['origin'];
  reason: string;
  created_by: string | null;
  locations: string[];
  issued_at: number;
  expires_at: number;
  ended_at: number | null;
  ended_by: string | null;
  /** Running now (not ended, not expired). */
  active: boolean;
  /** Instances that reported the transition this decision asks for, since it was issued. */
  applied_instances: number;
}

/** The transition reason an instance reports when it applies a decision of this kind. */
export const REASON_OF_KIND: Record<FleetDecisionRecord['kind'], TransitionReason> = {
  outage: 'fleet_outage',
  recovered: 'fleet_recovered',
  drain: 'fleet_drain',
  release: 'fleet_release',
};

/** The fleet decisions' logic over storage. */
export interface FleetService {
  /** The leader's pass: opens, renews and recovers verdict outages from one evaluation's analyses. Returns what changed. */
  fromVerdicts(now: number, analyses: readonly FleetAnalysis[]): Promise<{ opened: number; renewed: number; recovered: number }>;
  /**
   * The leader's quick check between evaluations: of `running` (the tick's one read of the
   * running outages), those whose deciding locations all probe ok again end. Returns how many
   * ended and the outages still running, for the tick's recovery probes.
   */
  checkRecoveries(now: number, running: readonly FleetDecisionRecord[]): Promise<{ recovered: number; stillRunning: FleetDecisionRecord[] }>;
  /** Drains a key fleet-wide until `expiresAt` (replacing a running drain of it). */
  drain(key: BreakerKey, reason: string, expiresAt: number, by: string, now: number): Promise<FleetDecisionView>;
  /** Ends the running drain of a key; null when none runs. */
  release(key: BreakerKey, reason: string, by: string, now: number): Promise<FleetDecisionView | null>;
  /** One key's decisions issued since `since`, newest first, with applied counts. */
  forKey(key: BreakerKey, since: number, now: number, limit: number): Promise<FleetDecisionView[]>;
}

/** Creates the service. */
export function createFleetService(storage: Pick<Storage, 'fleet' | 'telemetry' | 'events'>, rules: FleetRuleSettings): FleetService {
  const store = storage.fleet;
  /** Reads the latest fresh warm probe of each (key, location) pair the rules will ask about. */
  const latestOf = async (now: number, pairs: { key: BreakerKey; keyTag: string; keyId: number | null; location: string }[]): Promise<LatestProbe> => {
    const found = new Map<string, string | null>();
    for (const p of pairs) {
      const id = `${p.keyTag}\u0001${p.location}`;
      if (found.has(id)) continue;
      // Rows stored before the key id was kept with them (migration 066) look it up.
      const keyId = p.keyId ?? (await storage.telemetry.findKeyId(p.key));
      const outcomes = keyId === undefined ? [] : await storage.events.warmOutcomes(keyId, p.location, now - rules.maxProbeAgeMs, now + 1, now);
      found.set(id, outcomes[0] ?? null);
    }
    return (tag, location) => found.get(`${tag}\u0001${location}`) ?? null;
  };
  const apply = async (now: number, changes: FleetChanges) => {
    for (const id of changes.end) await store.end(id, now, null);
    for (const r of changes.renew) await store.renew(r.id, r.expiresAt, now);
    for (const d of changes.insert) await store.insert(d);
  };
  const view = (r: FleetDecisionRecord, now: number, applied: number): FleetDecisionView => ({
    id: r.id, kind: r.kind, key: r.key, origin: r.origin, reason: r.reason, created_by: r.createdBy, locations: r.locations,
    issued_at: r.issuedAt, expires_at: r.expiresAt, ended_at: r.endedAt, ended_by: r.endedBy,
    active: r.endedAt === null && r.expiresAt > now, applied_instances: applied,
  });
  const runningDrain = async (tag: string, now: number) => (await store.running(now, ['drain'])).find((d) => d.keyTag === tag);
  const operatorRow = (kind: 'drain' | 'release', key: BreakerKey, reason: string, by: string, now: number, expiresAt: number): FleetDecisionRecord => ({
    id: randomUUID(), kind, key, keyTag: fleetKeyTag(key), origin: 'operator', reason, createdBy: by, locations: [],
    issuedAt: now, updatedAt: now, expiresAt, endedAt: null, endedBy: null, keyId: null,
  });
  return {
    async fromVerdicts(now, analyses) {
      const running = await store.running(now, ['outage']);
      const pairs = running.flatMap((d) => d.locations.map((location) => ({ key: d.key, keyTag: d.keyTag, keyId: d.keyId, location })));
      for (const a of analyses) {
        if (a.decision.verdict !== 'provider_outage') continue;
        const key = cleanKey(a.info.key);
        for (const location of Object.keys(a.probes)) if (a.probes[location]!.status === 'failing') pairs.push({ key, keyTag: fleetKeyTag(key), keyId: a.info.id, location });
      }
      const changes = deriveFleetChanges(now, analyses, running, rules, randomUUID, await latestOf(now, pairs));
      await apply(now, changes);
      const recovered = changes.insert.filter((d) => d.kind === 'recovered').length;
      return { opened: changes.insert.length - recovered, renewed: changes.renew.length, recovered };
    },
    async checkRecoveries(now, running) {
      const verdict = running.filter((d) => d.kind === 'outage' && d.origin === 'verdict');
      if (verdict.length === 0) return { recovered: 0, stillRunning: [...running] };
      const latest = await latestOf(now, verdict.flatMap((d) => d.locations.map((location) => ({ key: d.key, keyTag: d.keyTag, keyId: d.keyId, location }))));
      const changes = recoveredOutages(now, verdict, rules, randomUUID, latest);
      await apply(now, changes);
      const ended = new Set(changes.end);
      return { recovered: ended.size, stillRunning: running.filter((d) => !ended.has(d.id)) };
    },
    async drain(rawKey, reason, expiresAt, by, now) {
      const key = cleanKey(rawKey);
      const before = await runningDrain(fleetKeyTag(key), now);
      if (before) await store.end(before.id, now, by);
      const row = operatorRow('drain', key, reason, by, now, expiresAt);
      await store.insert(row);
      return view(row, now, 0);
    },
    async release(rawKey, reason, by, now) {
      const key = cleanKey(rawKey);
      const running = await runningDrain(fleetKeyTag(key), now);
      if (!running) return null;
      await store.end(running.id, now, by);
      // Listed for a TTL so instances that reconnect meanwhile still leave the drain at once.
      const row = operatorRow('release', key, reason, by, now, now + rules.ttlMs);
      await store.insert(row);
      return view(row, now, 0);
    },
    async forKey(rawKey, since, now, limit) {
      const key = cleanKey(rawKey);
      const rows = await store.forKey(fleetKeyTag(key), since, limit);
      if (rows.length === 0) return [];
      const keyId = await storage.telemetry.findKeyId(key);
      const transitions = keyId === undefined ? [] : await storage.events.keyTransitions(keyId, Math.min(...rows.map((r) => r.issuedAt)), now + 1, 10_000);
      return rows.map((r) => {
        const reason = REASON_OF_KIND[r.kind];
        const until = r.endedAt ?? Math.max(r.expiresAt, r.issuedAt);
        const instances = new Set(transitions.filter((t) => t.reason === reason && t.ts >= r.issuedAt && t.ts <= until).map((t) => `${t.service}\u0001${t.instance}`));
        return view(r, now, instances.size);
      });
    },
  };
}
