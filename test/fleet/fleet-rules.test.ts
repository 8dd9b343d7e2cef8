import { describe, expect, it } from 'vitest';
import { fleetKeyTag, type BreakerKey } from '@breakerbox/protocol';
import { deriveFleetChanges, recoveredOutages, type FleetAnalysis, type LatestProbe } from '../../server/fleet/derive.ts';
import type { FleetDecisionRecord } from '../../server/storage/storage.ts';
import type { ProbeFigures, Verdict } from '../../server/verdicts/types.ts';

const NOW = 1_800_000_000_000;
const KEY: BreakerKey = { provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', region: 'us-east' };
const RULES = { ttlMs: 60_000, maxProbeAgeMs: 120_000 };

function probe(status: ProbeFigures['status'], o: Partial<ProbeFigures> = {}): ProbeFigures {
  return {
    probes: 6, ok: status === 'ok' ? 6 : 0, slow: 0, error: status === 'failing' ? 6 : 0, wrong_answer: 0, misconfigured: 0, cold: 0, success_share: null, slow_share: null,
    latency_ms: { p50: null, p95: null, mean: null }, recent: { probes: 3, failed: status === 'failing' ? 3 : 0 }, status, last_ts: NOW - 30_000, set_aside: false, ...o,
  };
}
const analysis = (verdict: Verdict, probes: Record<string, ProbeFigures>, key = KEY): FleetAnalysis => ({ info: { id: 7, key }, decision: { verdict }, probes, evidence: ['server errors 80% of 1,200 calls'] });
/** The latest fresh probe per location of KEY (other keys: none). */
const latestOf = (outcomes: Record<string, string>): LatestProbe => (tag, location) => (tag === fleetKeyTag(KEY) ? outcomes[location] ?? null : null);
const FAILING = latestOf({ 'eu-west': 'error', 'us-east': 'error' });
let n = 0;
const ids = () => `d${++n}`;
const running = (o: Partial<FleetDecisionRecord> = {}): FleetDecisionRecord => ({
  id: 'run-1', kind: 'outage', key: KEY, keyTag: fleetKeyTag(KEY), origin: 'verdict', reason: 'x', createdBy: null, locations: ['eu-west', 'us-east'],
  issuedAt: NOW - 90_000, updatedAt: NOW - 15_000, expiresAt: NOW + 45_000, endedAt: null, endedBy: null, keyId: 7, ...o,
});

describe('fleet decision rules', () => {
  it('opens a fleet outage with a TTL for a provider_outage whose own probes fail freshly, naming the locations', () => {
    const c = deriveFleetChanges(NOW, [analysis('provider_outage', { 'eu-west': probe('failing'), 'us-east': probe('failing') })], [], RULES, ids, FAILING);
    expect(c.insert).toHaveLength(1);
    expect(c.insert[0]).toMatchObject({ kind: 'outage', key: KEY, keyId: 7, origin: 'verdict', locations: ['eu-west', 'us-east'], issuedAt: NOW, expiresAt: NOW + 60_000 });
    expect(c.insert[0]!.reason).toContain('probes failing from eu-west, us-east');
  });

  it.each(['provider_suspected', 'self_inflicted', 'insufficient_data', 'provider_degraded', 'healthy'] as Verdict[])('never opens the fleet on %s, even with failing probes', (verdict) => {
    const c = deriveFleetChanges(NOW, [analysis(verdict, { 'eu-west': probe('failing') })], [], RULES, ids, FAILING);
    expect(c).toEqual({ insert: [], renew: [], end: [] });
  });

  it('does not open on a provider_outage whose failing probes are stale, set aside, or missing (sibling evidence only)', () => {
    const stale = analysis('provider_outage', { 'eu-west': probe('failing', { last_ts: NOW - 121_000 }) });
    const setAside = analysis('provider_outage', { 'eu-west': probe('failing', { set_aside: true }) });
    const none = analysis('provider_outage', {});
    expect(deriveFleetChanges(NOW, [stale, setAside, none], [], RULES, ids, FAILING).insert).toEqual([]);
  });

  it('keeps a regional outage to its own key: another region of the model gets nothing', () => {
    const other = { ...KEY, region: 'eu-west' };
    const c = deriveFleetChanges(NOW, [analysis('provider_outage', { 'us-east': probe('failing') }), analysis('healthy', { 'us-east': probe('ok') }, other)], [], RULES, ids, FAILING);
    expect(c.insert.map((d) => d.key)).toEqual([KEY]);
  });

  it('renews a running outage while the verdict holds instead of opening a second one', () => {
    const c = deriveFleetChanges(NOW, [analysis('provider_outage', { 'eu-west': probe('failing') })], [running()], RULES, ids, FAILING);
    expect(c).toEqual({ insert: [], renew: [{ id: 'run-1', expiresAt: NOW + 60_000 }], end: [] });
  });

  it('leaves a running outage to lapse at its TTL when the verdict weakens to provider_suspected', () => {
    const c = deriveFleetChanges(NOW, [analysis('provider_suspected', { 'eu-west': probe('failing'), 'us-east': probe('failing') })], [running()], RULES, ids, FAILING);
    expect(c).toEqual({ insert: [], renew: [], end: [] });
  });

  it('declares recovery only when the latest fresh probe from every location that decided the outage passed', () => {
    const now = [analysis('provider_degraded', { 'eu-west': probe('ok'), 'us-east': probe('failing') })];
    const partial = deriveFleetChanges(NOW, now, [running()], RULES, ids, latestOf({ 'eu-west': 'ok', 'us-east': 'error' }));
    expect(partial).toEqual({ insert: [], renew: [], end: [] });
    const noFreshProbe = deriveFleetChanges(NOW, now, [running()], RULES, ids, latestOf({ 'eu-west': 'ok' }));
    expect(noFreshProbe.insert).toEqual([]);
    const all = deriveFleetChanges(NOW, now, [running()], RULES, ids, latestOf({ 'eu-west': 'ok', 'us-east': 'ok' }));
    expect(all.end).toEqual(['run-1']);
    expect(all.insert).toHaveLength(1);
    expect(all.insert[0]).toMatchObject({ kind: 'recovered', key: KEY, keyId: 7, locations: ['eu-west', 'us-east'] });
  });

  it('stops confirming from a location whose latest probe passed, even while its window still reads failing', () => {
    const a = analysis('provider_outage', { 'eu-west': probe('failing'), 'us-east': probe('failing') });
    const c = deriveFleetChanges(NOW, [a], [], RULES, ids, latestOf({ 'eu-west': 'ok', 'us-east': 'error' }));
    expect(c.insert[0]?.locations).toEqual(['us-east']);
    expect(deriveFleetChanges(NOW, [a], [running()], RULES, ids, latestOf({ 'eu-west': 'ok', 'us-east': 'ok' })).renew).toEqual([]);
  });

  it('recovers between evaluations from the latest probes alone (the leader\'s quick check)', () => {
    expect(recoveredOutages(NOW, [running()], RULES, ids, FAILING)).toEqual({ insert: [], renew: [], end: [] });
    const c = recoveredOutages(NOW, [running(), running({ id: 'drain-1', kind: 'drain', origin: 'operator' })], RULES, ids, latestOf({ 'eu-west': 'ok', 'us-east': 'ok' }));
    expect(c.end).toEqual(['run-1']);
    expect(c.insert.map((d) => d.kind)).toEqual(['recovered']);
  });
});
