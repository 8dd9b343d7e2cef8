/**
 * The suspicion trigger's rule (docs/alerts.md, "Probe on suspicion"): which keys' client
 * side is starting to degrade, read from the raw windows (as runs, window-tails.ts) and
 * transitions the SDK sends. Pure: the trigger feeds it what it read and the server clock's time.
 */
import type { Config } from '../config/schema.ts';
import type { RecentTransition } from '../storage/storage.ts';
import type { WindowRun } from './window-tails.ts';

/** The `suspicion` config section. */
export type SuspicionConfig = Config['suspicion'];

/** A key whose client side is degrading, and since when. */
export interface Degradation {
  keyId: number;
  reason: 'breaker_open' | 'provider_errors' | 'instances_failing';
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

/**
 * Provider-side errors rising: an instance whose last `min_failed_windows` windows each
 * failed at `provider_error_share` or more (its run, see window-tails.ts), with `min_calls`
 * calls across those runs of the key's instances. One failed window of one instance is a blip.
 */
export function failingWindows(runs: Iterable<WindowRun>, t: Pick<SuspicionConfig, 'min_calls' | 'min_failed_windows'>): Map<number, number> {
  return runsOver(runs, t.min_calls, (w) => w.length >= t.min_failed_windows);
}

/**
 * Provider-side errors on several instances at once: `min_instances` instances of a key each
 * in a run of failing windows (one window is enough: the SDK reports a window's failure onset
 * at once), with `min_calls` calls across those runs. One instance's blip never triggers;
 * the fleet failing together is how an outage begins.
 */
export function failingInstances(runs: Iterable<WindowRun>, t: Pick<SuspicionConfig, 'min_calls' | 'min_instances'>): Map<number, number> {
  const instances = new Map<number, number>();
  const all: WindowRun[] = [];
  for (const r of runs) {
    instances.set(r.keyId, (instances.get(r.keyId) ?? 0) + 1);
    all.push(r);
  }
  return runsOver(all, t.min_calls, (_w, keyId) => (instances.get(keyId) ?? 0) >= t.min_instances);
}

/** Per key, the start of the runs that pass `counts`, when they hold at least `minCalls` calls. */
function runsOver(runs: Iterable<WindowRun>, minCalls: number, counts: (windows: WindowRun['windows'], keyId: number) => boolean): Map<number, number> {
  const perKey = new Map<number, { calls: number; start: number }>();
  for (const { keyId, windows } of runs) {
    if (!counts(windows, keyId)) continue;
    let calls = 0;
    let start = Infinity;
    for (const w of windows) {
      calls += w.calls;
      start = Math.min(start, w.start);
    }
    const acc = perKey.get(keyId) ?? { calls: 0, start: Infinity };
    perKey.set(keyId, { calls: acc.calls + calls, start: Math.min(acc.start, start) });
  }
  const out = new Map<number, number>();
  for (const [keyId, acc] of perKey) if (acc.calls >= minCalls) out.set(keyId, acc.start);
  return out;
}

/** Every key degrading now, with its reason and start (the earlier of the two signals). */
export function detectDegradations(runs: Iterable<WindowRun>, transitions: RecentTransition[], now: number, t: SuspicionConfig): Degradation[] {
  const open = openBreakers(transitions, now, t);
  const list = [...runs];
  const failing = failingWindows(list, t);
  const together = failingInstances(list, t);
  const out: Degradation[] = [];
  for (const keyId of new Set([...open.keys(), ...failing.keys(), ...together.keys()])) {
    const o = open.get(keyId);
    const f = failing.get(keyId);
    const i = together.get(keyId);
    const reason = o !== undefined ? 'breaker_open' : f !== undefined ? 'provider_errors' : 'instances_failing';
    out.push({ keyId, reason, startedAt: Math.min(o ?? Infinity, f ?? Infinity, i ?? Infinity) });
  }
  return out.sort((a, b) => a.keyId - b.keyId);
}
