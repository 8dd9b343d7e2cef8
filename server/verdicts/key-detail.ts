import { quantile } from '../storage/histogram.ts';
import { analyse, type AnalyseDeps } from './analyse.ts';
import { P, addInto, errorsOf, histogramOf, newKeySums, newProbeSums, type KeySums } from './counters.ts';
import { clientFigures, isClientDegraded, probeFigures, share } from './figures.ts';
import type { ProbeMinute } from '../storage/storage.ts';
import { decide } from './rules.ts';
import { judgedService } from './fleet-parts.ts';
import { leadWithWorstService } from './service-lead.ts';
import type { ProbeFigures } from './types.ts';
import { floorMinute, type TimeRange } from './window.ts';
import { fallbackHealth } from './fallback-health.ts';
import { readServedChanges } from './served-changes.ts';
import type { KeyDetail, SeriesPoint } from '../schemas/keys.ts';

const MINUTE = 60_000;
/** Transitions listed in a key's detail, newest first. */
const TRANSITIONS_LISTED = 500;
const r4 = (x: number | null) => (x === null ? null : Number(x.toFixed(4)));
const r1 = (x: number | null) => (x === null ? null : Number(x.toFixed(1)));

export type { SeriesPoint, KeyDetail } from '../schemas/keys.ts';

/** Sums of the minutes in [from, to) from a minute → service → sums map, in total and per service. */
function sumMinutes(minutes: Map<number, Map<number, KeySums>>, from: number, to: number): { total: KeySums; services: Map<number, KeySums> } {
  const total = newKeySums();
  const services = new Map<number, KeySums>();
  for (let m = from; m < to; m += MINUTE) {
    const row = minutes.get(m);
    if (!row) continue;
    for (const [service, sums] of row) {
      addInto(total, sums);
      let s = services.get(service);
      if (!s) services.set(service, (s = newKeySums()));
      addInto(s, sums);
    }
  }
  return { total, services };
}

/** Builds the key detail: the window's verdict, the fleet, and per-step series with the verdict over time. */
export async function keyDetail(deps: AnalyseDeps, keyId: number, range: TimeRange, step: number): Promise<KeyDetail> {
  const t = deps.thresholds;
  const { storage } = deps;
  const a = (await analyse(deps, range, { keyId }))[0]!;
  const [names, sources] = await Promise.all([storage.telemetry.services(), storage.telemetry.sources()]);
  const first = floorMinute(range.from);
  const trailing = Math.max(step, 5 * MINUTE);
  const dataFirst = first - trailing;

  const [minutes, probeMinutes, reportingPerMinute, open] = await Promise.all([
    storage.rollups.keyMinutes(keyId, dataFirst, range.to),
    storage.rollups.probeMinutes(keyId, dataFirst, range.to),
    storage.rollups.sourcesPerMinute(keyId, dataFirst, range.to),
    deps.openShare.compute(dataFirst, range.to, new Map(), keyId),
  ]);
  const intervals = open.intervals.get(keyId) ?? [];
  const serviceIds = [...new Set([...a.serviceSums.keys(), ...a.instances.map((s) => s.serviceId)])];
  const fallbackByMinute = await storage.rollups.fallbackMinutes(serviceIds, dataFirst, range.to);

  const openIn = (from: number, to: number) => {
    let openMs = 0;
    for (const [, s, e] of intervals) openMs += Math.max(0, Math.min(e, to) - Math.max(s, from));
    let reported = 0;
    let peak = 0;
    for (let m = from; m < to; m += MINUTE) {
      const n = reportingPerMinute.get(m) ?? 0;
      reported += n * MINUTE;
      peak = Math.max(peak, n);
    }
    return { share: share(openMs, Math.max(reported, openMs)), instances: peak };
  };
  const fallbackIn = (from: number, to: number) => {
    const f = { invoked: 0, failed: 0 };
    for (let m = from; m < to; m += MINUTE) {
      const row = fallbackByMinute.get(m);
      if (row) {
        f.invoked += row.invoked;
        f.failed += row.failed;
      }
    }
    return f;
  };
  const probesIn = (from: number, to: number) => {
    const out: Record<string, ProbeFigures> = {};
    for (const [location, byMinute] of probeMinutes) {
      const sums = newProbeSums();
      const recent: ProbeMinute[] = [];
      for (let m = to - MINUTE; m >= from; m -= MINUTE) {
        const row = byMinute.get(m);
        if (!row) continue;
        addInto(sums, row);
        recent.push({ minute: m, probes: row[P.probes]!, failed: row[P.slow]! + row[P.error]!, misconfigured: row[P.misconfigured]! });
      }
      if (sums[P.probes]! + sums[P.cold]! > 0) out[location] = probeFigures(sums, recent, t);
    }
    return out;
  };

  const series: SeriesPoint[] = [];
  const probeSeries: KeyDetail['probe_series'] = {};
  for (const location of [...probeMinutes.keys()].sort()) probeSeries[location] = [];
  for (let b = first; b < range.to; b += step) {
    const end = b + step;
    const { total } = sumMinutes(minutes, b, end);
    const o = openIn(b, end);
    const fb = fallbackIn(b, end);
    const errors = errorsOf(total);
    const c = clientFigures(total, { spanMs: end - b, openShare: o.share, instances: o.instances, services: 0, fallback: fb }, t);
    // The verdict at this point: the same rules over the trailing span ending with the bucket.
    const win = sumMinutes(minutes, end - trailing, end);
    const wo = openIn(end - trailing, end);
    const wc = clientFigures(win.total, { spanMs: trailing, openShare: wo.share, instances: wo.instances, services: win.services.size, fallback: fallbackIn(end - trailing, end) }, t);
    const trailingProbes = probesIn(end - trailing, end);
    const parts =
      win.services.size > 1
        ? [...win.services].map(([id, sums]) =>
            judgedService(names.get(id) ?? String(id), clientFigures(sums, { spanMs: trailing, openShare: null, instances: 0, services: 1, fallback: { invoked: 0, failed: 0 } }, t), trailingProbes, t),
          )
        : [];
    // The key says what its worst service says, at every point as over the window (service-lead.ts).
    const d = leadWithWorstService(decide(wc, trailingProbes, parts, t), parts);
    series.push({
      t: b,
      calls: c.calls, ok: c.ok, failed: c.failed, slow: c.slow,
      errors: Object.fromEntries(Object.entries(errors).filter(([, n]) => n > 0)),
      error_share: c.error_share, provider_error_share: c.provider_error_share, client_error_share: c.client_error_share, slow_share: c.slow_share,
      rejected: c.rejected, short_circuited: c.short_circuited, retries: c.retries, retry_ratio: c.retry_ratio,
      open_share: c.open_share, transitions: c.transitions, opens: c.opens,
      half_open_ok: c.half_open.ok, half_open_failed: c.half_open.failed,
      fallback_invoked: fb.invoked, fallback_failed: fb.failed,
      latency_ms: c.latency_ms, ttft_ms: c.ttft_ms, cost_usd: c.cost_usd,
      verdict: d.verdict, hint: d.hint,
    });
    for (const [location, byMinute] of probeMinutes) {
      const sums = newProbeSums();
      for (let m = b; m < end; m += MINUTE) {
        const row = byMinute.get(m);
        if (row) addInto(sums, row);
      }
      const counts = histogramOf(sums, P.latency);
      probeSeries[location]!.push({
        t: b,
        probes: sums[P.probes]!,
        ok: sums[P.ok]!,
        failed: sums[P.slow]! + sums[P.error]!,
        wrong_answer: sums[P.wrongAnswer]!,
        success_share: r4(share(sums[P.ok]!, sums[P.probes]!)),
        latency_ms: { p50: r1(quantile(counts, 0.5)), p95: r1(quantile(counts, 0.95)) },
      });
    }
  }

  const raw = await storage.rollups.instanceSums(keyId, range.from, range.to);
  const fleet = new Set<number>([...a.instances.map((s) => s.id), ...raw.keys()]);
  const instances = [...fleet]
    .map((id) => sources.get(id))
    .filter((s) => s !== undefined)
    .map((s) => {
      const r = raw.get(s.id);
      const st = a.states.get(s.id) ?? open.states.get(keyId)?.get(s.id);
      const calls = r?.calls ?? 0;
      const o = a.openPerSource.get(s.id);
      const f = {
        calls,
        error_share: r4(share(r?.failed ?? 0, calls)),
        slow_share: r4(share(r?.slow ?? 0, calls)),
        rejection_share: share(r?.rejected ?? 0, calls + (r?.rejected ?? 0)),
        open_share: o ? share(o.openMs, o.instanceMs) : 0,
      };
      const degraded = isClientDegraded(f, t);
      return {
        service: s.service, instance: s.instance, sdk: s.sdk, state: st?.state ?? null, state_since: st?.since ?? null,
        last_seen: r?.lastEnd ?? null, calls, failed: r?.failed ?? 0, error_share: f.error_share, slow_share: f.slow_share,
        rejected: r?.rejected ?? 0, retries: r?.retries ?? 0, degraded,
      };
    })
    .sort((x, y) => x.service.localeCompare(y.service) || x.instance.localeCompare(y.instance));

  const services = [...a.serviceSums].map(([id, sums]) => {
    const f = clientFigures(sums, { spanMs: range.to - range.from, openShare: null, instances: 0, services: 1, fallback: { invoked: 0, failed: 0 } }, t);
    return {
      service: names.get(id) ?? String(id),
      instances: a.instances.filter((s) => s.serviceId === id).length,
      calls: f.calls, error_share: f.error_share, slow_share: f.slow_share, rejected: f.rejected, retry_ratio: f.retry_ratio, degraded: f.degraded,
    };
  });

  const [config, transitions, servedChanges] = await Promise.all([
    storage.events.latestConfig(keyId),
    storage.events.keyTransitions(keyId, range.from, range.to, TRANSITIONS_LISTED) as Promise<KeyDetail['transitions']>,
    readServedChanges(storage, keyId, range.from, range.to),
  ]);

  return {
    key: a.info.key,
    window: range,
    step_ms: step,
    verdict: a.decision.verdict,
    hint: a.decision.hint,
    clients: a.clients,
    probes: a.probes,
    evidence: a.evidence,
    state: a.state,
    services,
    instances,
    config: config as KeyDetail['config'],
    fallbacks: await fallbackHealth(deps, keyId, config ? config.fallbacks : [], range),
    series,
    probe_series: probeSeries,
    transitions,
    served_changes: servedChanges,
  };
}

