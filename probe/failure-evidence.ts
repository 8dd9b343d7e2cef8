import type { ProbeEvent } from '@breakerbox/protocol';
import { MAX_SAMPLE_MESSAGE_CHARS, createRedactor, redactText } from '@breakerbox/protocol';
import type { ExchangeResult } from './exchange.ts';

/**
 * A failed probe's evidence for the provider ticket: the upstream request id and the error
 * body's type/code/message — each with the target's own key removed, then through the
 * protocol's catalogue of secret formats (one `[redacted]` per secret), and cut.
 */
export function failureEvidence(r: ExchangeResult, apiKey: string | undefined): Pick<ProbeEvent, 'upstream_request_id' | 'error_type' | 'error_code' | 'message'> {
  const out: Pick<ProbeEvent, 'upstream_request_id' | 'error_type' | 'error_code' | 'message'> = {};
  if (r.upstreamRequestId) out.upstream_request_id = r.upstreamRequestId;
  const e = r.providerError;
  const redact = createRedactor([apiKey]);
  if (e?.type) out.error_type = redactText(redact(e.type), 100);
  if (e?.code) out.error_code = redactText(redact(e.code), 100);
  if (e?.message) {
    const message = redactText(redact(e.message), MAX_SAMPLE_MESSAGE_CHARS);
    if (message) out.message = message;
  }
  return out;
}
