/**
 * A provider's other keys as evidence (docs/alerts.md, "Sibling probes"): a key nobody
 * probes, whose clients fail with provider-side classes, is judged with the probes of the
 * same provider's other keys (same canonical provider and, when the key has one, region).
 * Failing from every location, they make it a provider verdict too; healthy, they say
 * nothing against it (health is a property of the model, not the host).
 */
import type { BreakerKey } from '@breakerbox/protocol';
import type { KeyInfo } from '../storage/storage.ts';
import { canonicalProvider, keyName } from './key-join.ts';
import { list, num } from './text.ts';
import type { ProbeFigures } from './types.ts';

/** What the siblings' usable probes say, location by location. */
export interface SiblingProbes {
  /** failing: every location failing; partial: some; healthy: none. */
  side: 'failing' | 'partial' | 'healthy';
  /** The sibling keys with usable probes. */
  keys: BreakerKey[];
  /** Locations where every sibling probed there is failing. */
  failing: string[];
  /** Locations where at least one sibling is served. */
  ok: string[];
  /** Recent probes over those keys and locations, and how many failed (the strength of the evidence). */
  probes: number;
  failed: number;
}

/**
 * The siblings' verdict-ready probes for key `id`, or undefined when it has none. `usable`
 * gives a key's locations with the set-aside ones removed; `exclude` the key's own alias group.
 */
export function siblingProbes(
  id: number,
  keys: Map<number, KeyInfo>,
  usable: (id: number) => Record<string, ProbeFigures> | undefined,
  probed: Iterable<number>,
  aliases: Record<string, string>,
  exclude: number[],
): SiblingProbes | undefined {
  const self = keys.get(id)?.key;
  if (!self) return undefined;
  const provider = canonicalProvider(self.provider, aliases);
  const found: { key: BreakerKey; probes: Record<string, ProbeFigures> }[] = [];
  for (const other of probed) {
    if (other === id || exclude.includes(other)) continue;
    const key = keys.get(other)?.key;
    if (!key || canonicalProvider(key.provider, aliases) !== provider) continue;
    if (self.region && (key.region ?? '') !== self.region) continue;
    const probes = usable(other);
    if (probes && Object.values(probes).some((f) => f.status === 'failing' || f.status === 'ok')) found.push({ key, probes });
  }
  if (found.length === 0) return undefined;
  const byLocation = new Map<string, { failing: number; ok: number }>();
  let probes = 0;
  let failed = 0;
  for (const s of found) {
    for (const [location, f] of Object.entries(s.probes)) {
      if (f.status !== 'failing' && f.status !== 'ok') continue;
      let tally = byLocation.get(location);
      if (!tally) byLocation.set(location, (tally = { failing: 0, ok: 0 }));
      tally[f.status === 'failing' ? 'failing' : 'ok']++;
      probes += f.recent.probes;
      failed += f.recent.failed;
    }
  }
  const locations = [...byLocation.keys()].sort();
  const failing = locations.filter((l) => byLocation.get(l)!.ok === 0);
  const ok = locations.filter((l) => byLocation.get(l)!.ok > 0);
  const side = ok.length === 0 ? 'failing' : failing.length > 0 ? 'partial' : 'healthy';
  const order = (a: BreakerKey, b: BreakerKey) => a.endpoint.localeCompare(b.endpoint) || a.model.localeCompare(b.model) || (a.region ?? '').localeCompare(b.region ?? '');
  return { side, keys: found.map((s) => s.key).sort(order), failing, ok, probes, failed };
}

/** "40 of 40 recent probes of mistral/chat/codestral-latest and … failed from eu-west and us-east": the strength of sibling evidence. */
export function siblingText(s: SiblingProbes): string {
  const where = s.side === 'failing' ? `failing from every location (${list(s.failing)})` : s.side === 'partial' ? `failing from ${list(s.failing)}, served from ${list(s.ok)}` : `served from ${list(s.ok)}`;
  return `${num(s.failed)} of ${num(s.probes)} recent probes of ${list(s.keys.map(keyName))} failed, ${where}`;
}

