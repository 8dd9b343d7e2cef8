import { keyId, type BreakerKey, type TelemetryBatch } from '@breakerbox/protocol';
import { BreakerboxError } from '../errors.ts';
import type { LimitName } from './limit-counters.ts';

/** The `ingest.keys` config section. */
export interface KeyLimitSettings {
  new_per_minute_per_token: number;
  new_per_minute_per_source: number;
  live_per_token: number;
  live_per_source: number;
  live_window_s: number;
}

/** A distinct key of a batch, with the path of its first occurrence. */
export interface BatchKey {
  key: BreakerKey;
  path: string;
  /** True when no such key is stored yet. */
  isNew: boolean;
}

/** The keys one source reports in a request (protocol v1: one; OTLP: one per resource). */
export interface KeyGroup {
  source: { service: string; instance: string };
  keys: Map<string, BatchKey>;
}

/** A request's admission: call `commit` once it is stored, so the keys count. */
export interface KeyAdmission {
  /** Keys refused under `partial`, by key id, with the limit that refused each and why. */
  refused: Map<string, { limit: LimitName; reason: string }>;
  commit(): void;
}

interface Scope {
  /** Live keys: last time each was reported through this scope. */
  live: Map<string, number>;
  windowStart: number;
  newInWindow: number;
  lastUsed: number;
}

interface ScopeLimits {
  newName: LimitName;
  newCap: number;
  liveName: LimitName;
  liveCap: number;
  scope: 'token' | 'source';
}

const MINUTE = 60_000;

/** The distinct keys of a batch (tasks events have none), each with the path of its first event. */
export function batchKeys(batch: TelemetryBatch, isStored: (key: BreakerKey) => boolean): Map<string, BatchKey> {
  const keys = new Map<string, BatchKey>();
  batch.events.forEach((e, i) => {
    if (e.type === 'tasks') return;
    const id = keyId(e.key);
    if (!keys.has(id)) keys.set(id, { key: e.key, path: `/events/${i}/key`, isNew: !isStored(e.key) });
  });
  return keys;
}

/**
 * Caps on breaker keys per ingest token and per source (service + instance): how many new
 * keys (never stored before) a scope may create per minute (429 with Retry-After: waiting
 * helps), and how many distinct keys it may report within the live window (400: a sender
 * minting keys from request data will not get under the cap by retrying). One token's
 * keys never count against another's. State is per scope and swept as scopes go idle.
 *
 * Protocol v1 refuses the whole batch. OTLP asks for `partial`: the keys a retry cannot
 * bring under a cap (live caps, more new keys than a minute allows) are refused one by one
 * in request order and the rest is stored, answered as OTLP's partial success; only the
 * per-minute rate, which waiting clears, still refuses the whole request with a 429.
 */
export function createKeyLimiter(settings: KeyLimitSettings, onRefuse: (limit: LimitName) => void) {
  const liveMs = settings.live_window_s * 1000;
  const scopes = new Map<string, Scope>();
  let lastSweep = 0;

  const scopeOf = (id: string, now: number): Scope => {
    let scope = scopes.get(id);
    if (!scope) {
      scope = { live: new Map(), windowStart: now - (now % MINUTE), newInWindow: 0, lastUsed: now };
      scopes.set(id, scope);
    }
    scope.lastUsed = now;
    return scope;
  };

  const sweep = (now: number) => {
    if (now - lastSweep < MINUTE) return;
    lastSweep = now;
    for (const [id, scope] of scopes) {
      if (now - scope.lastUsed > liveMs) {
        scopes.delete(id);
        continue;
      }
      for (const [k, at] of scope.live) if (now - at > liveMs) scope.live.delete(k);
    }
  };

  /** Checks `keys` (minus those already refused) against one scope; returns the new keys it admits. */
  const check = (scope: Scope, keys: Map<string, BatchKey>, now: number, who: string, limits: ScopeLimits, refused: KeyAdmission['refused'] | null): number => {
    if (now - scope.windowStart >= MINUTE) {
      scope.windowStart = now - (now % MINUTE);
      scope.newInWindow = 0;
    }
    const refuse = (id: string, limit: LimitName, reason: string) => {
      if (!refused) return false;
      refused.set(id, { limit, reason });
      return true;
    };
    const liveLimit = `ingest.keys.live_per_${limits.scope}`;
    const newLimit = `ingest.keys.new_per_minute_per_${limits.scope}`;
    let live = scope.live.size;
    let fresh = 0;
    let liveHit = false;
    let newHit = false;
    for (const [id, k] of keys) {
      if (refused?.has(id)) continue;
      const at = scope.live.get(id);
      if (at === undefined && live + 1 > limits.liveCap) {
        liveHit = true;
        if (refuse(id, limits.liveName, `keys over ${liveLimit} (${limits.liveCap} within ${settings.live_window_s} s for ${who})`)) continue;
        onRefuse(limits.liveName);
        throw new BreakerboxError(
          'BB_ERR_INGEST_TOO_MANY_KEYS',
          `${who} would report more than ${limits.liveCap} distinct keys within ${settings.live_window_s} s (${liveLimit}); keys must not be minted from request data`,
          { path: k.path },
        );
      }
      if (k.isNew && fresh + 1 > limits.newCap) {
        // Waiting cannot help a request that alone creates more keys than a minute allows.
        newHit = true;
        if (refuse(id, limits.newName, `new keys over ${newLimit} (${limits.newCap} a minute for ${who})`)) continue;
        onRefuse(limits.newName);
        throw new BreakerboxError(
          'BB_ERR_INGEST_TOO_MANY_KEYS',
          `the batch creates more new keys than ${newLimit} (${limits.newCap}) allows ${who} in a minute`,
        );
      }
      if (at === undefined) live++;
      if (k.isNew) fresh++;
    }
    if (liveHit) onRefuse(limits.liveName);
    if (newHit) onRefuse(limits.newName);
    if (fresh > 0 && scope.newInWindow + fresh > limits.newCap) {
      onRefuse(limits.newName);
      const retryS = Math.max(1, Math.ceil((scope.windowStart + MINUTE - now) / 1000));
      throw new BreakerboxError(
        'BB_ERR_INGEST_KEY_RATE',
        `${who} would create ${scope.newInWindow + fresh} new keys this minute, over ${newLimit} (${limits.newCap})`,
        { headers: { 'retry-after': String(retryS) } },
      );
    }
    return fresh;
  };

  const tokenLimits: ScopeLimits = {
    newName: 'new_keys_per_token', newCap: settings.new_per_minute_per_token, liveName: 'live_keys_per_token', liveCap: settings.live_per_token, scope: 'token',
  };
  const sourceLimits: ScopeLimits = {
    newName: 'new_keys_per_source', newCap: settings.new_per_minute_per_source, liveName: 'live_keys_per_source', liveCap: settings.live_per_source, scope: 'source',
  };

  return {
    /**
     * Checks a request's distinct keys for the token and for each source. Throws a 429 or
     * 400 BreakerboxError naming the limit (with `partial`, only the 429); otherwise returns
     * the keys refused and what to record once stored.
     */
    admit(token: { id: number; name: string }, groups: KeyGroup[], now: number, options: { partial?: boolean } = {}): KeyAdmission {
      sweep(now);
      const refused: KeyAdmission['refused'] = new Map();
      const all = new Map<string, BatchKey>();
      for (const g of groups) for (const [id, k] of g.keys) if (!all.has(id)) all.set(id, k);
      const tokenScope = scopeOf(`t\u0000${token.id}`, now);
      const list = options.partial ? refused : null;
      check(tokenScope, all, now, `token "${token.name}"`, tokenLimits, list);
      const sources = groups.map((g) => {
        const scope = scopeOf(`s\u0000${g.source.service}\u0000${g.source.instance}`, now);
        return { scope, keys: g.keys, fresh: check(scope, g.keys, now, `source ${g.source.service}/${g.source.instance}`, sourceLimits, list) };
      });
      return {
        refused,
        commit() {
          let tokenFresh = 0;
          const admitted = new Set<string>();
          for (const { scope, keys, fresh } of sources) {
            scope.newInWindow += fresh;
            for (const [id, k] of keys) {
              if (refused.has(id)) continue;
              scope.live.set(id, now);
              if (!admitted.has(id)) {
                admitted.add(id);
                if (k.isNew) tokenFresh++;
              }
            }
          }
          tokenScope.newInWindow += tokenFresh;
          for (const id of admitted) tokenScope.live.set(id, now);
        },
      };
    },
    /** Scopes tracked right now (for tests and metrics). */
    scopeCount: () => scopes.size,
  };
}

/** What `createKeyLimiter` returns. */
export type KeyLimiter = ReturnType<typeof createKeyLimiter>;
