import { Type } from '@sinclair/typebox';
import { AckSchema, BatchEnvelopeSchema } from '@breakerbox/protocol/schemas';
import { ErrorReplies } from './common.ts';

/**
 * The ingest routes: `POST /v1/telemetry` (protocol v1, docs/protocol.md) and OTLP/HTTP
 * `POST /v1/metrics`, `POST /v1/logs`, `POST /v1/traces` (docs/otlp.md).
 */

/**
 * `POST /v1/telemetry`. The body is read by the route's own parser (size cap, gzip) and
 * validated per event type in the handler, so an error names the exact field; the envelope
 * schema documents it.
 */
export const TelemetryRoute = {
  description: 'Telemetry protocol v1 (validated per event type in the handler, so errors name the exact field).',
  response: { 200: AckSchema, ...ErrorReplies },
};
/** The envelope of a protocol v1 batch (events are then validated per type). */
export const TelemetryBody = BatchEnvelopeSchema;

/**
 * OTLP's `Export*ServiceResponse` in its JSON encoding: `{}` when everything was taken,
 * else `partialSuccess` with the refused count (an int64, so a string) and why. A protobuf
 * request gets the same message in protobuf, and errors a `google.rpc.Status`; the route
 * writes those bytes itself, so this schema documents the JSON form only.
 */
const partialSuccess = (field: 'rejectedDataPoints' | 'rejectedLogRecords' | 'rejectedSpans') =>
  Type.Object({
    partialSuccess: Type.Optional(Type.Object({ [field]: Type.Optional(Type.String()), errorMessage: Type.Optional(Type.String()) })),
  });
export const MetricsExportReply = partialSuccess('rejectedDataPoints');
export const LogsExportReply = partialSuccess('rejectedLogRecords');
export const TracesExportReply = partialSuccess('rejectedSpans');

/**
 * Failures go through the shared error handler as the one error body, then the OTLP routes
 * rewrite it into a `google.rpc.Status` in the request's encoding (`{code, message, error}`
 * in JSON), which is what an OTLP exporter reads.
 */
const OtlpErrors = ErrorReplies;

/** Route schemas. */
export const OtlpMetricsRoute = { description: 'OTLP/HTTP metrics, protobuf or JSON, gzip or not.', response: { 200: MetricsExportReply, ...OtlpErrors } };
export const OtlpLogsRoute = { description: 'OTLP/HTTP logs, protobuf or JSON, gzip or not.', response: { 200: LogsExportReply, ...OtlpErrors } };
export const OtlpTracesRoute = { description: 'OTLP/HTTP traces, protobuf or JSON, gzip or not.', response: { 200: TracesExportReply, ...OtlpErrors } };
