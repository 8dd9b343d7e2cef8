/**
 * A model swapped behind its name (issue 39): the served version behind a key changes when a
 * probe (or an SDK call sample) names a `model_served` or `system_fingerprint` different from
 * the last one named for the key. Derived on read from the raw probe events and call samples
 * (nothing else is stored): the changes are
 * decided in event-time order, so a probe that arrives late lands where its `ts` puts it and
 * cannot invent a flip-flop; the same version seen again is no change. A field a probe does not
 * name (an Anthropic answer has no fingerprint, a failed probe names nothing) carries over.
 */
import type { ServedSighting, Storage } from '../storage/storage.ts';
import type { ServedChange, ServedVersion } from '../schemas/keys.ts';
import { clockTime } from './evidence.ts';

export type { ServedChange } from '../schemas/keys.ts';

/** How long before a range the version in force at its start is looked for. */
export const SERVED_BEFORE_MS = 24 * 3_600_000;
/** Changes listed for a key at most (the newest): a key whose locations are served different versions alternates. */
export const SERVED_CHANGES_LISTED = 100;

/**
 * The changes among `sightings` (oldest first) at or after `from`, starting from the version in
 * force `before`; sightings before `from` only set the version in force. Newest last, at most
 * `limit` (the newest kept).
 */
export function servedChanges(sightings: readonly ServedSighting[], from: number, limit = SERVED_CHANGES_LISTED, before: ServedVersion = { model_served: null, system_fingerprint: null }): ServedChange[] {
  const out = servedFold(sightings, from, before).changes;
  return out.length > limit ? out.slice(out.length - limit) : out;
}

/**
 * The one derivation of served changes: every change among `sightings` (oldest first) at or
 * after `from`, starting from `before`, and the version in force after the last sighting —
 * what the /metrics counter carries from one scrape to the next (server/metrics/served-change-counter.ts).
 */
export function servedFold(sightings: readonly ServedSighting[], from: number, before: ServedVersion): { changes: ServedChange[]; last: ServedVersion } {
  const last: ServedVersion = { ...before };
  const changes: ServedChange[] = [];
  for (const s of sightings) {
    const model = s.modelServed !== null && last.model_served !== null && s.modelServed !== last.model_served;
    const fingerprint = s.systemFingerprint !== null && last.system_fingerprint !== null && s.systemFingerprint !== last.system_fingerprint;
    const next: ServedVersion = { model_served: s.modelServed ?? last.model_served, system_fingerprint: s.systemFingerprint ?? last.system_fingerprint };
    if ((model || fingerprint) && s.ts >= from) changes.push({ ts: s.ts, seen_in: s.seenIn, by: s.by, from: { ...last }, to: next });
    last.model_served = next.model_served;
    last.system_fingerprint = next.system_fingerprint;
  }
  return { changes, last };
}

/** One key's served-model changes in `[from, to)`, the version in force looked for `SERVED_BEFORE_MS` before. */
export async function readServedChanges(storage: Pick<Storage, 'events'>, keyId: number, from: number, to: number): Promise<ServedChange[]> {
  const [before, sightings] = await Promise.all([storage.events.servedBefore(keyId, from, from - SERVED_BEFORE_MS), storage.events.servedSightings(keyId, from, to)]);
  return servedChanges(sightings, from, SERVED_CHANGES_LISTED, { model_served: before.modelServed, system_fingerprint: before.systemFingerprint });
}

const versionText = (v: ServedVersion): string =>
  [v.model_served, v.system_fingerprint !== null ? `(system_fingerprint ${v.system_fingerprint})` : null].filter((x) => x !== null).join(' ') || 'unknown';

/** Where a change was seen: "probe from eu-west", "call from drafts/pod-3". */
export const seenText = (c: ServedChange): string => `${c.seen_in} from ${c.by}`;

/** "served model changed from gpt-4o-2024-08-06 (system_fingerprint fp_a) to … at 14:02:05 UTC (probe from eu-west)". */
export function servedChangeSentence(c: ServedChange): string {
  return `served model changed from ${versionText(c.from)} to ${versionText(c.to)} at ${clockTime(c.ts)} (${seenText(c)})`;
}

/** A key whose evidence may name a served-model change: its id and the evidence list to extend. */
export interface SwapCitingKey {
  keyId: number;
  evidence: string[];
}

/**
 * Adds to each key's evidence, before the closing "why not" line, the served-model changes of
 * its probes in the `lookbackMs` before `to` (through `to`). Called only for keys whose verdict
 * is not healthy, after every verdict is decided: one read per such key. Returns the ids of the
 * keys whose evidence named a change.
 */
export async function citeServedChanges(storage: Pick<Storage, 'events'>, keys: readonly SwapCitingKey[], to: number, lookbackMs: number): Promise<number[]> {
  if (lookbackMs <= 0) return [];
  const cited: number[] = [];
  for (const k of keys) {
    const changes = await readServedChanges(storage, k.keyId, to - lookbackMs, to + 1);
    if (changes.length === 0) continue;
    const at = k.evidence.findIndex((l) => l.startsWith('why not '));
    k.evidence.splice(at < 0 ? k.evidence.length : at, 0, ...changes.map(servedChangeSentence));
    cited.push(k.keyId);
  }
  return cited;
}
