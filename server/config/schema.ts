import { Type, type Static, type TSchema } from '@sinclair/typebox';

const Share = (def: number, description: string) => Type.Number({ minimum: 0, maximum: 1, default: def, description });
const Severity = (def: 'info' | 'warning' | 'critical', description = 'severity of its alerts (notifiers filter on it)') =>
  Type.Union([Type.Literal('info'), Type.Literal('warning'), Type.Literal('critical')], { default: def, description });
const rule = <T extends Record<string, TSchema>>(props: T, severity: 'info' | 'warning' | 'critical', forS = 0) =>
  Type.Object(
    {
      enabled: Type.Boolean({ default: true, description: 'evaluate this rule' }),
      severity: Severity(severity),
      for_s: Type.Integer({ minimum: 0, default: forS, description: 'how long the condition must hold before firing' }),
      ...props,
    },
    { default: {}, additionalProperties: false },
  );

/** Verdict thresholds (docs/alerts.md, "Verdict rules"). */
const VerdictsSection = Type.Object(
  {
    min_calls: Type.Integer({ minimum: 1, default: 20, description: 'fewer calls in the window: insufficient_data (low_volume)' }),
    degraded_error_share: Share(0.2, 'failed calls of any class over calls at or above this: clients degraded'),
    degraded_slow_share: Share(0.2, 'slow calls over calls at or above this: clients degraded'),
    degraded_rejection_share: Share(0.1, 'bulkhead rejections over attempts at or above this: clients degraded'),
    degraded_open_share: Share(0, 'open share above this (any open time by default): clients degraded'),
    min_probes: Type.Integer({ minimum: 1, default: 3, description: 'recent warm probes a location needs to count' }),
    probe_recent: Type.Integer({ minimum: 1, default: 10, description: 'most recent probes a location is judged on' }),
    probe_recent_lookback_s: Type.Integer({ minimum: 60, default: 1800, description: 'how far back the recent probes are looked for' }),
    probe_failing_share: Share(0.5, 'recent probes errored or slow above this share: location failing'),
    hint_dominant_share: Share(0.5, 'share of failed calls a class group needs for the quota / client_errors hints'),
    retry_storm_ratio: Type.Number({ minimum: 0, default: 0.5, description: 'retries over calls at or above this: retry_storm' }),
    capacity_max_slow_share: Share(0.05, 'capacity hint only while slow share stays at or below this (latency normal)'),
    local_min_calls: Type.Integer({ minimum: 1, default: 10, description: 'calls a service or instance needs to count as healthy for the local hint' }),
    instance_lookback_s: Type.Integer({ minimum: 60, default: 3600, description: 'per-instance figures (raw windows) cover at most this end of the window' }),
    incremental: Type.Boolean({ default: true, description: 'keep each key\'s analysis and judge again only keys whose inputs changed (docs/verdict-engine.md); on PostgreSQL every collector\'s writes reach it through the shared change log' }),
    open_idle_after_s: Type.Integer({ minimum: 60, default: 300, description: 'an open breaker whose instance stopped reporting the key counts as open this long after its last report' }),
    probe_refute_max_chance: Share(0.05, 'clean probes refute a provider-side cause only if they would all pass with at most this chance at the clients\' failure share'),
    probe_intermittent_share: Share(0.1, 'probes of an ok location that failed at least this share of the window: the provider fails intermittently'),
    probe_split_max_p: Share(0.01, 'failing and ok probe locations differ (regional) only when Fisher\'s exact test on their recent probes gives at most this p-value (location-split.ts)'),
    slow_probe_lookback_s: Type.Integer({ minimum: 3600, default: 86_400, description: 'a location\'s probe latency baseline: its probes of the key over this long before the window' }),
    slow_probe_baseline_min_probes: Type.Integer({ minimum: 1, default: 30, description: 'probes the baseline needs before a location can be judged slow against it' }),
    slow_probe_ratio: Type.Number({ minimum: 1, default: 3, description: 'probe p50 at least this many times its baseline p50 (and slow_probe_min_delta_ms above it): the location is slow' }),
    slow_probe_min_delta_ms: Type.Integer({ minimum: 0, default: 1000, description: 'how far above its baseline p50 a probe p50 must be to count as slow, ms' }),
    stale_probe_lookback_s: Type.Integer({ minimum: 60, default: 3600, description: 'a key with no probe in the window that a location probed this recently reads probes_stale (naming the location), not no_probes' }),
    served_change_lookback_s: Type.Integer({ minimum: 0, default: 21_600, description: 'a verdict that is not healthy names a change of the served model behind its key (model_served or system_fingerprint of its probes) this recent; 0: never' }),
    wrong_answer_lookback_s: Type.Integer({ minimum: 300, default: 1800, description: 'answer canaries (wrong_answer probes) are judged over this much of the recent past, whatever the verdict window (docs/alerts.md, "Verdicts on answers")' }),
    wrong_answer_min: Type.Integer({ minimum: 1, default: 5, description: 'wrong answers a location needs in the lookback to answer wrongly' }),
    wrong_answer_share: Share(0.2, 'and wrong answers over the location\'s warm probes in the lookback at or above this'),
    wrong_answer_min_locations: Type.Integer({ minimum: 1, default: 2, description: 'locations that must answer wrongly for the provider to be judged serving wrong answers (capped at the locations that probed the key)' }),
    prober_min_keys: Type.Integer({ minimum: 1, default: 3, description: 'failing keys a location needs before it can be judged a prober problem' }),
    prober_min_providers: Type.Integer({ minimum: 1, default: 2, description: 'providers those keys must span' }),
    prober_failing_share: Share(0.8, 'share of the location\'s probed keys that must be failing'),
    prober_network_share: Share(0.5, 'share of the location\'s failed probes that must be network or timeout errors'),
    provider_aliases: Type.Record(Type.String({ minLength: 1, maxLength: 100 }), Type.String({ minLength: 1, maxLength: 100 }), {
      default: {},
      maxProperties: 200,
      description: 'provider names that mean the same provider, e.g. {"10.1.2.3:8000": "vllm"}: keys under either name join their probes',
    }),
  },
  { default: {}, additionalProperties: false },
);

/** Probe on suspicion (docs/alerts.md, "Probe on suspicion"). */
const SuspicionSection = Type.Object(
  {
    enabled: Type.Boolean({ default: true, description: 'ask the probers for immediate probes of a key whose client side starts to degrade' }),
    interval_s: Type.Number({ minimum: 0, default: 1, description: 'how often the trigger looks (0 = only on demand)' }),
    window_s: Type.Integer({ minimum: 10, default: 60, description: 'client windows this recent are read for provider-side errors' }),
    min_calls: Type.Integer({ minimum: 1, default: 10, description: 'calls the failing windows must hold' }),
    provider_error_share: Share(0.2, 'provider-side failed calls over calls at or above this: a failing window'),
    min_failed_windows: Type.Integer({ minimum: 1, default: 2, description: 'consecutive failing windows of one instance (one failed window of one instance is a blip)' }),
    min_instances: Type.Integer({ minimum: 2, default: 3, description: 'this many instances of a key failing at once (one failing window each, the SDK reports its first at once) trigger without waiting for a second window' }),
    min_open_s: Type.Number({ minimum: 0, default: 5, description: 'a breaker open this long without closing (half-open counts as open) triggers' }),
    burst: Type.Integer({ minimum: 1, maximum: 10, default: 3, description: 'requests per location per suspicion (verdicts.min_probes decide a location)' }),
    burst_gap_s: Type.Number({ minimum: 0, default: 0.5, description: 'the n-th request of a burst is due n gaps later' }),
    cooldown_s: Type.Integer({ minimum: 10, default: 300, description: 'at most one suspicion (one burst) per key this often' }),
    max_per_location_per_hour: Type.Integer({ minimum: 1, default: 60, description: 'requests queued for one location per hour, across keys' }),
    request_ttl_s: Type.Integer({ minimum: 5, default: 60, description: 'a request no prober collected by then expires' }),
    coverage_lookback_s: Type.Integer({ minimum: 60, default: 3600, description: 'a location covers a key when it probed it this recently' }),
    pending_max_s: Type.Integer({ minimum: 0, default: 45, description: 'the verdict waits this long for the requested probes (insufficient_data / probes_pending), then decides with what is known' }),
    long_poll_s: Type.Integer({ minimum: 1, maximum: 120, default: 25, description: 'GET /v1/probe-requests answers within this (the longest wait a prober may ask)' }),
  },
  { default: {}, additionalProperties: false },
);

/** Alert engine and its rules (docs/alerts.md). */
const AlertsSection = Type.Object(
  {
    interval_s: Type.Integer({ minimum: 0, default: 15, description: 'evaluation period (BREAKERBOX_ALERT_INTERVAL_S); 0 = never on a timer' }),
    repeat_interval_s: Type.Integer({ minimum: 60, default: 14_400, description: 'resend a firing alert this often' }),
    verdict_window_s: Type.Integer({ minimum: 60, default: 900, description: 'window of the verdict quoted in summaries' }),
    group_wait_s: Type.Integer({ minimum: 0, default: 30, description: 'a new group whose verdict waits for requested probes (probes_pending) is paged at most this long after it fired, with what is known then (Alertmanager group_wait)' }),
    group_interval_s: Type.Integer({ minimum: 0, default: 300, description: 'a grouped notification is updated at most this often when its alerts change (Alertmanager group_interval)' }),
    external_url: Type.Optional(Type.String({ minLength: 1, description: 'base URL of this collector for links in notifications' })),
    history_days: Type.Number({ exclusiveMinimum: 0, default: 30, description: 'resolved alerts and deliveries kept this long' }),
    rules: Type.Object(
      {
        flapping: rule(
          {
            window_s: Type.Integer({ minimum: 60, default: 3600, description: 'breaker transitions this recent are counted' }),
            fire_opens_per_hour: Type.Number({ exclusiveMinimum: 0, default: 6, description: 'closed → open cycles per hour of the worst instance that start the alert (re-opens from half-open are not counted)' }),
            resolve_opens_per_hour: Type.Number({ minimum: 0, default: 2, description: 'at or below this it resolves (Nagios-style hysteresis)' }),
          },
          'warning',
        ),
        open_share: rule(
          {
            window_s: Type.Integer({ minimum: 60, default: 900, description: 'open share is measured over this window' }),
            fire_share: Share(0.1, 'open share at or above this fires'),
            resolve_share: Share(0.05, 'open share below this resolves'),
          },
          'warning',
        ),
        fallback_failing: rule(
          {
            window_s: Type.Integer({ minimum: 60, default: 300, description: 'fallback failures this recent are counted' }),
            min_failures: Type.Integer({ minimum: 1, default: 1, description: 'fallback failures while the primary is open' }),
            fire_share: Share(0.5, 'failed ÷ invoked fallbacks at or above this fires, whatever the primary breaker state'),
            min_invocations: Type.Integer({ minimum: 1, default: 10, description: 'fallback invocations the share needs in the window' }),
          },
          'critical',
        ),
        probe_failing: rule(
          {
            consecutive: Type.Integer({ minimum: 1, default: 3, description: 'consecutive failed probes that fire' }),
            resolve_consecutive: Type.Integer({ minimum: 1, default: 2, description: 'consecutive ok probes that resolve' }),
            lookback_s: Type.Integer({ minimum: 60, default: 3600, description: 'probes this recent are read' }),
          },
          'warning',
        ),
        cost_per_success: rule(
          {
            window_s: Type.Integer({ minimum: 300, default: 3600, description: 'cost per completed task is measured over this window' }),
            baseline_s: Type.Integer({ minimum: 3600, default: 86_400, description: 'against its mean over this baseline before the window' }),
            fire_ratio: Type.Number({ exclusiveMinimum: 1, default: 2, description: 'window over baseline at or above this fires' }),
            resolve_ratio: Type.Number({ minimum: 1, default: 1.5, description: 'below this it resolves' }),
            min_tasks: Type.Integer({ minimum: 1, default: 20, description: 'completed tasks needed in the window and in the baseline' }),
          },
          'warning',
          600,
        ),
        prober_unhealthy: rule({}, 'warning'),
        clients_degraded: rule(
          {
            window_s: Type.Integer({ minimum: 60, default: 300, description: 'clients judged over this much of the recent past' }),
            min_calls: Type.Integer({ minimum: 1, default: 20, description: 'calls the key, or a service on its own, needs in the window to page' }),
            resolve_error_share: Share(0.1, 'a firing alert holds while the key or a service still fails at this share or more, and resolves below'),
          },
          'critical',
          60,
        ),
        model_retiring: rule(
          {
            traffic_days: Type.Integer({ minimum: 1, maximum: 90, default: 7, description: 'a key called within this many days is in use' }),
            warning_days: Type.Integer({ minimum: 1, maximum: 365, default: 30, description: 'a model in use that retires within this many days fires as a warning' }),
            critical_days: Type.Integer({ minimum: 0, maximum: 365, default: 7, description: 'within this many days (and once retired while still called) it is critical' }),
            retired_calls_s: Type.Integer({ minimum: 60, maximum: 7_776_000, default: 3_600, description: 'once retired, it fires (critical) while the model was called within the last this many seconds; then it resolves: the callers have moved' }),
          },
          'warning',
        ),
        prober_silent: rule(
          {
            intervals: Type.Number({ exclusiveMinimum: 1, default: 5, description: "a location silent this many of its own probe intervals fires (its interval: how often it probed a key)" }),
            min_silent_s: Type.Integer({ minimum: 60, default: 300, description: 'never sooner than this silence' }),
            lookback_s: Type.Integer({ minimum: 600, default: 21_600, description: 'a location that probed within this is expected to keep probing' }),
          },
          'warning',
        ),
        serving_degraded: rule(
          {
            window_s: Type.Integer({ minimum: 600, default: 21_600, description: 'an operation\'s completed tasks are judged over this window' }),
            from_level: Type.Integer({ minimum: 1, maximum: 4, default: 3, description: 'tasks answered at this failover level or a later one count as served degraded (3: the cheaper model; 4: a cached or templated answer)' }),
            fire_share: Share(0.2, 'those tasks over the window\'s completed tasks at or above this fires, while the newest minute with tasks still is'),
            min_tasks: Type.Integer({ minimum: 1, default: 100, description: 'completed tasks the operation needs in the window to be judged' }),
            resolve_s: Type.Integer({ minimum: 0, default: 900, description: 'a firing alert resolves once the operation has been back on the earlier levels this long' }),
          },
          'warning',
        ),
      },
      { default: {}, additionalProperties: false },
    ),
  },
  { default: {}, additionalProperties: false },
);

/** One notifier (docs/alerts.md, "Notifiers"). URLs, routing keys and header values are secrets. */
const NotifierSchema = Type.Object(
  {
    name: Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$', description: 'names the notifier in logs, deliveries and /metrics' }),
    type: Type.Union([Type.Literal('webhook'), Type.Literal('slack'), Type.Literal('pagerduty'), Type.Literal('alertmanager')], { description: 'payload format and transport (docs/alerts.md, "Notifiers")' }),
    url: Type.Optional(Type.String({ pattern: '^https?://', description: 'required except for pagerduty (default Events v2 URL)' })),
    routing_key: Type.Optional(Type.String({ minLength: 1, description: 'PagerDuty integration key' })),
    headers: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z0-9-]{1,100}$' }), Type.String({ maxLength: 4000 }), { description: 'extra request headers (secrets: never logged)' })),
    min_severity: Severity('warning', 'alerts below this severity are not sent here'),
    rules: Type.Optional(Type.Array(Type.String(), { description: 'only these rules (default: all)' })),
    send_resolved: Type.Boolean({ default: true, description: 'also notify when an alert resolves' }),
    repeat_interval_s: Type.Optional(Type.Integer({ minimum: 10, description: 'default: alerts.repeat_interval_s (alertmanager: 60)' })),
    timeout_ms: Type.Integer({ minimum: 100, maximum: 120_000, default: 5000, description: 'one delivery attempt gives up after this' }),
    retries: Type.Integer({ minimum: 0, maximum: 10, default: 2, description: 'further attempts after a failed one' }),
    backoff_ms: Type.Integer({ minimum: 0, maximum: 60_000, default: 500, description: 'wait before the first retry, doubling each time (with jitter)' }),
    max_queue: Type.Integer({ minimum: 1, maximum: 100_000, default: 1000, description: 'deliveries waiting for this notifier at most; past it a new one is dropped and recorded as failed' }),
  },
  { additionalProperties: false },
);
/** Caps on breaker keys per ingest token and per source (docs/protocol.md, "Limits"). */
const KeyLimitsSection = Type.Object(
  {
    new_per_minute_per_token: Type.Integer({ minimum: 1, default: 2000, description: 'keys never stored before that one token may create per minute (429)' }),
    new_per_minute_per_source: Type.Integer({ minimum: 1, default: 2000, description: 'the same per source (service + instance)' }),
    live_per_token: Type.Integer({ minimum: 1, default: 10_000, description: 'distinct keys one token may report within live_window_s (400)' }),
    live_per_source: Type.Integer({ minimum: 1, default: 5000, description: 'the same per source' }),
    live_window_s: Type.Integer({ minimum: 60, default: 3600, description: 'a key not reported for this long stops counting as live' }),
  },
  { default: {}, additionalProperties: false },
);

/** Connection hygiene: how long a client may take, so slow or stalled ones are cut off. */
const HttpSection = Type.Object(
  {
    request_timeout_ms: Type.Integer({ minimum: 1000, default: 30_000, description: 'whole request, headers and body, must arrive within this (408)' }),
    headers_timeout_ms: Type.Integer({ minimum: 1000, default: 10_000, description: 'request headers must arrive within this' }),
    connection_timeout_ms: Type.Integer({ minimum: 1000, default: 60_000, description: 'a socket with no traffic for this long is closed' }),
    keep_alive_timeout_ms: Type.Integer({ minimum: 100, default: 5000, description: 'an idle keep-alive connection is closed after this' }),
    max_requests_per_socket: Type.Integer({ minimum: 0, default: 1000, description: 'requests one keep-alive connection may carry (0 = no limit)' }),
    check_interval_ms: Type.Integer({ minimum: 100, maximum: 30_000, default: 1000, description: 'how often the request and header timeouts are checked' }),
  },
  { default: {}, additionalProperties: false },
);

/** Watching the database file (docs/protocol.md, "Storage faults"). */
const StorageSection = Type.Object(
  {
    check_interval_ms: Type.Integer({ minimum: 100, default: 2000, description: 'how often the database file is checked (deleted, replaced, unwritable)' }),
    retry_after_s: Type.Integer({ minimum: 1, maximum: 3600, default: 5, description: 'Retry-After of a 503 while the database is faulty' }),
    pool_max: Type.Integer({ minimum: 2, maximum: 1000, default: 10, description: 'PostgreSQL: connections this collector holds at most' }),
    leader_renew_ms: Type.Integer({ minimum: 100, maximum: 60_000, default: 2000, description: 'PostgreSQL: how often the leader confirms its lease and followers try to take it (docs/storage.md)' }),
    leader_hold_ms: Type.Integer({ minimum: 500, maximum: 60_000, default: 8000, description: 'PostgreSQL: how long after its last confirmed renewal a leader still acts as one, and how long a hung leader\'s idle lease session lasts before the server ends it; keep it under 11 s, when the server drops a vanished leader' }),
  },
  { default: {}, additionalProperties: false },
);

/** The collector process's memory (docs/operations.md, "Memory"). */
const MemorySection = Type.Object(
  {
    heap_growing_percent: Type.Integer({
      minimum: 0,
      maximum: 1000,
      default: 50,
      description: "V8 grows a heap to (1 + this/100) x what survived the last full GC before collecting again (0 = V8's own factor, up to 4x)",
    }),
  },
  { default: {}, additionalProperties: false },
);

/** A shutdown date: a day (retired from 00:00 UTC) or an instant in UTC. */
const ShutdownDate = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,3})?)?Z)?$',
  description: 'the day the model stops answering (YYYY-MM-DD, retired from 00:00 UTC), or an instant (YYYY-MM-DDTHH:MM:SSZ)',
});

/** One model retirement (docs/lifecycle.md, "The calendar"): the shape of an operator entry and of a shipped one. */
export const RetirementEntrySchema = Type.Object(
  {
    provider: Type.String({ minLength: 1, maxLength: 100, description: 'the breaker key\'s provider, exactly (e.g. openai)' }),
    model: Type.String({ minLength: 1, maxLength: 300, description: 'the model id, exactly, or a pattern where * stands for any characters (e.g. gpt-5-2025-*)' }),
    shutdown: ShutdownDate,
    successor: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'the replacement the provider recommends' })),
    link: Type.Optional(Type.String({ pattern: '^https?://', maxLength: 2000, description: 'where the retirement is announced' })),
  },
  { additionalProperties: false },
);

/** Model lifecycle (docs/lifecycle.md): the retirement calendar behind the model_retiring rule, the model_retired hint and GET /api/lifecycle. */
const LifecycleSection = Type.Object(
  {
    shipped_calendar: Type.Boolean({ default: true, description: 'also read the calendar shipped with the collector (sourced entries only; an operator entry for the same provider and model wins)' }),
    retirements: Type.Array(RetirementEntrySchema, { default: [], maxItems: 2000, description: 'operator retirement entries: provider, model (or pattern with *), shutdown, successor, link' }),
  },
  { default: {}, additionalProperties: false },
);

/** The fleet feed (docs/fleet.md): decisions the collector sends to subscribed SDK instances. */
const FleetSection = Type.Object(
  {
    enabled: Type.Boolean({ default: true, description: 'derive fleet decisions from the verdicts and serve GET /v1/fleet (off: the route answers 404 and nothing is derived)' }),
    ttl_s: Type.Integer({ minimum: 5, maximum: 600, default: 60, description: 'time-to-live of a fleet_outage decision; renewed at every alert evaluation while the probe-confirmed verdict holds' }),
    max_probe_age_s: Type.Integer({ minimum: 10, maximum: 3600, default: 120, description: 'a failing location whose latest probe is older than this does not confirm an outage (stale probes never open the fleet)' }),
    poll_interval_ms: Type.Integer({ minimum: 100, maximum: 60_000, default: 1000, description: 'how often each collector reads new and renewed decisions from the database to push them to its subscribers' }),
    heartbeat_s: Type.Integer({ minimum: 1, maximum: 300, default: 15, description: 'an SSE comment is sent this often so proxies and load balancers keep an idle feed open' }),
    max_subscribers: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 20_000, description: 'feeds one collector holds at once; past it a new subscription answers 503 and the SDK retries later' }),
    max_buffered_bytes: Type.Integer({ minimum: 1024, maximum: 16 * 1024 * 1024, default: 64 * 1024, description: 'bytes a slow subscriber may have unsent before its feed is closed (memory per subscriber is bounded; it reconnects and gets a fresh snapshot)' }),
    max_drain_s: Type.Integer({ minimum: 60, maximum: 30 * 86_400, default: 86_400, description: 'longest expiry of an operator drain' }),
    recovery_probe_s: Type.Number({ minimum: 0, maximum: 600, default: 5, description: 'while a fleet outage holds, each location that decided it is asked for a probe of the key this often (doubling every minute of the outage, up to 60 s; within suspicion.max_per_location_per_hour): the fleet\'s half-open trial until the instances\' own capped trials resume, at their cooldown cap. 0 = never (recovery then waits for scheduled probes)' }),
  },
  { default: {}, additionalProperties: false },
);

/** Failure drills (docs/drills.md): commands sent over the fleet feed, their telemetry kept apart, and the reports. */
const DrillsSection = Type.Object(
  {
    enabled: Type.Boolean({ default: true, description: 'accept POST /api/drills and drill batches (off: starting a drill answers 404 and a batch with drill_id is refused); the SDK side is off unless an instance enables it' }),
    grace_s: Type.Integer({ minimum: 0, maximum: 3600, default: 30, description: 'a run is judged this long after it ends, so the telemetry its instances flush late is in the report' }),
    check_interval_ms: Type.Integer({ minimum: 100, maximum: 600_000, default: 1000, description: 'how often the leader looks for ended runs to judge' }),
    max_step_s: Type.Integer({ minimum: 1, maximum: 3600, default: 3600, description: 'longest one drill of a run may last' }),
  },
  { default: {}, additionalProperties: false },
);

/**
 * Everything the collector can be configured with, as read from the optional config file
 * (YAML or JSON, snake_case keys), then environment, then flags. Defaults live here and
 * nowhere else. Sections for verdicts, alerts and notifiers are added next to these.
 */
export const ConfigSchema = Type.Object(
  {
    port: Type.Integer({ minimum: 0, maximum: 65535, default: 7070, description: 'TCP port (0 = any free port)' }),
    host: Type.String({ minLength: 1, default: '127.0.0.1', description: 'interface to listen on' }),
    db: Type.String({ minLength: 1, default: './data/breakerbox.db', description: 'SQLite file (folder created), or a postgres:// URL (docs/storage.md)' }),
    admin_token: Type.Optional(Type.String({ minLength: 16, description: 'ensures an admin token with this secret' })),
    log_level: Type.Union(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
      { default: 'info', description: 'JSON logs through pino; never a token, cookie or body' },
    ),
    retention: Type.Object(
      {
        raw_days: Type.Number({ exclusiveMinimum: 0, maximum: 3650, default: 7, description: 'raw events (windows, probes, transitions) are kept this long' }),
        rollup_days: Type.Number({ exclusiveMinimum: 0, maximum: 3650, default: 90, description: 'per-minute rollups are kept this long' }),
        prune_interval_s: Type.Integer({ minimum: 1, default: 600, description: 'pruning runs this often, in steps of 2,000 rows that never hold the write lock for long' }),
      },
      { default: {}, additionalProperties: false },
    ),
    ingest: Type.Object(
      {
        body_limit_bytes: Type.Integer({ minimum: 1024, maximum: 64 * 1024 * 1024, default: 1024 * 1024, description: 'largest request body, also applied after gzip inflation (413)' }),
        max_future_ms: Type.Integer({ minimum: 0, default: 300_000, description: 'allowed clock skew of senders: events further in the future are refused' }),
        otlp_traces_hold_ms: Type.Integer({
          minimum: 0,
          maximum: 600_000,
          default: 5_000,
          description: 'OTLP spans are tallied per service, instance and key for this long before they are stored — one window per key and hold, whatever the span rate (docs/otlp.md); 0 = stored with the request',
        }),
        rate_limit: Type.Object(
          {
            per_second: Type.Number({ exclusiveMinimum: 0, default: 200, description: 'batches per second per token' }),
            burst: Type.Integer({ minimum: 1, default: 400, description: 'batches a token may send at once above the rate (429 past it)' }),
          },
          { default: {}, additionalProperties: false },
        ),
        max_inflight_body_bytes: Type.Integer({
          minimum: 1024 * 1024,
          default: 64 * 1024 * 1024,
          description: 'body bytes all uploads still being received may hold together; past it a body answers 503',
        }),
        keys: KeyLimitsSection,
      },
      { default: {}, additionalProperties: false },
    ),
    http: HttpSection,
    storage: StorageSection,
    memory: MemorySection,
    api: Type.Object(
      {
        default_limit: Type.Integer({ minimum: 1, maximum: 100_000, default: 500, description: 'entries per page of the read API lists' }),
        max_limit: Type.Integer({ minimum: 1, maximum: 100_000, default: 5000, description: 'largest `limit` a read API list accepts' }),
        read_worker: Type.Boolean({ default: true, description: '/api/verdicts, /api/keys and the /metrics state gauges are computed in a worker thread, off the event loop' }),
      },
      { default: {}, additionalProperties: false },
    ),
    otel: Type.Object(
      { endpoint: Type.Optional(Type.String({ minLength: 1, description: 'when set, traces of requests and database writes are exported over OTLP/HTTP; otherwise OpenTelemetry is not even loaded' })) },
      { default: {}, additionalProperties: false },
    ),
    verdicts: VerdictsSection,
    suspicion: SuspicionSection,
    alerts: AlertsSection,
    fleet: FleetSection,
    lifecycle: LifecycleSection,
    drills: DrillsSection,
    notifiers: Type.Array(NotifierSchema, { default: [], maxItems: 50, description: 'where alerts are sent (docs/alerts.md)' }),
    metrics: Type.Object(
      {
        open: Type.Boolean({ default: false, description: 'serve /metrics without a token (local scrape only)' }),
        window_s: Type.Integer({ minimum: 60, maximum: 86_400, default: 900, description: 'window the /metrics state gauges (open share, verdict) cover' }),
        state_gauges: Type.Boolean({ default: true, description: 'export breaker instances, open share and verdict per key (the verdict engine over every key, at a scrape unless the alert pass or the previous scrape judged them within alerts.interval_s)' }),
        max_series: Type.Integer({ minimum: 1, maximum: 100_000_000, default: 500_000, description: 'cap on per-key series on /metrics; keys past it are dropped whole and counted' }),
      },
      { default: {}, additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

/** The validated, fully defaulted configuration. */
export type Config = Static<typeof ConfigSchema>;
