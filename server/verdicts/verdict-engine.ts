import type { BreakerKey } from '@breakerbox/protocol';
import type { Storage } from '../storage/storage.ts';
import { analyse, type KeyAnalysis } from './analyse.ts';
import { createAnalysisCache, type CacheStats } from './analysis-cache.ts';
import { createMinuteWindow } from './minute-window.ts';
import type { ChangeFeed } from '../storage/change-feed.ts';
import { costView, type CostView } from './cost-view.ts';
import type { VerdictThresholds } from './figures.ts';
import { groupIncidents, type Incident } from './incidents.ts';
import { keyDetail, type KeyDetail } from './key-detail.ts';
import { createOpenShareReader } from './open-share.ts';
import { probesView, type ProbesView } from './probes-view.ts';
import type { PendingProbesSource } from './pending-probes.ts';
import { VERDICTS, type VerdictEntry } from './types.ts';
import type { TimeRange } from './window.ts';

import type { KeyListEntry } from '../schemas/keys.ts';
import type { RetirementCalendar } from '../lifecycle/calendar.ts';
export type { KeyListEntry } from '../schemas/keys.ts';

/** The derived numbers and verdicts: logic over what the storage returns. */
export interface VerdictEngine {
  /** Full analyses (for alerts and /metrics), unordered. */
  analyse(range: TimeRange, options?: { keyId?: number; all?: boolean }): Promise<KeyAnalysis[]>;
  /** Keys with a verdict over the window, worst verdict first, then most calls. */
  verdicts(range: TimeRange): Promise<VerdictEntry[]>;
  /**
   * The entries `[offset, offset + limit)` of `verdicts(range)` and how many there are: the
   * evidence and alternative text (built on first read) is built for the page's rows only.
   */
  verdictsPage(range: TimeRange, slice: VerdictSlice): Promise<{ items: VerdictEntry[]; total: number }>;
  /** Every known key, by provider, endpoint, model, region. */
  keys(range: TimeRange): Promise<KeyListEntry[]>;
  /** Null when the key never reported. */
  keyDetail(key: BreakerKey, range: TimeRange, stepMs: number): Promise<KeyDetail | null>;
  cost(range: TimeRange, stepMs: number, operation?: string): Promise<CostView>;
  probes(range: TimeRange): Promise<ProbesView>;
  /** Keys failing for one cause, grouped (the board leads with these). */
  incidents(range: TimeRange): Promise<Incident[]>;
  /** How the incremental analysis answered (null: every pass is full). */
  cacheStats(): CacheStats | null;
  /** The rollup minutes kept in memory (null: none, every window reads the storage). */
  keptMinutes(): { minutes: number; rows: number } | null;
}

/** Minutes of rollup rows the incremental engine keeps: a 15 m window not on a minute covers 16. */
export const KEPT_MINUTES = 16;

const rank = (v: VerdictEntry['verdict']) => VERDICTS.indexOf(v);

/** Which rows of the ordered verdicts a page shows. */
export interface VerdictSlice {
  offset: number;
  limit: number;
}

/** Worst verdict first, then most calls, then the oldest key: the order of `/api/verdicts`. */
const verdictOrder = (a: KeyAnalysis, b: KeyAnalysis) =>
  rank(a.decision.verdict) - rank(b.decision.verdict) || b.clients.calls - a.clients.calls || a.info.id - b.info.id;

/** Shapes an analysis as a `/api/verdicts` entry. */
export function toVerdictEntry(a: KeyAnalysis): VerdictEntry {
  return {
    key: a.info.key, verdict: a.decision.verdict, hint: a.decision.hint, clients: a.clients, probes: a.probes, evidence: a.evidence,
    alternative: a.alternative, probe_power: a.decision.power ?? null, joined: a.joined, near_matches: a.nearMatches,
  };
}

/**
 * Creates the engine; `thresholds` is the resolved `verdicts` config section, `pending` the
 * probe-on-suspicion source (absent: verdicts never wait), `calendar` the retirement calendar
 * (absent: no model_retired hint), `feed` the storage's change feed (absent: every fleet-wide
 * analysis is a full pass; present: incremental, docs/verdict-engine.md).
 */
export function createVerdictEngine(
  storage: Pick<Storage, 'telemetry' | 'rollups' | 'events'> & Partial<Pick<Storage, 'samples' | 'engine'>>,
  thresholds: VerdictThresholds,
  pending?: PendingProbesSource,
  calendar?: RetirementCalendar,
  feed?: ChangeFeed,
): VerdictEngine {
  // The latest minutes in memory: a window up to KEPT_MINUTES long reads no per-minute rollup rows the feed has not seen change.
  // SQLite only: its sums are the ones repeated in memory (PostgreSQL adds floats in its own order).
  const minutes = feed && storage.engine === 'sqlite' ? createMinuteWindow(storage.rollups, feed, KEPT_MINUTES * 60_000) : undefined;
  const deps = {
    ...(calendar ? { calendar } : {}),
    ...(minutes ? { minutes } : {}),
    storage,
    openShare: createOpenShareReader(storage.events, { idleAfterMs: thresholds.open_idle_after_s * 1000 }),
    thresholds,
    ...(pending ? { pending } : {}),
  };

  const cache = feed ? createAnalysisCache(deps, feed, { maxWindows: 8, maxDirtyShare: 0.25 }) : null;
  // Every key over a window: through the kept analyses when there are; one key is always read directly.
  const fleet = (range: TimeRange, options: { keyId?: number; all?: boolean } = {}) =>
    cache && options.keyId === undefined ? cache.analyse(range, { all: options.all === true }) : analyse(deps, range, options);

  return {
    analyse: fleet,
    cacheStats: () => cache?.stats() ?? null,
    keptMinutes: () => minutes?.size() ?? null,
    async verdicts(range) {
      return (await fleet(range)).sort(verdictOrder).map(toVerdictEntry);
    },
    async verdictsPage(range, slice) {
      // Sorting is cheap; shaping an entry reads its evidence, which builds its text.
      const all = (await fleet(range)).sort(verdictOrder);
      return { items: all.slice(slice.offset, slice.offset + slice.limit).map(toVerdictEntry), total: all.length };
    },
    async keys(range) {
      return (await fleet(range, { all: true }))
        .sort((a, b) => {
          const x = a.info.key;
          const y = b.info.key;
          return (
            x.provider.localeCompare(y.provider) ||
            x.endpoint.localeCompare(y.endpoint) ||
            x.model.localeCompare(y.model) ||
            (x.region ?? '').localeCompare(y.region ?? '')
          );
        })
        .map((a) => {
          const probes = Object.values(a.probes);
          const probesTotal = probes.reduce((n, p) => n + p.probes, 0);
          const probesOk = probes.reduce((n, p) => n + p.ok, 0);
          const c = a.clients;
          return {
            key: a.info.key,
            first_seen: a.info.firstSeen,
            last_seen: a.info.lastSeen,
            services: [...new Set(a.instances.map((s) => s.service))].sort(),
            state: a.state,
            verdict: a.decision.verdict,
            hint: a.decision.hint,
            headline: {
              calls: c.calls,
              error_share: c.error_share,
              provider_error_share: c.provider_error_share,
              slow_share: c.slow_share,
              open_share: c.open_share,
              transitions_per_hour: c.transitions_per_hour,
              rejected: c.rejected,
              short_circuited: c.short_circuited,
              retry_ratio: c.retry_ratio,
              p95_ms: c.latency_ms.p95,
              probe_success_share: probesTotal > 0 ? Number((probesOk / probesTotal).toFixed(4)) : null,
              cost_usd: c.cost_usd,
              fallback_failed: c.fallback.failed,
            },
          };
        });
    },
    async keyDetail(key, range, stepMs) {
      const id = await storage.telemetry.findKeyId(key);
      if (id === undefined) return null;
      return keyDetail(deps, id, range, stepMs);
    },
    cost: (range, stepMs, operation) => costView(storage.rollups, range, stepMs, operation),
    probes: (range) => probesView(deps, range),
    incidents: async (range) => groupIncidents(await fleet(range), thresholds.provider_aliases).incidents,
  };
}
