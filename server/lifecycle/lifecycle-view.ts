import type { Config } from '../config/schema.ts';
import type { LifecycleStatus, LifecycleView, ModelInUse } from '../schemas/lifecycle.ts';
import type { Storage } from '../storage/storage.ts';
import type { RetirementCalendar } from './calendar.ts';
import { keysInUse } from './models-in-use.ts';
import { signalText } from './provider-signals.ts';

const DAY = 86_400_000;

/** Where a model stands against the model_retiring rule's thresholds. */
export function lifecycleStatus(daysLeft: number | null, rule: Pick<Config['alerts']['rules']['model_retiring'], 'warning_days' | 'critical_days'>): LifecycleStatus {
  if (daysLeft === null) return 'no_date';
  if (daysLeft <= 0) return 'retired';
  if (daysLeft <= rule.critical_days) return 'critical';
  if (daysLeft <= rule.warning_days) return 'warning';
  return 'scheduled';
}

/**
 * `GET /api/lifecycle`: every model called over the last `days` (per provider and model id,
 * over all its keys), with calls and cost per day, its services and its calendar entry —
 * soonest retirement first, models without a date last.
 */
export async function lifecycleView(
  storage: Pick<Storage, 'telemetry' | 'rollups'>,
  calendar: RetirementCalendar,
  rule: Config['alerts']['rules']['model_retiring'],
  now: number,
  days: number,
): Promise<LifecycleView> {
  const from = now - days * DAY;
  const byModel = new Map<string, ModelInUse & { serviceSet: Set<string> }>();
  for (const k of await keysInUse(storage, calendar, from, now)) {
    const id = `${k.key.provider}\n${k.key.model}`;
    let m = byModel.get(id);
    if (!m) {
      const r = k.retirement;
      m = {
        provider: k.key.provider, model: k.key.model, keys: [], calls: 0, cost_usd: 0, calls_per_day: 0, cost_per_day_usd: 0, services: [], serviceSet: new Set(),
        retirement: r && { shutdown: r.shutdown, shutdown_at: r.shutdownAt, successor: r.successor, link: r.link, matched: r.model, source: r.source, read_on: r.readOn },
        days_left: k.days_left, status: lifecycleStatus(k.days_left, rule),
        provider_signal: k.signal && {
          deprecation_at: k.signal.deprecationAt, sunset_at: k.signal.sunsetAt, responses: k.signal.responses, last_seen: k.signal.lastSeen, text: signalText(k.signal),
        },
      };
      byModel.set(id, m);
    }
    m.keys.push(k.key);
    m.calls += k.calls;
    m.cost_usd += k.cost_usd;
    for (const s of k.services) m.serviceSet.add(s);
  }
  const models = [...byModel.values()].map(({ serviceSet, ...m }) => ({
    ...m,
    cost_usd: Number(m.cost_usd.toFixed(6)),
    calls_per_day: Number((m.calls / days).toFixed(2)),
    cost_per_day_usd: Number((m.cost_usd / days).toFixed(6)),
    services: [...serviceSet].sort(),
  }));
  models.sort((a, b) => (a.retirement?.shutdown_at ?? Infinity) - (b.retirement?.shutdown_at ?? Infinity) || b.calls - a.calls || a.model.localeCompare(b.model));
  const configured = calendar.entries.filter((e) => e.source === 'config').length;
  return {
    window: { from, to: now }, days, warning_days: rule.warning_days, critical_days: rule.critical_days, models,
    calendar: { configured, shipped: calendar.entries.length - configured },
  };
}
