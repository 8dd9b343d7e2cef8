import { createHash } from 'node:crypto';
import type { KeyAnalysis } from './analyse.ts';
import { canonicalProvider, keyName } from './key-join.ts';
import { list } from './text.ts';
import { VERDICTS, type Hint, type Verdict } from './types.ts';
import type { Incident, IncidentCause } from '../schemas/verdicts.ts';

export type { IncidentCause, IncidentKey, Incident } from '../schemas/verdicts.ts';

/** Verdicts that make a key part of a provider incident. */
const PROVIDER_SIDE: readonly Verdict[] = ['provider_outage', 'provider_suspected', 'provider_degraded'];

const WORDS: Record<Incident['verdict'], string> = {
  provider_outage: 'provider outage',
  provider_suspected: 'provider suspected (probes did not confirm)',
  self_inflicted: 'self-inflicted',
  provider_degraded: 'provider degraded',
  insufficient_data: 'insufficient data',
  healthy: 'healthy',
  prober_unhealthy: 'prober unhealthy',
};

/** The incident id of a cause. */
export const incidentId = (cause: IncidentCause): string =>
  createHash('sha256').update(JSON.stringify(['incident', cause.kind, cause.name])).digest('hex').slice(0, 16);

const rank = (v: Incident['verdict']) => (v === 'prober_unhealthy' ? VERDICTS.length : VERDICTS.indexOf(v));
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The services a self-inflicted key is degraded on (each judged on its own calls); all that call it only when none is on its own. */
function servicesOf(a: KeyAnalysis): string[] {
  const degraded = a.services.filter((s) => s.degraded).map((s) => s.name);
  if (degraded.length > 0) return degraded;
  const local = a.decision.local?.degraded;
  const all = [...new Set(a.instances.map((s) => s.service))].sort();
  if (local && a.clients.services > 1) return all.filter((s) => local.includes(s));
  return all;
}

/**
 * The verdict a key takes in an incident: its own when decided; else, when some of its
 * services are degraded with a decided verdict of their own (their failures diluted by
 * healthy callers), the worst of theirs.
 */
export function hurtVerdict(a: KeyAnalysis): { verdict: Verdict; hint: Hint | null; services: string[] } | null {
  const own = a.decision.verdict;
  if (PROVIDER_SIDE.includes(own) || own === 'self_inflicted') return { verdict: own, hint: a.decision.hint, services: servicesOf(a) };
  const hurt = a.services.filter((s) => s.degraded && s.verdict !== null && HURT.includes(s.verdict));
  if (hurt.length === 0) return null;
  const worst = [...hurt].sort((x, y) => VERDICTS.indexOf(x.verdict!) - VERDICTS.indexOf(y.verdict!))[0]!;
  return { verdict: worst.verdict!, hint: worst.hint, services: hurt.map((s) => s.name) };
}

/**
 * Decided verdicts of clients that hurt: they page (alerts.rules.clients_degraded) and make an
 * incident. `provider_degraded` hurts only with degraded clients (every use checks them): the
 * provider slow from some locations (hint `slow`, issue 36).
 */
export const HURT: readonly Verdict[] = ['provider_outage', 'provider_suspected', 'self_inflicted', 'provider_degraded'];

/** The incidents behind a set of key analyses, worst first, and which incident each key and location belongs to. */
export interface IncidentIndex {
  incidents: Incident[];
  byKeyId: Map<number, Incident>;
  byLocation: Map<string, Incident>;
}

/**
 * Groups failing keys by cause: an unhealthy prober location takes the keys whose probes
 * it had (set aside); provider-side verdicts group by provider (aliases joined);
 * self-inflicted ones by the services they are degraded on. Healthy and undecided keys
 * are in no incident.
 */
export function groupIncidents(analyses: KeyAnalysis[], aliases: Record<string, string>): IncidentIndex {
  const groups = new Map<string, { cause: IncidentCause; members: KeyAnalysis[] }>();
  const add = (cause: IncidentCause, a: KeyAnalysis | null) => {
    const id = incidentId(cause);
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { cause, members: [] }));
    if (a) g.members.push(a);
  };
  const health = analyses[0]?.proberHealth ?? new Map();
  const byLocation = new Map<string, Incident>();
  for (const h of health.values()) {
    if (h.status !== 'unhealthy') continue;
    const cause: IncidentCause = { kind: 'prober', name: h.location };
    add(cause, null);
    for (const a of analyses) if (a.probes[h.location]?.set_aside) add(cause, a);
  }
  const verdictOf = new Map<KeyAnalysis, { verdict: Verdict; hint: Hint | null }>();
  for (const a of analyses) {
    const hurt = hurtVerdict(a);
    if (!hurt) continue;
    verdictOf.set(a, { verdict: hurt.verdict, hint: hurt.hint });
    if (PROVIDER_SIDE.includes(hurt.verdict)) add({ kind: 'provider', name: canonicalProvider(a.info.key.provider, aliases) }, a);
    else add({ kind: 'service', name: hurt.services.join(', ') || 'unknown service' }, a);
  }

  const byKeyId = new Map<number, Incident>();
  const incidents: Incident[] = [];
  for (const [id, { cause, members }] of groups) {
    const keys = members
      .map((a) => ({ key: a.info.key, ...(verdictOf.get(a) ?? { verdict: a.decision.verdict, hint: a.decision.hint }) }))
      .sort((x, y) => rank(x.verdict) - rank(y.verdict) || keyName(x.key).localeCompare(keyName(y.key)));
    const verdict: Incident['verdict'] = cause.kind === 'prober' ? 'prober_unhealthy' : keys[0]!.verdict;
    const hints = [...new Set(keys.filter((k) => k.verdict === verdict).map((k) => k.hint).filter((h): h is Hint => h !== null))];
    const hint = cause.kind === 'prober' ? null : hints.length === 1 ? hints[0]! : null;
    const models = new Set(keys.map((k) => k.key.model));
    const what =
      cause.kind === 'provider'
        ? models.size === 1 ? [...models][0]! : plural(models.size, 'model')
        : plural(keys.length, 'key');
    const title = `${cause.name}: ${what}, ${WORDS[verdict]}${hint ? ` (${hint})` : ''}`;
    const counts = new Map<string, number>();
    for (const k of keys) counts.set(k.verdict, (counts.get(k.verdict) ?? 0) + 1);
    const evidence: string[] = [];
    if (cause.kind === 'prober') {
      evidence.push(health.get(cause.name)?.reason ?? `prober location ${cause.name} is unhealthy`);
      evidence.push(`${plural(keys.length, 'key')} lost the probes of ${cause.name}; verdicts use the other locations`);
    } else {
      evidence.push(`${plural(keys.length, 'key')} of ${cause.kind} ${cause.name}: ${list([...counts].map(([v, n]) => `${v} on ${n}`))}`);
    }
    for (const a of members.slice(0, 5)) evidence.push(`${keyName(a.info.key)}: ${a.evidence.slice(0, 2).join('; ')}`);
    if (members.length > 5) evidence.push(`… and ${members.length - 5} more keys`);
    const incident: Incident = { id, cause, title, verdict, hint, keys, evidence };
    incidents.push(incident);
    if (cause.kind === 'prober') byLocation.set(cause.name, incident);
    else for (const a of members) byKeyId.set(a.info.id, incident);
  }
  incidents.sort((x, y) => rank(x.verdict) - rank(y.verdict) || y.keys.length - x.keys.length || x.title.localeCompare(y.title));
  return { incidents, byKeyId, byLocation };
}
