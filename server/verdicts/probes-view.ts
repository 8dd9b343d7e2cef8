import type { BreakerKey } from '@breakerbox/protocol';
import { newProbeSums } from './counters.ts';
import { probeFigures } from './figures.ts';
import type { AnalyseDeps } from './analyse.ts';
import { proberHealthOf, type LocationHealth } from './prober-health.ts';
import type { ProbeFigures } from './types.ts';
import { floorMinute, type TimeRange } from './window.ts';

import type { ProbeResult, ProbesView } from '../schemas/probes.ts';
import type { ProbeEventRow } from '../storage/storage.ts';
export type { ProbeResult, ProbesView } from '../schemas/probes.ts';

const healthyLocation = (location: string): LocationHealth => ({
  location, status: 'healthy', keys: 0, failing_keys: 0, failing_providers: [], network_share: null, reason: null,
});

const RAW_LOOKBACK_MS = 2 * 3_600_000;
const RECENT_LIMIT = 20;

/** Probe targets per location: figures from the rollups, last results from the raw probes (last 2 h of the window). */
export async function probesView(deps: AnalyseDeps, range: TimeRange): Promise<ProbesView> {
  const t = deps.thresholds;
  const first = floorMinute(range.from);
  const { storage } = deps;
  const [keys, sums, recent, raw] = await Promise.all([
    storage.telemetry.keys(),
    storage.rollups.probeSums(first, range.to),
    storage.rollups.recentProbes(Math.max(first, floorMinute(range.to - t.probe_recent_lookback_s * 1000)), range.to),
    storage.events.probeEvents(Math.max(range.from, range.to - RAW_LOOKBACK_MS), range.to),
  ]);
  const results = new Map<string, { last: ProbesView['locations'][number]['targets'][number]['last']; recent: ProbeResult[] }>();
  for (const row of raw) {
    const { keyId, location, ts, outcome, errorClass, status, connectMs: connect, ttfbMs: ttfb, totalMs: total, cold } = row;
    const id = `${keyId}\u0000${location}`;
    const evidence = failureEvidenceOf(row);
    let entry = results.get(id);
    if (!entry) {
      entry = {
        last: {
          ts, outcome, error_class: errorClass, status, latency_ms: { connect, ttfb, total }, cold, ...evidence,
        },
        recent: [],
      };
      results.set(id, entry);
    }
    if (entry.recent.length < RECENT_LIMIT) {
      entry.recent.push({ ts, outcome, error_class: errorClass, status, total_ms: total, ...evidence });
    }
  }

  const byLocation = new Map<string, ProbesView['locations'][number]>();
  const idOf = new Map<object, number>();
  const pairs = new Set<string>();
  for (const [keyId, inner] of sums) for (const location of inner.keys()) pairs.add(`${keyId}\u0000${location}`);
  for (const id of results.keys()) pairs.add(id);
  for (const id of pairs) {
    const [keyText, location] = id.split('\u0000') as [string, string];
    const keyId = Number(keyText);
    const info = keys.get(keyId);
    if (!info) continue;
    let loc = byLocation.get(location);
    if (!loc) byLocation.set(location, (loc = { location, last_ts: null, health: healthyLocation(location), on_demand: null, targets: [] }));
    const r = results.get(id);
    const figures = probeFigures(sums.get(keyId)?.get(location) ?? newProbeSums(), recent.get(keyId)?.get(location) ?? [], t);
    const target = { key: info.key, figures, last: r?.last ?? null, recent: r?.recent ?? [] };
    idOf.set(target, keyId);
    loc.targets.push(target);
    const last = r?.last?.ts ?? figures.last_ts;
    if (last !== null && (loc.last_ts === null || last > loc.last_ts)) loc.last_ts = last;
  }
  const perKey = new Map<number, Record<string, ProbeFigures>>();
  for (const loc of byLocation.values()) {
    for (const target of loc.targets) {
      const id = idOf.get(target)!;
      perKey.set(id, { ...(perKey.get(id) ?? {}), [loc.location]: target.figures });
    }
  }
  const health = await proberHealthOf(perKey, keys, () => storage.events.probeFailureClasses(Math.max(range.from, range.to - t.probe_recent_lookback_s * 1000), range.to), t);
  for (const loc of byLocation.values()) {
    loc.health = health.get(loc.location) ?? loc.health;
    if (loc.health.status === 'unhealthy') for (const target of loc.targets) target.figures = { ...target.figures, set_aside: true };
  }
  if (deps.pending) {
    const counts = await deps.pending.onDemand(range.from, range.to, range.to);
    for (const location of counts.keys()) {
      if (!byLocation.has(location)) byLocation.set(location, { location, last_ts: null, health: healthyLocation(location), on_demand: null, targets: [] });
    }
    for (const loc of byLocation.values()) loc.on_demand = counts.get(loc.location) ?? { requested: 0, delivered: 0, served: 0, pending: 0, expired: 0 };
  }
  const keyText = (k: BreakerKey) => `${k.provider}\u0000${k.endpoint}\u0000${k.model}\u0000${k.region ?? ''}`;
  const locations = [...byLocation.values()].sort((a, b) => a.location.localeCompare(b.location));
  for (const loc of locations) loc.targets.sort((a, b) => keyText(a.key).localeCompare(keyText(b.key)));
  return { window: range, locations };
}

/** A failed probe's request id and provider error, only the fields it has. */
type Evidence = 'upstream_request_id' | 'error_type' | 'error_code' | 'message' | 'answer_excerpt' | 'model_served' | 'system_fingerprint';

function failureEvidenceOf(r: ProbeEventRow): Pick<ProbeResult, Evidence> {
  const out: Pick<ProbeResult, Evidence> = {};
  if (r.upstreamRequestId !== null) out.upstream_request_id = r.upstreamRequestId;
  if (r.errorType !== null) out.error_type = r.errorType;
  if (r.errorCode !== null) out.error_code = r.errorCode;
  if (r.message !== null) out.message = r.message;
  if (r.answerExcerpt !== null) out.answer_excerpt = r.answerExcerpt;
  if (r.modelServed !== null) out.model_served = r.modelServed;
  if (r.systemFingerprint !== null) out.system_fingerprint = r.systemFingerprint;
  return out;
}
