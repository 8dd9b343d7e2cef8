import { Type, type Static } from '@sinclair/typebox';
import { BreakerKeySchema } from '@breakerbox/protocol/schemas';
import { ErrorReplies, Nullable, OrNull, PageFields, PageParams, Percentiles, SomeErrorCounts, StepParam, StringEnum, TimeRange, WindowParams } from './common.ts';
import { ClientFigures, KeyState, MaybeHint, ProbeFigures, Verdict } from './verdicts.ts';

/** `GET /api/keys` (every key known) and `GET /api/key` (one key's detail) — docs/api.md. */

/** Query of `GET /api/keys`. */
export const KeysQuery = Type.Object({ ...WindowParams, ...PageParams });

/** The headline numbers of a key over the window. */
export const KeyHeadline = Type.Object({
  calls: Type.Number(),
  error_share: Nullable('number'),
  provider_error_share: Nullable('number'),
  slow_share: Nullable('number'),
  open_share: Nullable('number'),
  transitions_per_hour: Type.Number(),
  rejected: Type.Number(),
  short_circuited: Type.Number(),
  retry_ratio: Nullable('number'),
  p95_ms: Nullable('number'),
  probe_success_share: Nullable('number'),
  cost_usd: Type.Number(),
  fallback_failed: Type.Number(),
});

/** One entry of `/api/keys`. */
export const KeyListEntry = Type.Object({
  key: BreakerKeySchema,
  first_seen: Type.Integer(),
  last_seen: Type.Integer(),
  /** Services reporting the key in the window, by name. */
  services: Type.Array(Type.String()),
  state: KeyState,
  verdict: Verdict,
  hint: MaybeHint,
  headline: KeyHeadline,
});
export type KeyListEntry = Static<typeof KeyListEntry>;

/**
 * Requests one service's SDK forwarded unprotected to a host, path family and method in the
 * window (batches' `passthrough`, docs/protocol.md): traffic no key stands for.
 */
export const PassthroughEntry = Type.Object({
  service: Type.String(),
  host: Type.String(),
  /** The path with its variable parts replaced (`/v1beta/models/{model}:generateContent`). */
  path_family: Type.String(),
  method: Type.String(),
  requests: Type.Integer({ minimum: 1 }),
  /** Why the latest of them was not protected, as the SDK said (`unknown endpoint`, …). */
  why: Nullable('string'),
  /** Start of the latest minute they arrived in. */
  last_seen: Type.Integer(),
});
export type PassthroughEntry = Static<typeof PassthroughEntry>;

/** Reply of `GET /api/keys`; `passthrough` is the window's whole list (at most 500, the largest first) on every page. */
export const KeysReply = Type.Object({ window: TimeRange, keys: Type.Array(KeyListEntry), passthrough: Type.Array(PassthroughEntry), ...PageFields });
export type KeysReply = Static<typeof KeysReply>;

/** Query of `GET /api/key`: the key, and the window and step of its series. */
export const KeyQuery = Type.Object({
  ...WindowParams,
  ...StepParam,
  provider: Type.String({ minLength: 1, maxLength: 100 }),
  endpoint: Type.String({ minLength: 1, maxLength: 100 }),
  model: Type.String({ minLength: 1, maxLength: 300 }),
  region: Type.Optional(Type.String({ maxLength: 100 })),
});
export type KeyQuery = Static<typeof KeyQuery>;

/** One point of a key's series (docs/api.md). */
export const SeriesPoint = Type.Object({
  t: Type.Integer(),
  calls: Type.Number(), ok: Type.Number(), failed: Type.Number(), slow: Type.Number(),
  errors: SomeErrorCounts,
  error_share: Nullable('number'), provider_error_share: Nullable('number'), client_error_share: Nullable('number'), slow_share: Nullable('number'),
  rejected: Type.Number(), short_circuited: Type.Number(), retries: Type.Number(), retry_ratio: Nullable('number'),
  open_share: Nullable('number'), transitions: Type.Number(), opens: Type.Number(),
  half_open_ok: Type.Number(), half_open_failed: Type.Number(),
  fallback_invoked: Type.Number(), fallback_failed: Type.Number(),
  latency_ms: Percentiles,
  ttft_ms: Percentiles,
  cost_usd: Type.Number(),
  verdict: Verdict,
  hint: MaybeHint,
});
export type SeriesPoint = Static<typeof SeriesPoint>;

/** One fallback of a key, as the key detail shows it. */
export const FallbackHealth = Type.Object({
  key: BreakerKeySchema,
  /** Requests the fallback received in the window (first attempts) and how many succeeded. */
  calls: Type.Number(),
  ok: Type.Number(),
  /** ok ÷ attempts over the window; null without traffic (an untested fallback). */
  success_share: Nullable('number'),
  /** Largest per-minute share of the primary's volume this fallback carried; null when it carried nothing. */
  max_share_of_primary: Nullable('number'),
  /** Start of the minute of that peak. */
  max_share_at: Nullable('number'),
});
export type FallbackHealth = Static<typeof FallbackHealth>;

const BreakerState = StringEnum(['closed', 'open', 'half_open', 'forced_open'] as const);

/** One point of a location's probe series on the key detail. */
export const ProbePoint = Type.Object({
  t: Type.Integer(),
  probes: Type.Number(),
  ok: Type.Number(),
  /** Slow or failed (transport); wrong answers are counted apart. */
  failed: Type.Number(),
  /** Answered well-formed but missed the canary (issue 39). */
  wrong_answer: Type.Number(),
  success_share: Nullable('number'),
  latency_ms: Type.Object({ p50: Nullable('number'), p95: Nullable('number') }),
});
export type ProbePoint = Static<typeof ProbePoint>;

/** A breaker transition as the key detail lists it. */
export const TransitionRecord = Type.Object({
  ts: Type.Integer(),
  service: Type.String(),
  instance: Type.String(),
  from: Nullable('string'),
  to: Type.String(),
  reason: Type.String(),
});
export type TransitionRecord = Static<typeof TransitionRecord>;

/** The served model version a probe named (issue 39); null: not named so far. */
export const ServedVersion = Type.Object({
  model_served: Nullable('string'),
  system_fingerprint: Nullable('string'),
});
export type ServedVersion = Static<typeof ServedVersion>;

/** A change of the served version behind the key, at the probe or call sample (event time) that first named the new one. */
export const ServedChange = Type.Object({
  ts: Type.Integer(),
  /** `probe`: a probe event; `call`: an SDK call sample (of a failed or slow call). */
  seen_in: StringEnum(['probe', 'call'] as const),
  /** The probe's location, or the call's `service/instance`. */
  by: Type.String(),
  from: ServedVersion,
  to: ServedVersion,
});
export type ServedChange = Static<typeof ServedChange>;

/** Reply of `GET /api/key`. */
export const KeyDetail = Type.Object({
  key: BreakerKeySchema,
  window: TimeRange,
  step_ms: Type.Integer(),
  verdict: Verdict,
  hint: MaybeHint,
  clients: ClientFigures,
  probes: Type.Record(Type.String(), ProbeFigures),
  evidence: Type.Array(Type.String()),
  state: KeyState,
  services: Type.Array(Type.Object({
    service: Type.String(), instances: Type.Number(), calls: Type.Number(), error_share: Nullable('number'), slow_share: Nullable('number'),
    rejected: Type.Number(), retry_ratio: Nullable('number'), degraded: Type.Boolean(),
  })),
  instances: Type.Array(Type.Object({
    service: Type.String(), instance: Type.String(), sdk: Nullable('string'), state: OrNull(BreakerState), state_since: Nullable('number'), last_seen: Nullable('number'),
    calls: Type.Number(), failed: Type.Number(), error_share: Nullable('number'), slow_share: Nullable('number'), rejected: Type.Number(), retries: Type.Number(), degraded: Type.Boolean(),
  })),
  /** The latest config event of the key, as the SDK sent it (settings are the SDK's own). */
  config: OrNull(Type.Object({
    ts: Type.Integer(),
    service: Type.String(),
    instance: Type.String(),
    /** The SDK's settings, by name (protocol v1 `config.settings`). */
    settings: Type.Record(Type.String(), Type.Union([Type.Number(), Type.String(), Type.Boolean()])),
    fallbacks: Type.Array(BreakerKeySchema),
    warnings: Type.Array(Type.String()),
  })),
  /** Each declared fallback's recent success and the largest share of this key's volume it carried. */
  fallbacks: Type.Array(FallbackHealth),
  series: Type.Array(SeriesPoint),
  probe_series: Type.Record(Type.String(), Type.Array(ProbePoint)),
  transitions: Type.Array(TransitionRecord),
  /** Served-model changes in the window, oldest first (at most the newest 100; server/verdicts/served-changes.ts). */
  served_changes: Type.Array(ServedChange),
});
export type KeyDetail = Static<typeof KeyDetail>;

/** Route schemas. */
export const KeysRoute = { querystring: KeysQuery, response: { 200: KeysReply, ...ErrorReplies } };
export const KeyRoute = { querystring: KeyQuery, response: { 200: KeyDetail, ...ErrorReplies } };
