import { api, ApiFailure } from '../api/client.ts';
import type { Alert, BreakerKey, Hint, Incident, KeyEntry, PassthroughEntry, ProbeFigures, Verdict, VerdictEntry } from '../api/types.ts';
import { keyId, VERDICT_RANK } from '../format.ts';
import { rangeToApi, type TimeRange } from '../time-range.ts';

/** One tile of the board: what /api/keys and /api/verdicts say about a key, joined. */
export interface Tile {
  id: string;
  key: BreakerKey;
  verdict: Verdict;
  hint: Hint | null;
  /** The key's /api/keys entry; only its key and span when /api/verdicts knows a key /api/keys did not list. */
  entry: Pick<KeyEntry, 'key' | 'first_seen' | 'last_seen'> & Partial<KeyEntry>;
  figures: VerdictEntry | undefined;
  probes: [string, ProbeFigures][];
  alerts: Alert[];
}

/** The board's data, fetched together so a refresh shows one consistent picture. */
export interface BoardData {
  /** Keys failing for one cause, worst first: what the board leads with. */
  incidents: Incident[];
  tiles: Tile[];
  firing: Alert[];
  /** False when the server has no verdicts API (older collector): tiles show keys only. */
  hasVerdicts: boolean;
  /** Requests the SDKs forwarded unprotected in the range (empty from an older collector). */
  passthrough: PassthroughEntry[];
}

/** Treats a missing endpoint as "not available", anything else as a failure. */
async function optional<T>(promise: Promise<T>): Promise<T | undefined> {
  try {
    return await promise;
  } catch (err) {
    if (err instanceof ApiFailure && err.kind === 'missing') return undefined;
    throw err;
  }
}

const openRank = (t: Tile) => (t.entry.state?.summary === 'open' ? 0 : t.entry.state?.summary === 'half_open' ? 1 : 2);

/** Worst first: verdict, then open breakers, then open share, error share and volume. */
export function compareTiles(a: Tile, b: Tile): number {
  return (
    VERDICT_RANK[a.verdict] - VERDICT_RANK[b.verdict] ||
    openRank(a) - openRank(b) ||
    (b.figures?.clients.open_share ?? b.entry.headline?.open_share ?? 0) - (a.figures?.clients.open_share ?? a.entry.headline?.open_share ?? 0) ||
    (b.figures?.clients.error_share ?? b.entry.headline?.error_share ?? 0) - (a.figures?.clients.error_share ?? a.entry.headline?.error_share ?? 0) ||
    (b.figures?.clients.calls ?? b.entry.headline?.calls ?? 0) - (a.figures?.clients.calls ?? a.entry.headline?.calls ?? 0) ||
    a.id.localeCompare(b.id)
  );
}

/** Loads keys, verdicts and firing alerts for `range` and joins them into sorted tiles. */
export async function loadBoard(range: TimeRange, signal: AbortSignal): Promise<BoardData> {
  const query = rangeToApi(range);
  const [keys, verdicts, alerts, incidents] = await Promise.all([
    api('GET /api/keys', { query, signal }),
    optional(api('GET /api/verdicts', { query, signal })),
    optional(api('GET /api/alerts', { query: { state: 'firing' }, signal })),
    optional(api('GET /api/incidents', { query, signal })),
  ]);
  const byKey = new Map<string, VerdictEntry>();
  for (const v of verdicts?.verdicts ?? []) byKey.set(keyId(v.key), v);
  const alertsByKey = new Map<string, Alert[]>();
  for (const alert of alerts?.alerts ?? []) {
    if (!alert.key) continue;
    const id = keyId(alert.key);
    alertsByKey.set(id, [...(alertsByKey.get(id) ?? []), alert]);
  }
  const seen = new Set<string>();
  const tiles: Tile[] = [];
  const add = (key: BreakerKey, entry: KeyEntry | undefined) => {
    const id = keyId(key);
    if (seen.has(id)) return;
    seen.add(id);
    const figures = byKey.get(id);
    tiles.push({
      id,
      key,
      verdict: figures?.verdict ?? entry?.verdict ?? 'insufficient_data',
      hint: figures ? figures.hint : (entry?.hint ?? null),
      entry: entry ?? { key, first_seen: 0, last_seen: 0 },
      figures,
      probes: Object.entries(figures?.probes ?? {}).sort(([a], [b]) => a.localeCompare(b)),
      alerts: alertsByKey.get(id) ?? [],
    });
  };
  for (const entry of keys.keys) add(entry.key, entry);
  // A key can show up in verdicts before the keys listing catches up (probe-only keys).
  for (const v of verdicts?.verdicts ?? []) add(v.key, undefined);
  tiles.sort(compareTiles);
  if (typeof performance !== 'undefined') performance.mark('bb:board-data');
  return { incidents: incidents?.incidents ?? [], tiles, firing: alerts?.alerts ?? [], hasVerdicts: verdicts !== undefined, passthrough: keys.passthrough ?? [] };
}
