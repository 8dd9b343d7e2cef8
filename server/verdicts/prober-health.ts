import type { VerdictThresholds } from './figures.ts';
import type { KeyInfo } from '../storage/storage.ts';
import type { ProbeFigures } from './types.ts';

import type { LocationHealth } from '../schemas/probes.ts';
export type { LocationHealth } from '../schemas/probes.ts';

/** Recent failed probes per location, and how many of them were network or timeout errors. */
export type FailureClasses = Map<string, { failed: number; network: number }>;

const pct = (x: number) => `${Math.round(x * 100)}%`;

/**
 * A location is a prober problem when its probes fail across many keys and several
 * providers at once, mostly with connection classes: at least `prober_min_keys` failing keys
 * spanning `prober_min_providers` providers, `prober_failing_share` of its keys failing, and
 * `prober_network_share` of its failed probes network or timeout errors. Independent
 * providers rarely fail together; a host that lost its network fails them all.
 */
export function proberHealth(
  figures: Map<number, Record<string, ProbeFigures>>,
  keys: Map<number, KeyInfo>,
  classes: () => FailureClasses,
  t: VerdictThresholds,
): Map<string, LocationHealth> {
  const per = new Map<string, { keys: number; failing: number; providers: Set<string> }>();
  for (const [keyId, byLocation] of figures) {
    const info = keys.get(keyId);
    if (!info) continue;
    for (const [location, f] of Object.entries(byLocation)) {
      if (f.status !== 'ok' && f.status !== 'failing') continue;
      let entry = per.get(location);
      if (!entry) per.set(location, (entry = { keys: 0, failing: 0, providers: new Set() }));
      entry.keys++;
      if (f.status === 'failing') {
        entry.failing++;
        entry.providers.add(info.key.provider);
      }
    }
  }
  const out = new Map<string, LocationHealth>();
  // The class mix reads raw probes: only when a location passes the rollup criteria.
  const suspect = (e: { keys: number; failing: number; providers: Set<string> }) =>
    e.failing >= t.prober_min_keys && e.providers.size >= t.prober_min_providers && e.failing / e.keys >= t.prober_failing_share;
  let mix: FailureClasses | null = null;
  for (const [location, e] of [...per].sort(([a], [b]) => a.localeCompare(b))) {
    const c = e.failing > 0 && suspect(e) ? (mix ??= classes()).get(location) : undefined;
    const networkShare = c && c.failed > 0 ? Number((c.network / c.failed).toFixed(4)) : null;
    const providers = [...e.providers].sort();
    const unhealthy = suspect(e) && (networkShare ?? 0) >= t.prober_network_share;
    out.set(location, {
      location,
      status: unhealthy ? 'unhealthy' : 'healthy',
      keys: e.keys,
      failing_keys: e.failing,
      failing_providers: providers,
      network_share: networkShare,
      reason: unhealthy
        ? `prober location ${location} is unhealthy: ${e.failing} of ${e.keys} keys failing across ${providers.length} providers (${providers.join(', ')}), ` +
          `${pct(networkShare ?? 0)} of its recent failed probes network/timeout — its probes are set aside`
        : null,
    });
  }
  return out;
}

/**
 * Prober health, reading the raw probes' failure classes only when a location passes the
 * rollup criteria: a first pass over the rollup figures says whether it needs them.
 */
export async function proberHealthOf(
  figures: Map<number, Record<string, ProbeFigures>>,
  keys: Map<number, KeyInfo>,
  read: () => Promise<FailureClasses>,
  t: VerdictThresholds,
): Promise<Map<string, LocationHealth>> {
  let wanted = false;
  const first = proberHealth(figures, keys, () => ((wanted = true), new Map()), t);
  if (!wanted) return first;
  const classes = await read();
  return proberHealth(figures, keys, () => classes, t);
}
