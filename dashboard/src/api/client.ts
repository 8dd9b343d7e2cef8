/** Why a request to the collector failed, as the views need to tell it apart. */
export type FailureKind = 'unauthorized' | 'unreachable' | 'missing' | 'rejected' | 'server';

/** A failed API call: the kind, the HTTP status (0 when nothing answered) and the server's message. */
export class ApiFailure extends Error {
  readonly kind: FailureKind;
  readonly status: number;
  readonly code: string | undefined;

  constructor(kind: FailureKind, status: number, message: string, code?: string) {
    super(message);
    this.name = 'ApiFailure';
    this.kind = kind;
    this.status = status;
    this.code = code;
  }
}

const listeners = new Set<(failure: ApiFailure) => void>();

/** Called on every 401, so the app can drop back to the sign-in page from any view. */
export function onUnauthorized(listener: (failure: ApiFailure) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Options of one call. */
export interface RequestOptions {
  method?: 'GET' | 'POST' | 'DELETE';
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  signal?: AbortSignal;
  /** Give up after this long and report the server as not answering (default 8 s). */
  timeoutMs?: number;
}

/**
 * Calls the collector's JSON API with the session cookie (same origin only). The token is
 * never held here: the browser sends the httpOnly cookie. A network failure or timeout is
 * `unreachable`, which the app shows as "the server stopped answering".
 */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) query.set(name, String(value));
  const url = query.size ? `${path}?${query}` : path;
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 8000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(url, {
      method: options.method ?? 'GET',
      credentials: 'same-origin',
      headers: options.body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal,
      cache: 'no-store',
    });
  } catch (err) {
    if (options.signal?.aborted) throw err;
    throw new ApiFailure('unreachable', 0, timeout.aborted ? 'the server did not answer in time' : 'the server is not answering');
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text().catch(() => '');
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // A proxy's HTML error page: keep the status, drop the body.
  }
  if (response.ok) return body as T;
  const error = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
  const message = error?.message ?? `HTTP ${response.status}`;
  const kind: FailureKind =
    response.status === 401 ? 'unauthorized'
    : response.status === 404 ? 'missing'
    : response.status === 502 || response.status === 503 || response.status === 504 ? 'unreachable'
    : response.status >= 500 ? 'server'
    : 'rejected';
  const failure = new ApiFailure(kind, response.status, message, error?.code);
  if (kind === 'unauthorized') for (const listener of listeners) listener(failure);
  throw failure;
}
