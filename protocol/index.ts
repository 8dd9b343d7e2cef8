/**
 * `@breakerbox/protocol` — what the SDK, the prober and the collector share, defined once:
 * the protocol v1 wire types and the TypeBox schemas that validate them, the error
 * taxonomy and its classifier, breaker key ids, the minute floor and rollup columns, the
 * clock interface, and the one telemetry sender.
 */
export type * from './types.ts';
export { DEFAULT_LATENCY_BOUNDS_MS, TRANSITION_REASONS, DRILL_KINDS } from './types.ts';
export * from './fleet.ts';
export * from './schemas.ts';
export { ERROR_CLASSES, PROVIDER_CLASSES, CLIENT_CLASSES, isRetryable, retryNeedsCare, countsAgainstProvider, isErrorClass } from './taxonomy.ts';
export {
  classifyHttpError,
  classifyErrorBody,
  classifyThrown,
  classifyFinishReason,
  classifyAwsError,
  awsErrorTypeOf,
  parseRetryAfter,
  providerErrorInfo,
  retryAfterFromHeaders,
  retryAfterOfError,
} from './classify.ts';
export type { ProviderErrorInfo } from './classify.ts';
export { googleRetryDelayMs } from './classify-google.ts';
export { keyId, keyLabel, cleanKey } from './key.ts';
export { providerOf, knownProviderOf, hostOf } from './provider-name.ts';
export { pathFamilyOf, MAX_PATH_FAMILY_CHARS } from './path-family.ts';
export { PassthroughTally, PASSTHROUGH_OTHER } from './passthrough-tally.ts';
export type { PassthroughSource } from './passthrough-tally.ts';
export { MINUTE_MS, minuteOf } from './time.ts';
export { ROLLUP_BUCKETS, KEY_COLUMNS, TASK_COLUMNS, TASK_KEY_COLUMNS, SOURCE_COLUMNS, PROBE_COLUMNS } from './rollup-columns.ts';
export { systemClock, sleep } from './clock.ts';
export type { Clock, TimerHandle } from './clock.ts';
export { TelemetrySender, newBatchId } from './telemetry-sender.ts';
export type { SenderOptions, SenderStats, SenderError } from './telemetry-sender.ts';
export { redactText, createRedactor, redactDeep, REDACTED } from './redact-text.ts';
export type { Redactor } from './redact-text.ts';
export { SECRET_FORMATS, isSecretName } from './secret-formats.ts';
export type { SecretFormat } from './secret-formats.ts';
export { withoutRequestText, requestStringsOf } from './request-echo.ts';
export { UPSTREAM_REQUEST_ID_HEADERS, upstreamRequestIdOf } from './upstream-request-id.ts';
export { deprecationSignalOf, parseDeprecation, parseHttpDate } from './deprecation-headers.ts';
export type { DeprecationSignal } from './deprecation-headers.ts';
export { SseReader, formatSseEvent } from './sse-reader.ts';
export type { SseEvent } from './sse-reader.ts';
export { AwsEventReader, EventStreamReader, awsEventMessage, awsEventOf, encodeEventStreamMessage, decodeEventStreamMessage, crc32 } from './aws-event-stream.ts';
export type { EventStreamMessage, EventStreamHeaderValue } from './aws-event-stream.ts';
export { nativeEndpointOf } from './native-endpoints.ts';
