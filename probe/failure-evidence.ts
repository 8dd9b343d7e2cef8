import type { ProbeEvent } from '@breakerbox/protocol';
import { MAX_SAMPLE_MESSAGE_CHARS, createRedactor, redactText } from '@breakerbox/protocol';
import type { ExchangeResult } from './exchange.ts';

/**
 * A failed probe's evidence for the provider ticket: the upstream request id and the error
 * body's type/code/message — the message with the target's own key removed, then through the
 * protocol's redaction (keys, bearer tokens, e-mail addresses) and cut to the sample size.
 */
export function failureEvidence(r: ExchangeResult, apiKey: string | undefined): Pick<ProbeEvent, 'upstream_request_id' | 'error_type' | 'error_code' | 'message'> {
  const out: Pick<ProbeEvent, 'upstream_request_id' | 'error_type' | 'error_code' | 'message'> = {};
  if (r.upstreamRequestId) out.upstream_request_id = r.upstreamRequestId;
  const e = r.providerError;
  if (e?.type) out.error_type = e.type.slice(0, 100);
  if (e?.code) out.error_code = e.code.slice(0, 100);
  if (e?.message) {
    const message = redactText(createRedactor([apiKey])(e.message), MAX_SAMPLE_MESSAGE_CHARS);
    if (message) out.message = message;
  }
  return out;
}
