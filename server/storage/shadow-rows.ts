/**
 * The shadow windows' SQL, engine-neutral (`?` placeholders; PostgreSQL numbers them), and
 * how their rows are summed per primary -> candidate pair. The sides are stored as the wire's
 * JSON and summed here: the rows of a week are few (one per instance, pair and reporting
 * interval with mirrored traffic), and the histograms merge onto the rollup bounds.
 */
import type { ShadowEvent, ShadowSide } from '@breakerbox/protocol';
import type { ShadowPairSums, ShadowSideSums } from './parts/shadow.ts';
import { addHistogram, emptyCounts } from './histogram.ts';
import { keyFromRow, regionColumn } from './key-rows.ts';

/** Insert of one shadow event (SQLite; PostgreSQL's UNNEST form takes the same columns). */
export const SHADOW_COLUMNS = [
  'key_id', 'source_id', 'candidate_provider', 'candidate_endpoint', 'candidate_model', 'candidate_region',
  'start', '"end"', 'pairs', 'dropped', 'primary_side', 'shadow_side',
] as const;

/** The column values of one event, in `SHADOW_COLUMNS` order. */
export function shadowColumns(keyId: number, sourceId: number, e: ShadowEvent): unknown[] {
  return [keyId, sourceId, e.candidate.provider, e.candidate.endpoint, e.candidate.model, regionColumn(e.candidate),
    e.start, e.end, e.pairs, e.dropped, JSON.stringify(e.primary), JSON.stringify(e.shadow)];
}

/** Windows ending in `[from, to)`, optionally of one primary key (bound NULL for all). */
export const SHADOW_WINDOWS = `SELECT w.key_id, w.candidate_provider AS provider, w.candidate_endpoint AS endpoint, w.candidate_model AS model,
    w.candidate_region AS region, w."end" AS end_ms, w.pairs, w.dropped, w.primary_side, w.shadow_side, v.name AS service
  FROM shadow_windows w JOIN sources s ON s.id = w.source_id JOIN services v ON v.id = s.service_id
  WHERE w."end" >= ? AND w."end" < ? AND (CAST(? AS BIGINT) IS NULL OR w.key_id = ?)`;

/** The arguments of `SHADOW_WINDOWS`. */
export function shadowWindowsArgs(from: number, to: number, keyId: number | undefined): unknown[] {
  return [from, to, keyId ?? null, keyId ?? null];
}

/** A row of `SHADOW_WINDOWS`. */
export interface ShadowRow {
  key_id: number;
  provider: string;
  endpoint: string;
  model: string;
  region: string;
  end_ms: number;
  pairs: number;
  dropped: number;
  primary_side: string;
  shadow_side: string;
  service: string;
}

function emptySide(): ShadowSideSums {
  return { ok: 0, errors: {}, refusals: 0, json: null, validation: null, latency: emptyCounts(), ttft: emptyCounts(), outputTokens: 0, costUsd: 0 };
}

function addSide(into: ShadowSideSums, s: ShadowSide): void {
  into.ok += s.ok;
  for (const [cls, n] of Object.entries(s.errors)) into.errors[cls as keyof ShadowSide['errors']] = (into.errors[cls as keyof ShadowSide['errors']] ?? 0) + (n ?? 0);
  into.refusals += s.refusals;
  if (s.json) {
    into.json ??= { checked: 0, valid: 0 };
    into.json.checked += s.json.checked;
    into.json.valid += s.json.valid;
  }
  if (s.validation) {
    into.validation ??= { checked: 0, passed: 0 };
    into.validation.checked += s.validation.checked;
    into.validation.passed += s.validation.passed;
  }
  addHistogram(into.latency, s.latency_ms);
  if (s.ttft_ms) addHistogram(into.ttft, s.ttft_ms);
  into.outputTokens += s.output_tokens;
  into.costUsd += s.cost_usd;
}

/** Sums rows of `SHADOW_WINDOWS` per (primary key, candidate). */
export function sumShadowRows(rows: readonly ShadowRow[]): ShadowPairSums[] {
  const pairs = new Map<string, ShadowPairSums & { serviceSet: Set<string> }>();
  for (const row of rows) {
    const keyId = Number(row.key_id);
    const id = `${keyId}\u0000${row.provider}\u0000${row.endpoint}\u0000${row.model}\u0000${row.region}`;
    let p = pairs.get(id);
    if (!p) {
      p = { keyId, candidate: keyFromRow(row), pairs: 0, dropped: 0, services: [], lastEnd: 0, primary: emptySide(), shadow: emptySide(), serviceSet: new Set() };
      pairs.set(id, p);
    }
    p.pairs += Number(row.pairs);
    p.dropped += Number(row.dropped);
    p.lastEnd = Math.max(p.lastEnd, Number(row.end_ms));
    p.serviceSet.add(row.service);
    addSide(p.primary, JSON.parse(row.primary_side) as ShadowSide);
    addSide(p.shadow, JSON.parse(row.shadow_side) as ShadowSide);
  }
  return [...pairs.values()].map(({ serviceSet, ...p }) => ({ ...p, services: [...serviceSet].sort() }));
}
