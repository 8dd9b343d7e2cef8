import { Agent, request } from 'undici';
import type { OutgoingRequest } from './types.ts';

/** How one delivery went, after its retries. */
export interface SendResult {
  ok: boolean;
  attempts: number;
  httpStatus: number | null;
  /** Unredacted; the caller scrubs secrets before storing or logging it. */
  error: string | null;
}

/** Retry policy of one notifier. */
export interface SendPolicy {
  timeoutMs: number;
  retries: number;
  backoffMs: number;
}

const MAX_RETRY_AFTER_MS = 30_000;

/** Sleeps `ms`, or less if `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** 5xx, 408 and 429 are worth another try; other 4xx will not get better. */
const retryable = (status: number) => status >= 500 || status === 408 || status === 429;

/**
 * POSTs `req` through `agent` with a hard per-attempt timeout (connect, headers and body
 * all inside it), retrying network errors, timeouts, 408/429/5xx with exponential backoff
 * and jitter (honouring Retry-After up to 30 s). `signal` aborts everything (shutdown).
 */
export async function sendWithRetry(agent: Agent, req: OutgoingRequest, policy: SendPolicy, signal: AbortSignal): Promise<SendResult> {
  let attempts = 0;
  let httpStatus: number | null = null;
  let error: string | null = null;
  for (let attempt = 0; attempt <= policy.retries; attempt++) {
    if (signal.aborted) return { ok: false, attempts, httpStatus, error: 'aborted: the collector is shutting down' };
    attempts++;
    let waitMs = policy.backoffMs * 2 ** attempt * (0.5 + Math.random() / 2);
    try {
      const res = await request(req.url, {
        method: 'POST',
        headers: req.headers,
        body: req.body,
        dispatcher: agent,
        headersTimeout: policy.timeoutMs,
        bodyTimeout: policy.timeoutMs,
        signal: AbortSignal.any([signal, AbortSignal.timeout(policy.timeoutMs)]),
      });
      httpStatus = res.statusCode;
      // Read (and bound) the body so the connection can be reused; keep a little for the error.
      const text = (await res.body.text()).slice(0, 300);
      if (res.statusCode >= 200 && res.statusCode < 300) return { ok: true, attempts, httpStatus, error: null };
      error = `HTTP ${res.statusCode}${text ? `: ${text.replace(/\s+/g, ' ')}` : ''}`;
      if (!retryable(res.statusCode)) break;
      const retryAfter = Number(res.headers['retry-after']);
      if (Number.isFinite(retryAfter) && retryAfter > 0) waitMs = Math.min(retryAfter * 1000, MAX_RETRY_AFTER_MS);
    } catch (err) {
      httpStatus = null;
      const e = err as Error & { code?: string };
      error = e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT'
        ? `timed out after ${policy.timeoutMs} ms`
        : signal.aborted
          ? 'aborted: the collector is shutting down'
          : `${e.code ?? e.name}: ${e.message}`;
    }
    if (attempt < policy.retries) await sleep(waitMs, signal);
  }
  return { ok: false, attempts, httpStatus, error };
}
