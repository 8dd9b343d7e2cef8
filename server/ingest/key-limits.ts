import type { BreakerKey } from '@breakerbox/protocol';
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

/** A batch's admission: call `commit` once it is stored, so the keys count. */
export interface KeyAdmission {
  commit(): void;
}

interface Scope {
  /** Live keys: last time each was reported through this scope. */
  live: Map<string, number>;
  windowStart: number;
  newInWindow: number;
  lastUsed: number;
}

const MINUTE = 60_000;

/**
 * Caps on breaker keys per ingest token and per source (service + instance): how many new
 * keys (never stored before) a scope may create per minute (429 with Retry-After: waiting
 * helps), and how many distinct keys it may report within the live window (400: a sender
 * minting keys from request data will not get under the cap by retrying). One token's
 * keys never count against another's. State is per scope and swept as scopes go idle.
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

  const check = (scope: Scope, keys: Map<string, BatchKey>, now: number, who: string, limits: { newName: LimitName; newCap: number; liveName: LimitName; liveCap: number; scope: 'token' | 'source' }) => {
    if (now - scope.windowStart >= MINUTE) {
      scope.windowStart = now - (now % MINUTE);
      scope.newInWindow = 0;
    }
    let live = scope.live.size;
    let fresh = 0;
    for (const [id, k] of keys) {
      const at = scope.live.get(id);
      if (at === undefined || now - at > liveMs) {
        if (at === undefined) live++;
        if (live > limits.liveCap) {
          onRefuse(limits.liveName);
          throw new BreakerboxError(
            'BB_ERR_INGEST_TOO_MANY_KEYS',
            `${who} would report more than ${limits.liveCap} distinct keys within ${settings.live_window_s} s (ingest.keys.live_per_${limits.scope}); keys must not be minted from request data`,
            { path: k.path },
          );
        }
      }
      if (k.isNew) fresh++;
    }
    if (fresh > limits.newCap) {
      // Waiting cannot help a batch that alone creates more keys than a minute allows.
      onRefuse(limits.newName);
      throw new BreakerboxError(
        'BB_ERR_INGEST_TOO_MANY_KEYS',
        `the batch creates ${fresh} new keys, more than ingest.keys.new_per_minute_per_${limits.scope} (${limits.newCap}) allows ${who} in a minute`,
      );
    }
    if (fresh > 0 && scope.newInWindow + fresh > limits.newCap) {
      onRefuse(limits.newName);
      const retryS = Math.max(1, Math.ceil((scope.windowStart + MINUTE - now) / 1000));
      throw new BreakerboxError(
        'BB_ERR_INGEST_KEY_RATE',
        `${who} would create ${scope.newInWindow + fresh} new keys this minute, over ingest.keys.new_per_minute_per_${limits.scope} (${limits.newCap})`,
        { headers: { 'retry-after': String(retryS) } },
      );
    }
    return fresh;
  };

  return {
    /**
     * Checks a batch's distinct keys for the token and the source. Throws a 429 or 400
     * BreakerboxError naming the limit; otherwise returns what to record once stored.
     */
    admit(token: { id: number; name: string }, source: { service: string; instance: string }, keys: Map<string, BatchKey>, now: number): KeyAdmission {
      sweep(now);
      const tokenScope = scopeOf(`t\u0000${token.id}`, now);
      const sourceScope = scopeOf(`s\u0000${source.service}\u0000${source.instance}`, now);
      tokenScope.lastUsed = sourceScope.lastUsed = now;
      const fresh = check(tokenScope, keys, now, `token "${token.name}"`, {
        newName: 'new_keys_per_token', newCap: settings.new_per_minute_per_token, liveName: 'live_keys_per_token', liveCap: settings.live_per_token, scope: 'token',
      });
      check(sourceScope, keys, now, `source ${source.service}/${source.instance}`, {
        newName: 'new_keys_per_source', newCap: settings.new_per_minute_per_source, liveName: 'live_keys_per_source', liveCap: settings.live_per_source, scope: 'source',
      });
      return {
        commit() {
          for (const scope of [tokenScope, sourceScope]) {
            scope.newInWindow += fresh;
            for (const id of keys.keys()) scope.live.set(id, now);
          }
        },
      };
    },
    /** Scopes tracked right now (for tests and metrics). */
    scopeCount: () => scopes.size,
  };
}

/** What `createKeyLimiter` returns. */
export type KeyLimiter = ReturnType<typeof createKeyLimiter>;
