/**
 * The suspicion trigger's rule (docs/alerts.md, "Probe on suspicion"): which keys' client
 * side is starting to degrade, read from the raw windows and transitions the SDK sends.
 * Pure: the trigger feeds it what storage returned and the server clock's time.
 */
import { PROVIDER_CLASSES } from '@breakerbox/protocol';
import type { Config } from '../config/schema.ts';
import type { RecentTransition, RecentWindow } from '../storage/storage.ts';

/** The `suspicion` config section. */
export type SuspicionConfig = Config['suspicion'];

/** A key whose client side is degrading, and since when. */
export interface Degradation {
  keyId: number;
  reason: 'breaker_open' | 'provider_errors';
  /** The start of the degradation: the first failing window of the run, or the breaker's first open. */
  startedAt: number;
}

const OPEN = new Set(['open', 'forced_open']);

/**
 * Breakers open for at least `min_open_s` without closing since (half-open in between
 * counts as still open): per key, the earliest such open episode's start. A breaker that
 * opened and closed again within seconds is a blip and never shows here.
 */
export function openBreakers(transitions: RecentTransition[], now: number, t: Pick<SuspicionConfig, 'min_open_s'>): Map<number, number> {
  const since = new Map<string, { keyId: number; at: number | null }>();
  for (const tr of transitions) {
    const id = `${tr.keyId}:${tr.sourceId}`;
    let s = since.get(id);
    if (!s) since.set(id, (s = { keyId: tr.keyId, at: null }));
    if (OPEN.has(tr.to)) s.at ??= tr.ts;
    else if (tr.to === 'closed') s.at = null;
  }
  const out = new Map<number, number>();
  for (const s of since.values()) {
    if (s.at === null || now - s.at < t.min_open_s * 1000) continue;
    out.set(s.keyId, Math.min(out.get(s.keyId) ?? Infinity, s.at));
  }
  return out;
}

const providerFailed = (w: RecentWindow) => PROVIDER_CLASSES.reduce((n, c) => n + (w.errors[c] ?? 0), 0);

/**
 * Provider-side errors rising: an instance whose last `min_failed_windows` windows each
 * failed at `provider_error_share` or more, with `min_calls` calls across those runs of the
 * key's instances. One failed window (of one instance or of all at once) is a blip.
 */
export function failingWindows(windows: RecentWindow[], t: Pick<SuspicionConfig, 'min_calls' | 'provider_error_share' | 'min_failed_windows'>): Map<number, number> {
  const bySource = new Map<string, RecentWindow[]>();
  for (const w of windows) {
    const id = `${w.keyId}:${w.sourceId}`;
    const list = bySource.get(id);
    if (list) list.push(w);
    else bySource.set(id, [w]);
  }
  const perKey = new Map<number, { calls: number; start: number }>();
  for (const list of bySource.values()) {
    list.sort((a, b) => a.end - b.end);
    // The run of failing windows at the end of this instance's list.
    let run = 0;
    let calls = 0;
    let start = Infinity;
    for (let i = list.length - 1; i >= 0; i--) {
      const w = list[i]!;
      if (w.calls === 0 || providerFailed(w) / w.calls < t.provider_error_share) break;
      run++;
      calls += w.calls;
      start = w.start;
    }
    if (run < t.min_failed_windows) continue;
    const keyId = list[0]!.keyId;
    const acc = perKey.get(keyId) ?? { calls: 0, start: Infinity };
    perKey.set(keyId, { calls: acc.calls + calls, start: Math.min(acc.start, start) });
  }
  const out = new Map<number, number>();
  for (const [keyId, acc] of perKey) if (acc.calls >= t.min_calls) out.set(keyId, acc.start);
  return out;
}

/** Every key degrading now, with its reason and start (the earlier of the two signals). */
export function detectDegradations(windows: RecentWindow[], transitions: RecentTransition[], now: number, t: SuspicionConfig): Degradation[] {
  const open = openBreakers(transitions, now, t);
  const failing = failingWindows(windows, t);
  const out: Degradation[] = [];
  for (const keyId of new Set([...open.keys(), ...failing.keys()])) {
    const o = open.get(keyId);
    const f = failing.get(keyId);
    const reason = o !== undefined ? 'breaker_open' : 'provider_errors';
    out.push({ keyId, reason, startedAt: Math.min(o ?? Infinity, f ?? Infinity) });
  }
  return out.sort((a, b) => a.keyId - b.keyId);
}
