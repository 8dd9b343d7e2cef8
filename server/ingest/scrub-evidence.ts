/**
 * The collector's own pass over the evidence a sender reports (a window's call samples, a
 * failed probe's error): senders redact before sending, but an older SDK, another OTLP
 * exporter or a hand-written sender may not, and the text is stored, shown on pages and sent
 * to notifiers. The same protocol redactor the senders use, and the same removal of what a
 * provider's message quotes from the request (without the request, which the collector
 * never sees): quoting fields and long quoted text go, an unterminated quote drops the message.
 */
import type { CallSample, ProbeEvent, TelemetryBatch } from '@breakerbox/protocol';
import { MAX_SAMPLE_MESSAGE_CHARS, redactText, withoutRequestText } from '@breakerbox/protocol';

/** Longest error type / code kept (as the senders cut them). */
const MAX_CODE_CHARS = 100;

type Evidence = Pick<CallSample & ProbeEvent, 'error_type' | 'error_code' | 'message'>;

function scrub(e: Evidence): void {
  if (e.error_type) e.error_type = redactText(e.error_type, MAX_CODE_CHARS);
  if (e.error_code) e.error_code = redactText(e.error_code, MAX_CODE_CHARS);
  if (e.message) {
    const own = withoutRequestText(e.message);
    if (own) e.message = redactText(own, MAX_SAMPLE_MESSAGE_CHARS);
    else delete e.message;
  }
}

/** Redacts, in place, every sample and probe error of a validated batch. */
export function scrubEvidence(batch: TelemetryBatch): void {
  for (const event of batch.events) {
    if (event.type === 'window') for (const s of event.samples ?? []) scrub(s);
    else if (event.type === 'probe') scrub(event);
  }
}
