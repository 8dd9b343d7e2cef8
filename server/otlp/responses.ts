/**
 * OTLP/HTTP answers, in the encoding of the request: `Export{Metrics,Logs,Trace}ServiceResponse`
 * with `partial_success` set only when something was refused, and `google.rpc.Status` for
 * failures (OTLP requires it for every 4xx/5xx body).
 */
import type { ErrorBody } from '../errors.ts';

/** The signal a route serves: its partial-success field name differs. */
export type Signal = 'metrics' | 'logs' | 'traces';

function varint(n: number, out: number[]): void {
  let v = Math.max(0, Math.floor(n));
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

function bytesField(field: number, bytes: Uint8Array, out: number[]): void {
  out.push((field << 3) | 2);
  varint(bytes.length, out);
  for (const b of bytes) out.push(b);
}

/** The success answer: empty when nothing was refused, else `partial_success`. */
export function exportResponse(signal: Signal, protobuf: boolean, rejected: number, message: string): Buffer | string {
  if (protobuf) {
    if (rejected === 0 && !message) return Buffer.alloc(0);
    const inner: number[] = [];
    if (rejected > 0) {
      inner.push((1 << 3) | 0);
      varint(rejected, inner);
    }
    if (message) bytesField(2, Buffer.from(message, 'utf8'), inner);
    const out: number[] = [];
    bytesField(1, Uint8Array.from(inner), out);
    return Buffer.from(out);
  }
  if (rejected === 0 && !message) return '{}';
  const field = signal === 'metrics' ? 'rejectedDataPoints' : signal === 'traces' ? 'rejectedSpans' : 'rejectedLogRecords';
  return JSON.stringify({ partialSuccess: { [field]: String(rejected), errorMessage: message } });
}

/** gRPC status codes for the HTTP statuses the collector answers with. */
function grpcCode(status: number): number {
  if (status === 400 || status === 413) return 3; // INVALID_ARGUMENT
  if (status === 401) return 16; // UNAUTHENTICATED
  if (status === 403) return 7; // PERMISSION_DENIED
  if (status === 415) return 3;
  if (status === 429) return 8; // RESOURCE_EXHAUSTED
  if (status === 503) return 14; // UNAVAILABLE
  return 13; // INTERNAL
}

/**
 * The failure answer: a `Status` whose message carries breakerbox's code and path. The JSON
 * form keeps breakerbox's own `error` object beside `code` and `message`.
 */
export function statusResponse(status: number, body: ErrorBody, protobuf: boolean): Buffer | string {
  const { code, message, path } = body.error;
  const text = `${code}: ${message}${path !== undefined ? ` (at ${path})` : ''}`;
  if (!protobuf) return JSON.stringify({ code: grpcCode(status), message: text, error: body.error });
  const out: number[] = [(1 << 3) | 0];
  varint(grpcCode(status), out);
  bytesField(2, Buffer.from(text, 'utf8'), out);
  return Buffer.from(out);
}
