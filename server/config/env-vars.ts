/** Environment variables and the setting each one sets (dot path into Config). */
export const ENV_SETTINGS: Readonly<Record<string, { path: string; type: 'int' | 'string' }>> = {
  BREAKERBOX_PORT: { path: 'port', type: 'int' },
  BREAKERBOX_HOST: { path: 'host', type: 'string' },
  BREAKERBOX_DB: { path: 'db', type: 'string' },
  BREAKERBOX_ADMIN_TOKEN: { path: 'admin_token', type: 'string' },
  BREAKERBOX_LOG_LEVEL: { path: 'log_level', type: 'string' },
  BREAKERBOX_ALERT_INTERVAL_S: { path: 'alerts.interval_s', type: 'int' },
  BREAKERBOX_SUSPICION_INTERVAL_S: { path: 'suspicion.interval_s', type: 'int' },
  BREAKERBOX_OTLP_TRACES_HOLD_MS: { path: 'ingest.otlp_traces_hold_ms', type: 'int' },
  OTEL_EXPORTER_OTLP_ENDPOINT: { path: 'otel.endpoint', type: 'string' },
};
