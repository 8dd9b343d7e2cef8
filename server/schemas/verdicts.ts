import { Type, type Static } from '@sinclair/typebox';
import { BreakerKeySchema } from '@breakerbox/protocol/schemas';
import { ErrorCounts, ErrorReplies, Nullable, OrNull, PageFields, PagedWindowQuery, Percentiles, StringEnum, TimeRange, WindowQuery } from './common.ts';

/**
 * `GET /api/verdicts` and `GET /api/incidents` (docs/api.md), and the verdict vocabulary the
 * other views share. The server's types (`server/verdicts/types.ts`) are these schemas' `Static`.
 */

/**
 * The verdicts, worst first (the order `/api/verdicts` sorts by). `provider_suspected`:
 * clients fail with provider-side errors, no self-side signal, and the probes did not see
 * it — not ours, not confirmed either (docs/alerts.md).
 */
export const VERDICTS = ['provider_outage', 'provider_suspected', 'self_inflicted', 'provider_degraded', 'insufficient_data', 'healthy'] as const;
export const Verdict = StringEnum(VERDICTS);
export type Verdict = Static<typeof Verdict>;

/** Hints that say why, or what is missing. */
export const HINTS = [
  'retry_storm', 'client_errors', 'quota', 'capacity', 'local', 'regional', 'regional_unconfirmed', 'probe_misconfigured', 'no_probes', 'low_volume',
  'truncation', 'intermittent', 'probes_inconclusive', 'traffic_shape', 'probe_only', 'probes_set_aside', 'probes_pending', 'probes_stale',
  'sibling_probes', 'model_retired', 'slow', 'wrong_answers',
] as const;
export const Hint = StringEnum(HINTS);
export type Hint = Static<typeof Hint>;
/** A hint, or null when the verdict needs none. */
export const MaybeHint = Type.Unsafe<Hint | null>({ type: ['string', 'null'], enum: [...HINTS, null] });

const Share = Nullable('number');

/** What the applications saw for a key over a window (docs/api.md, ClientFigures). */
export const ClientFigures = Type.Object({
  calls: Type.Number(),
  ok: Type.Number(),
  failed: Type.Number(),
  slow: Type.Number(),
  error_share: Share,
  provider_error_share: Share,
  client_error_share: Share,
  errors: ErrorCounts,
  slow_share: Share,
  rejected: Type.Number(),
  rejection_share: Share,
  short_circuited: Type.Number(),
  retries: Type.Number(),
  retry_ratio: Share,
  half_open: Type.Object({ ok: Type.Number(), failed: Type.Number(), success_share: Share }),
  open_share: Share,
  transitions: Type.Number(),
  opens: Type.Number(),
  transitions_per_hour: Type.Number(),
  opens_per_hour: Type.Number(),
  fallback: Type.Object({ invoked: Type.Number(), failed: Type.Number() }),
  latency_ms: Percentiles,
  ttft_ms: Percentiles,
  input_tokens: Type.Number(),
  output_tokens: Type.Number(),
  cost_usd: Type.Number(),
  instances: Type.Number(),
  services: Type.Number(),
  degraded: Type.Boolean(),
});
export type ClientFigures = Static<typeof ClientFigures>;

/** Probe location status: what the verdict reads. */
export const ProbeStatus = StringEnum(['ok', 'failing', 'misconfigured', 'insufficient'] as const);
export type ProbeStatus = Static<typeof ProbeStatus>;

/** What one probe location saw for a key (docs/api.md, ProbeFigures). */
export const ProbeFigures = Type.Object({
  probes: Type.Number(),
  ok: Type.Number(),
  slow: Type.Number(),
  error: Type.Number(),
  /**
   * Probes that answered well-formed but missed their canary (issue 39): in `probes`, not in
   * `ok` (so they lower `success_share`), and not failed in `recent` or `status` — no
   * transport failure, so no outage verdict rests on them.
   */
  wrong_answer: Type.Number(),
  misconfigured: Type.Number(),
  cold: Type.Number(),
  success_share: Share,
  slow_share: Share,
  latency_ms: Type.Object({ p50: Nullable('number'), p95: Nullable('number'), mean: Nullable('number') }),
  recent: Type.Object({ probes: Type.Number(), failed: Type.Number() }),
  status: ProbeStatus,
  last_ts: Nullable('number'),
  /** True when the location is judged unhealthy (a prober problem) and left out of verdicts. */
  set_aside: Type.Boolean(),
  /**
   * What the location's latency is judged against (issue 36), present only when the verdict
   * read it (degraded clients with a latency signal): its own probes over `lookback_s` before
   * the window, and the `latency_ceiling_ms` the clients declare for the key.
   */
  baseline: Type.Optional(Type.Object({ p50: Nullable('number'), probes: Type.Number(), lookback_s: Type.Number(), client_ceiling_ms: Nullable('number') })),
});
export type ProbeFigures = Static<typeof ProbeFigures>;

/**
 * How strongly clean probes argue against a provider-side cause: if the provider failed at
 * the clients' provider-side share, `probes` probes from `location` would all pass with
 * probability `chance` = (1 − failure_share)^probes.
 */
export const ProbePower = Type.Object({
  failure_share: Type.Number(),
  location: Type.String(),
  probes: Type.Number(),
  chance: Type.Number(),
  refutes: Type.Boolean(),
});
export type ProbePower = Static<typeof ProbePower>;

/** The strongest other answer and the figure that ruled it out. */
export const Alternative = Type.Object({ verdict: Verdict, why: Type.String() });
export type Alternative = Static<typeof Alternative>;

/** One entry of `/api/verdicts`. */
export const VerdictEntry = Type.Object({
  key: BreakerKeySchema,
  verdict: Verdict,
  hint: MaybeHint,
  clients: ClientFigures,
  probes: Type.Record(Type.String(), ProbeFigures),
  evidence: Type.Array(Type.String()),
  /** The strongest alternative verdict and why it was ruled out. */
  alternative: Alternative,
  /** Set when clients failed while the probes were clean. */
  probe_power: OrNull(ProbePower),
  /** Keys whose probes were joined into this one through `verdicts.provider_aliases`. */
  joined: Type.Array(BreakerKeySchema),
  /** With no probes for this key: probed keys of the same model under another provider or region. */
  near_matches: Type.Array(BreakerKeySchema),
});
export type VerdictEntry = Static<typeof VerdictEntry>;

/** A breaker's state across instances ("open on 2 of 5"). */
export const KeyState = Type.Object({
  summary: StringEnum(['open', 'half_open', 'closed', 'unknown'] as const),
  open: Type.Number(),
  half_open: Type.Number(),
  closed: Type.Number(),
  instances: Type.Number(),
  text: Type.String(),
});
export type KeyState = Static<typeof KeyState>;

/** What the keys of an incident share: a provider, a prober location, or the services that call them. */
export const IncidentCause = Type.Object({ kind: StringEnum(['provider', 'prober', 'service'] as const), name: Type.String() });
export type IncidentCause = Static<typeof IncidentCause>;

/** One key of an incident, with its own verdict. */
export const IncidentKey = Type.Object({ key: BreakerKeySchema, verdict: Verdict, hint: MaybeHint });
export type IncidentKey = Static<typeof IncidentKey>;

/** An incident: keys failing for one cause (docs/api.md, `GET /api/incidents`). */
export const Incident = Type.Object({
  /** 16 hex characters, stable for the cause: the group key of its notifications. */
  id: Type.String(),
  cause: IncidentCause,
  /** "openai: 7 models, provider outage". */
  title: Type.String(),
  /** The worst verdict of its keys, or `prober_unhealthy` for a prober location. */
  verdict: StringEnum([...VERDICTS, 'prober_unhealthy'] as const),
  hint: MaybeHint,
  keys: Type.Array(IncidentKey),
  evidence: Type.Array(Type.String()),
});
export type Incident = Static<typeof Incident>;

/** Query of `GET /api/verdicts`. */
export const VerdictsQuery = PagedWindowQuery;
/** Reply of `GET /api/verdicts`: one page of keys with a verdict, worst first. */
export const VerdictsReply = Type.Object({ window: TimeRange, verdicts: Type.Array(VerdictEntry), ...PageFields });
export type VerdictsReply = Static<typeof VerdictsReply>;

/** Query of `GET /api/incidents`. */
export const IncidentsQuery = WindowQuery;
/** Reply of `GET /api/incidents`. */
export const IncidentsReply = Type.Object({ window: TimeRange, incidents: Type.Array(Incident) });
export type IncidentsReply = Static<typeof IncidentsReply>;

/** Route schemas. */
export const VerdictsRoute = { querystring: VerdictsQuery, response: { 200: VerdictsReply, ...ErrorReplies } };
export const IncidentsRoute = { querystring: IncidentsQuery, response: { 200: IncidentsReply, ...ErrorReplies } };
