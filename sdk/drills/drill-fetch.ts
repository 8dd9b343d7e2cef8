/**
 * The fetch of one drilled attempt: the drill's fault, injected before the network. The
 * provider sees no request for a 429, a 401, a refused connection or a truncated answer; a
 * slow first byte waits past the key's limit first (an attempt whose first-byte timeout
 * fires meanwhile never reaches the provider); a renamed field is the provider's own
 * answer, the one request the call would have made anyway, with one field renamed.
 */
import type { DrillKind } from '@breakerbox/protocol';
import { sleep, type Clock } from '../clock.ts';
import type { FetchLike } from '../fetch/http-attempt.ts';
import { authRevokedAnswer, rateLimitAnswer, renameOneField, truncatedAnswer } from './drill-answers.ts';

/** What a drilled attempt needs to fake its fault. */
export interface DrilledAttempt {
  kind: DrillKind;
  drillId: string;
  /** Endpoint family (`chat`, `responses`, `messages`, …). */
  family: string;
  request: Record<string, unknown>;
  stream: boolean;
  /** How long the first byte is held back for `slow_first_byte`, ms (past the key's limit). */
  slowMs: number;
  /** Seconds a drilled 429 asks to wait. */
  retryAfterS: number;
  clock: Clock;
}

/** The error `fetch` (undici) throws for a refused connection: `TypeError: fetch failed` caused by `ECONNREFUSED`. */
export function connectionRefused(url: URL): TypeError {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const cause = Object.assign(new Error(`connect ECONNREFUSED ${url.hostname}:${port}`), { errno: -111, code: 'ECONNREFUSED', syscall: 'connect', address: url.hostname, port });
  return new TypeError('fetch failed', { cause });
}

/** A fetch that injects `d.kind` for one attempt, sending through `underlying` only where the module comment says. */
export function drillFetch(d: DrilledAttempt, underlying: FetchLike): FetchLike {
  return async (input, init) => {
    const signal = init?.signal;
    if (signal?.aborted) throw signal.reason;
    switch (d.kind) {
      case 'rate_limit':
        return rateLimitAnswer(d.family, d.drillId, d.retryAfterS);
      case 'auth_revoked':
        return authRevokedAnswer(d.family, d.drillId);
      case 'primary_down':
        throw connectionRefused(new URL(input instanceof Request ? input.url : String(input)));
      case 'truncated':
        return truncatedAnswer(d.family, d.drillId, d.request, d.stream, new URL(input instanceof Request ? input.url : String(input))) ?? underlying(input, init);
      case 'slow_first_byte':
        // A background timer: a held attempt never keeps the host alive.
        await sleep(d.clock, d.slowMs, signal, true);
        return underlying(input, init);
      case 'field_renamed': {
        const res = await underlying(input, init);
        if (d.stream || !res.ok || !(res.headers.get('content-type') ?? '').includes('json')) return res;
        const text = await res.text();
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
        }
        const headers = new Headers(res.headers);
        headers.delete('content-length');
        headers.delete('content-encoding');
        headers.set('x-breakerbox-drill', d.drillId);
        const renamed = typeof body === 'object' && body !== null ? renameOneField(d.family, body as Record<string, unknown>) : body;
        return new Response(JSON.stringify(renamed), { status: res.status, statusText: res.statusText, headers });
      }
    }
  };
}
