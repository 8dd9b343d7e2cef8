/**
 * The key's fleet judged part by part: services (or, with one service, instances) for the
 * `local` hint, and each service's own verdict — a service whose calls fail is hurt even
 * when the key's other callers are fine and dilute its totals (docs/alerts.md, "Every
 * incident that hurts pages").
 */
import type { InstanceSums, SourceInfo, Storage } from '../storage/storage.ts';
import type { KeySums } from './counters.ts';
import { clientFigures, isClientDegraded, share, type VerdictThresholds } from './figures.ts';
import type { OpenTime } from './open-share.ts';
import { decide, type Decision } from './rules.ts';
import type { SiblingProbes } from './sibling-probes.ts';
import type { ClientFigures, Hint, PartHealth, ProbeFigures, Verdict } from './types.ts';
import type { TimeRange } from './window.ts';

/** One service calling a key, judged on its own calls. */
export interface ServiceHealth {
  name: string;
  calls: number;
  failed: number;
  error_share: number | null;
  degraded: boolean;
  /** The service's own verdict over the key's probes (null when it is not degraded). */
  verdict: Verdict | null;
  hint: Hint | null;
  /** The service's own figures (with several services): what its verdict rests on, for the key's evidence. */
  figures?: ClientFigures;
  /** The service's own decision when it is degraded (with several services). */
  decision?: Decision;
}

/** A service's figures over the window: its sums and the open time of its instances. */
function serviceFigures(serviceId: number, sums: KeySums, range: TimeRange, instances: SourceInfo[], openPerSource: Map<number, OpenTime>, t: VerdictThresholds): ClientFigures {
  let openMs = 0;
  let instanceMs = 0;
  let count = 0;
  for (const s of instances) {
    if (s.serviceId !== serviceId) continue;
    count++;
    const o = openPerSource.get(s.id);
    openMs += o?.openMs ?? 0;
    instanceMs += o?.instanceMs ?? 0;
  }
  return clientFigures(sums, { spanMs: range.to - range.from, openShare: share(openMs, instanceMs), instances: count, services: 1, fallback: { invoked: 0, failed: 0 } }, t);
}

/**
 * Each service's health and, when degraded, its own verdict with the key's usable probes
 * (and the siblings' when the key has none). With one service it is the key's own. `held`:
 * the key's verdict while it waits for requested probes, which the services' take too.
 */
export function serviceHealth(
  names: Map<number, string>,
  services: Map<number, KeySums>,
  range: TimeRange,
  instances: SourceInfo[],
  openPerSource: Map<number, OpenTime>,
  probes: Record<string, ProbeFigures>,
  t: VerdictThresholds,
  siblings?: SiblingProbes,
  held?: Decision,
): ServiceHealth[] {
  return [...services]
    .map(([serviceId, sums]) => judgedService(names.get(serviceId) ?? String(serviceId), serviceFigures(serviceId, sums, range, instances, openPerSource, t), probes, t, siblings, held))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** One service judged on its own figures `f` over the key's usable probes (`held`: the key's verdict while it waits for probes). */
export function judgedService(name: string, f: ClientFigures, probes: Record<string, ProbeFigures>, t: VerdictThresholds, siblings?: SiblingProbes, held?: Decision): ServiceHealth {
  const own = f.degraded ? decide(f, probes, [], t, siblings) : null;
  // Held for requested probes: only a verdict of our own classes needs none.
  const d = own && held && !own.ownClasses ? held : own;
  return {
    name, calls: f.calls, failed: f.failed, error_share: f.error_share, degraded: f.degraded,
    verdict: d?.verdict ?? null, hint: d?.hint ?? null, figures: f, ...(d ? { decision: d } : {}),
  };
}

/**
 * The fleet split for the `local` hint: by service when several report the key, else by
 * instance from the raw windows of the last `instance_lookback_s` of the window.
 */
export async function fleetParts(
  // What it reads, named here rather than as analyse.ts's deps: analyse imports this file.
  deps: { storage: Pick<Storage, 'telemetry' | 'rollups'>; thresholds: VerdictThresholds },
  keyId: number,
  range: TimeRange,
  services: Map<number, KeySums>,
  instances: SourceInfo[],
  openPerSource: Map<number, OpenTime>,
): Promise<PartHealth[]> {
  const t = deps.thresholds;
  const names = await deps.storage.telemetry.services();
  if (services.size > 1) {
    return [...services].map(([serviceId, sums]) => {
      const f = serviceFigures(serviceId, sums, range, instances, openPerSource, t);
      return { name: names.get(serviceId) ?? String(serviceId), calls: f.calls, degraded: f.degraded };
    });
  }
  if (instances.length < 2) return [];
  const raw: Map<number, InstanceSums> = await deps.storage.rollups.instanceSums(keyId, Math.max(range.from, range.to - t.instance_lookback_s * 1000), range.to);
  return instances.map((s) => {
    const r = raw.get(s.id);
    const calls = r?.calls ?? 0;
    const o = openPerSource.get(s.id);
    const degraded = isClientDegraded(
      {
        calls,
        error_share: share(r?.failed ?? 0, calls),
        slow_share: share(r?.slow ?? 0, calls),
        rejection_share: share(r?.rejected ?? 0, calls + (r?.rejected ?? 0)),
        open_share: o ? share(o.openMs, o.instanceMs) : 0,
      },
      t,
    );
    return { name: s.instance, calls, degraded };
  });
}

