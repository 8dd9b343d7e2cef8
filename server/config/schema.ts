import { Type, type Static } from '@sinclair/typebox';

/**
 * Everything the collector can be configured with, as read from the optional config file
 * (YAML or JSON, snake_case keys), then environment, then flags. Defaults live here and
 * nowhere else. Sections for verdicts, alerts and notifiers are added next to these.
 */
export const ConfigSchema = Type.Object(
  {
    port: Type.Integer({ minimum: 0, maximum: 65535, default: 7070, description: 'TCP port (0 = any free port)' }),
    host: Type.String({ minLength: 1, default: '127.0.0.1', description: 'interface to listen on' }),
    db: Type.String({ minLength: 1, default: './data/breakerbox.db', description: 'SQLite file (folder created)' }),
    admin_token: Type.Optional(Type.String({ minLength: 16, description: 'ensures an admin token with this secret' })),
    log_level: Type.Union(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
      { default: 'info' },
    ),
    retention: Type.Object(
      {
        raw_days: Type.Number({ exclusiveMinimum: 0, maximum: 3650, default: 7 }),
        rollup_days: Type.Number({ exclusiveMinimum: 0, maximum: 3650, default: 90 }),
        prune_interval_s: Type.Integer({ minimum: 1, default: 600 }),
      },
      { default: {}, additionalProperties: false },
    ),
    ingest: Type.Object(
      {
        body_limit_bytes: Type.Integer({ minimum: 1024, maximum: 64 * 1024 * 1024, default: 1024 * 1024 }),
        max_future_ms: Type.Integer({ minimum: 0, default: 300_000 }),
        rate_limit: Type.Object(
          {
            per_second: Type.Number({ exclusiveMinimum: 0, default: 200, description: 'batches per second per token' }),
            burst: Type.Integer({ minimum: 1, default: 400 }),
          },
          { default: {}, additionalProperties: false },
        ),
      },
      { default: {}, additionalProperties: false },
    ),
    otel: Type.Object(
      { endpoint: Type.Optional(Type.String({ minLength: 1 })) },
      { default: {}, additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

/** The validated, fully defaulted configuration. */
export type Config = Static<typeof ConfigSchema>;
