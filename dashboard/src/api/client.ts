import type { Static, TSchema } from '@sinclair/typebox';
import type * as S from '../../../server/schemas/index.ts';

/** What one route takes and answers, read from the route's schemas on the server. */
interface RouteTypes<R> {
  query: R extends { querystring: infer Q extends TSchema } ? Static<Q> : never;
  body: R extends { body: infer B extends TSchema } ? Static<B> : never;
  params: R extends { params: infer P extends TSchema } ? Static<P> : never;
  /** The success reply: 200, else 201, else nothing (204). */
  reply: R extends { response: infer Res }
    ? Res extends { 200: infer T extends TSchema } ? Static<T>
    : Res extends { 201: infer T extends TSchema } ? Static<T>
    : undefined
    : never;
}

/**
 * Every route the dashboard calls, by method and path, typed from the same route schemas
 * the collector validates and serialises with (`server/schemas/`). A field renamed or
 * retyped on the server fails `tsc --noEmit` over the dashboard.
 */
export interface ApiRoutes {
  'GET /api/keys': RouteTypes<typeof S.KeysRoute>;
  'GET /api/verdicts': RouteTypes<typeof S.VerdictsRoute>;
  'GET /api/incidents': RouteTypes<typeof S.IncidentsRoute>;
  'GET /api/key': RouteTypes<typeof S.KeyRoute>;
  'GET /api/key/samples': RouteTypes<typeof S.SamplesRoute>;
  'GET /api/shadow': RouteTypes<typeof S.ShadowRoute>;
  'GET /api/cost': RouteTypes<typeof S.CostRoute>;
  'GET /api/probes': RouteTypes<typeof S.ProbesRoute>;
  'GET /api/lifecycle': RouteTypes<typeof S.LifecycleRoute>;
  'GET /api/alerts': RouteTypes<typeof S.AlertsRoute>;
  'GET /api/silences': RouteTypes<typeof S.SilencesRoute>;
  'POST /api/silences': RouteTypes<typeof S.CreateSilenceRoute>;
  'DELETE /api/silences/:id': RouteTypes<typeof S.ExpireSilenceRoute>;
  'GET /api/notifications': RouteTypes<typeof S.NotificationsRoute>;
  'GET /api/session': RouteTypes<typeof S.SessionRoute>;
  'POST /api/session': RouteTypes<typeof S.SignInRoute>;
  'DELETE /api/session': RouteTypes<typeof S.SignOutRoute>;
  'GET /api/fleet': RouteTypes<typeof S.FleetListRoute>;
  'POST /api/fleet/drain': RouteTypes<typeof S.DrainRoute>;
  'POST /api/fleet/release': RouteTypes<typeof S.ReleaseRoute>;
  'GET /api/drills': RouteTypes<typeof S.DrillListRoute>;
  'GET /api/drills/:id': RouteTypes<typeof S.DrillRunRoute>;
  'POST /api/drills': RouteTypes<typeof S.StartDrillRoute>;
  'POST /api/drills/:id/stop': RouteTypes<typeof S.StopDrillRoute>;
}
/** A route of the map: `"METHOD /path"`. */
export type Endpoint = keyof ApiRoutes;
/** The success reply of a route. */
export type ReplyOf<E extends Endpoint> = ApiRoutes[E]['reply'];

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

/** Options of one call to `endpoint`: its query parameters, body and path parameters as its schemas declare them. */
export type RequestOptions<E extends Endpoint> = {
  /** Query parameters by name (only those the route declares); numbers are sent as their decimal text. */
  query?: { [K in keyof ApiRoutes[E]['query']]?: string | number };
  signal?: AbortSignal;
  /** Give up after this long and report the server as not answering (default 8 s). */
  timeoutMs?: number;
} & ([ApiRoutes[E]['body']] extends [never] ? { body?: never } : { body: ApiRoutes[E]['body'] })
  & ([ApiRoutes[E]['params']] extends [never] ? { params?: never } : { params: ApiRoutes[E]['params'] });

/**
 * Calls `endpoint` (`"GET /api/keys"`) of the collector's JSON API with the session cookie (same origin only). The token is
 * never held here: the browser sends the httpOnly cookie. A network failure or timeout is
 * `unreachable`, which the app shows as "the server stopped answering".
 */
export async function api<E extends Endpoint>(endpoint: E, ...rest: {} extends RequestOptions<E> ? [options?: RequestOptions<E>] : [options: RequestOptions<E>]): Promise<ReplyOf<E>> {
  const options: RequestOptions<E> = rest[0] ?? ({} as RequestOptions<E>);
  const space = endpoint.indexOf(' ');
  const method = endpoint.slice(0, space);
  const params: Record<string, string> = options.params ?? {};
  const path = endpoint.slice(space + 1).replace(/:([a-z_]+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) query.set(name, String(value));
  const url = query.size ? `${path}?${query}` : path;
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 8000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
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
  if (response.status === 204) return undefined as ReplyOf<E>;
  const text = await response.text().catch(() => '');
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // A proxy's HTML error page: keep the status, drop the body.
  }
  // The server serialised this body with the route's reply schema, which ReplyOf<E> is the type of.
  if (response.ok) return body as ReplyOf<E>;
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
