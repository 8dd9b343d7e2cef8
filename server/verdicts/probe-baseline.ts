/**
 * What a key's probe latency is judged against (issue 36, `slow-probes.ts`): each location's
 * own probes over `slow_probe_lookback_s` before the window (minute or hour rollups, as the
 * span plans them), the latency ceiling the clients declare for the key (its latest config
 * event), and the breakers that opened on `slow_calls` in the window. Read per key, and only
 * for degraded clients that show a latency signal, so an ordinary pass costs nothing.
 */
import { quantile } from '../storage/histogram.ts';
import type { Storage } from '../storage/storage.ts';
import { addInto, histogramOf, newProbeSums, P, type ProbeSums } from './counters.ts';
import type { VerdictThresholds } from './figures.ts';
import type { ClientFigures, ProbeFigures } from './types.ts';
import { floorMinute, type TimeRange } from './window.ts';

/** The most transitions read to count the window's `slow_calls` opens. */
const MAX_TRANSITIONS = 5000;

/** True when the latency inputs are worth a read: degraded clients with slow calls, timeouts, rejections or opens, and an ok probe location. */
export function wantsLatency(c: ClientFigures, usable: Record<string, ProbeFigures>): boolean {
  if (!c.degraded) return false;
  if (!Object.values(usable).some((f) => f.status === 'ok')) return false;
  return c.slow > 0 || (c.errors.timeout ?? 0) > 0 || c.rejected > 0 || c.opens > 0;
}

/** The clients' declared `latency_ceiling_ms` from a config event's settings; null when absent or not a positive number. */
export function declaredCeiling(settings: Record<string, unknown> | undefined): number | null {
  const v = settings?.latency_ceiling_ms;
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : null;
}

/**
 * Reads the baseline of `ids` (the key and the keys joined to it by aliases) and attaches it
 * to each ok location of `usable` and `probes` (`ProbeFigures.baseline`); returns the
 * window's `slow_calls` opens of `keyId`.
 */
export async function attachLatencyInputs(
  storage: Pick<Storage, 'rollups' | 'events'>,
  keyId: number,
  ids: number[],
  range: TimeRange,
  usable: Record<string, ProbeFigures>,
  probes: Record<string, ProbeFigures>,
  t: VerdictThresholds,
): Promise<number> {
  const end = floorMinute(range.from);
  const first = floorMinute(range.from - t.slow_probe_lookback_s * 1000);
  const [sums, config, transitions] = await Promise.all([
    Promise.all(ids.map((id) => storage.rollups.probeSums(first, end, id))),
    storage.events.latestConfig(keyId),
    storage.events.keyTransitions(keyId, range.from, range.to, MAX_TRANSITIONS),
  ]);
  const byLocation = new Map<string, ProbeSums>();
  for (const perKey of sums) {
    for (const location of perKey.values()) {
      for (const [name, s] of location) {
        let acc = byLocation.get(name);
        if (!acc) byLocation.set(name, (acc = newProbeSums()));
        addInto(acc, s);
      }
    }
  }
  const ceiling = declaredCeiling(config?.settings);
  for (const [location, f] of Object.entries(usable)) {
    if (f.status !== 'ok') continue;
    const s = byLocation.get(location);
    const p50 = s ? quantile(histogramOf(s, P.latency), 0.5) : null;
    const baseline = { p50: p50 === null ? null : Number(p50.toFixed(1)), probes: s ? s[P.probes]! : 0, lookback_s: t.slow_probe_lookback_s, client_ceiling_ms: ceiling };
    usable[location] = { ...f, baseline };
    probes[location] = usable[location]!;
  }
  return transitions.filter((x) => x.to === 'open' && x.reason === 'slow_calls').length;
}
