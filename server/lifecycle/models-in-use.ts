import type { BreakerKey } from '@breakerbox/protocol';
import type { Storage } from '../storage/storage.ts';
import { K } from '../verdicts/counters.ts';
import { floorMinute } from '../verdicts/window.ts';
import { daysLeft, type Retirement, type RetirementCalendar } from './calendar.ts';
import { effectiveCalendar, modelId, type ModelSignal } from './provider-signals.ts';

/** One key called over the span, with its calendar entry. */
export interface KeyInUse {
  keyId: number;
  key: BreakerKey;
  calls: number;
  cost_usd: number;
  /** Names of the services that called it, sorted. */
  services: string[];
  retirement: Retirement | null;
  /** Whole days until its model retires (≤ 0: retired); null without a calendar entry. */
  days_left: number | null;
  /** The provider's own deprecation signal for its model (latest over the model's keys); null when none arrived. */
  signal: ModelSignal | null;
}

/**
 * Every key with calls in `[from, to)`, per key, from the rollups (hourly aggregates where
 * built, so a 7-day span reads a few hundred rows per key, not every window). The calendar
 * is completed with the providers' `Sunset` dates for models it has no entry for. With
 * `datedOnly`, only keys whose model has a calendar entry — and when no known key has one
 * (the common case: the alert rule and /metrics ask at every pass), the rollups are not read.
 */
export async function keysInUse(storage: Pick<Storage, 'telemetry' | 'rollups'>, configured: RetirementCalendar, from: number, to: number, options: { datedOnly?: boolean } = {}): Promise<KeyInUse[]> {
  const keys = await storage.telemetry.keys();
  const { calendar, signals } = await effectiveCalendar(storage, configured, keys);
  const dated = new Set<number>();
  for (const [id, info] of keys) if (calendar.of(info.key.provider, info.key.model)) dated.add(id);
  if (options.datedOnly && dated.size === 0) return [];
  const [sums, names] = await Promise.all([storage.rollups.keyServiceSums(floorMinute(from), to), storage.telemetry.services()]);
  const out: KeyInUse[] = [];
  for (const [keyId, perService] of sums) {
    const info = keys.get(keyId);
    if (!info || (options.datedOnly && !dated.has(keyId))) continue;
    let calls = 0;
    let cost = 0;
    const services: string[] = [];
    for (const [serviceId, s] of perService) {
      calls += s[K.calls]!;
      cost += s[K.cost]!;
      if (s[K.calls]! > 0) services.push(names.get(serviceId) ?? String(serviceId));
    }
    if (calls === 0) continue;
    const retirement = calendar.of(info.key.provider, info.key.model);
    const signal = signals.get(modelId(info.key.provider, info.key.model)) ?? null;
    out.push({ keyId, key: info.key, calls, cost_usd: cost, services: services.sort(), retirement, days_left: retirement ? daysLeft(retirement, to) : null, signal });
  }
  return out.sort((a, b) => a.key.provider.localeCompare(b.key.provider) || a.key.model.localeCompare(b.key.model) || a.keyId - b.keyId);
}
