import type { ProbeEvent } from '@breakerbox/protocol';
import { MAX_ANSWER_EXCERPT_CHARS, MAX_SAMPLE_MESSAGE_CHARS, createRedactor, redactText } from '@breakerbox/protocol';
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

/**
 * A probe's answer facts (issue 39): the served model version (`model_served` cut to 300 characters as a call sample's, `system_fingerprint` to 200), and
 * for a `wrong_answer` what the canary expected (`message`) and the answer's first characters
 * (`answer_excerpt`) — redacted as a failure's message is, then cut.
 */
export function answerEvidence(r: ExchangeResult, apiKey: string | undefined): Pick<ProbeEvent, 'model_served' | 'system_fingerprint' | 'message' | 'answer_excerpt'> {
  const out: Pick<ProbeEvent, 'model_served' | 'system_fingerprint' | 'message' | 'answer_excerpt'> = {};
  const redact = createRedactor([apiKey]);
  const model = r.served?.model && redactText(redact(r.served.model), 300);
  const fingerprint = r.served?.fingerprint && redactText(redact(r.served.fingerprint), 200);
  if (model) out.model_served = model;
  if (fingerprint) out.system_fingerprint = fingerprint;
  if (r.wrongAnswer) {
    out.message = redactText(redact(r.wrongAnswer.reason), MAX_SAMPLE_MESSAGE_CHARS);
    // An empty answer keeps an empty excerpt: "it said nothing" is evidence too.
    out.answer_excerpt = redactText(redact(r.wrongAnswer.received), MAX_ANSWER_EXCERPT_CHARS);
  }
  return out;
}
