/**
 * The providers' own deprecation signals (issue 28): `Deprecation` (RFC 9745) and `Sunset`
 * (RFC 8594) headers on a key's answers, reported by the SDK and stored per key. Per model
 * (provider + model id, as the calendar is), the latest signal over its keys; a model with a
 * `Sunset` date and no calendar entry retires on that date, as if it were on the calendar —
 * an operator or shipped entry still comes first (an operator can correct a provider's date).
 */
import type { KeyInfo, ProviderSignal } from '../storage/storage.ts';
import type { Retirement, RetirementCalendar } from './calendar.ts';

/** A model's signal, over every key naming it: the latest dates, the answers that carried one. */
export interface ModelSignal {
  deprecationAt: number | null;
  sunsetAt: number | null;
  responses: number;
  lastSeen: number;
}

/** The key of a model in the signals map (`provider\nmodel`): one definition for the writers and the readers. */
export const modelId = (provider: string, model: string): string => `${provider}\n${model}`;

/** Per provider and model id, the latest signal of its keys (the key seen last gives the dates). */
export function modelSignals(keys: ReadonlyMap<number, KeyInfo>, signals: ReadonlyMap<number, ProviderSignal>): Map<string, ModelSignal> {
  const out = new Map<string, ModelSignal>();
  for (const [keyId, s] of signals) {
    const info = keys.get(keyId);
    if (!info) continue;
    const id = modelId(info.key.provider, info.key.model);
    const prev = out.get(id);
    const latest = !prev || s.lastSeen >= prev.lastSeen;
    out.set(id, {
      deprecationAt: latest ? s.deprecationAt : prev.deprecationAt,
      sunsetAt: latest ? s.sunsetAt : prev.sunsetAt,
      responses: (prev?.responses ?? 0) + s.responses,
      lastSeen: Math.max(prev?.lastSeen ?? 0, s.lastSeen),
    });
  }
  return out;
}

/** A date as the calendar writes it: a bare day at 00:00 UTC, else the instant to the second. */
export function calendarDate(at: number): string {
  const iso = new Date(at).toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : `${iso.slice(0, 19)}Z`;
}

/**
 * A model's signal in words: "sunset announced by the provider: 2027-01-14, seen on 40
 * responses" (with a `Deprecation` date too: "…; deprecated since 2026-06-01"), or without a
 * `Sunset`: "deprecated by the provider since 2026-06-01, seen on 40 responses".
 */
export function signalText(s: Pick<ModelSignal, 'deprecationAt' | 'sunsetAt' | 'responses'>): string {
  const seen = `seen on ${s.responses.toLocaleString('en-US')} response${s.responses === 1 ? '' : 's'}`;
  const deprecated = s.deprecationAt === null ? null : calendarDate(s.deprecationAt);
  if (s.sunsetAt === null) return deprecated ? `deprecated by the provider since ${deprecated}, ${seen}` : `deprecation signalled by the provider, ${seen}`;
  return `sunset announced by the provider: ${calendarDate(s.sunsetAt)}, ${seen}${deprecated ? `; deprecated since ${deprecated}` : ''}`;
}

/**
 * `calendar` with the provider-announced sunsets of `signals` for the models it has no entry
 * for. As large as the calendar plus the models that sent a `Sunset`, never as the traffic.
 */
export function withProviderSunsets(calendar: RetirementCalendar, signals: ReadonlyMap<string, ModelSignal>): RetirementCalendar {
  const announced = new Map<string, Retirement>();
  for (const [id, s] of signals) {
    if (s.sunsetAt === null) continue;
    const [provider, model] = id.split('\n') as [string, string];
    if (calendar.of(provider, model)) continue;
    announced.set(id, {
      provider, model, shutdown: calendarDate(s.sunsetAt), shutdownAt: s.sunsetAt, successor: null, link: null, source: 'provider', readOn: null,
      announced: { responses: s.responses, lastSeen: s.lastSeen },
    });
  }
  if (announced.size === 0) return calendar;
  return {
    entries: [...calendar.entries, ...announced.values()],
    of: (provider, model) => calendar.of(provider, model) ?? announced.get(modelId(provider, model)) ?? null,
  };
}

/** The calendar with the providers' sunsets, read from storage now. */
export async function effectiveCalendar(storage: { telemetry: { keys(): Promise<Map<number, KeyInfo>>; providerSignals(): Promise<Map<number, ProviderSignal>> } }, calendar: RetirementCalendar, keys?: Map<number, KeyInfo>): Promise<{ calendar: RetirementCalendar; signals: Map<string, ModelSignal> }> {
  const [known, stored] = await Promise.all([keys ?? storage.telemetry.keys(), storage.telemetry.providerSignals()]);
  const signals = modelSignals(known, stored);
  return { calendar: withProviderSunsets(calendar, signals), signals };
}
