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

/**
 * Texts already scrubbed, and what they became (null: a message dropped): in an outage
 * thousands of samples carry the same few provider messages and codes, and a lookup is far
 * cheaper than the catalogue's pass. Bounded: each map is cleared when full.
 */
const codes = new Map<string, string>();
const messages = new Map<string, string | null>();
const CACHE_ENTRIES = 1_000;

function memo<T>(done: Map<string, T>, text: string, scrubOne: (t: string) => T): T {
  let out = done.get(text);
  if (out === undefined) {
    out = scrubOne(text);
    if (done.size >= CACHE_ENTRIES) done.clear();
    done.set(text, out);
  }
  return out;
}

const scrubCode = (t: string): string => redactText(t, MAX_CODE_CHARS);
const scrubMessage = (t: string): string | null => {
  const own = withoutRequestText(t);
  return own ? redactText(own, MAX_SAMPLE_MESSAGE_CHARS) : null;
};

function scrub(e: Evidence): void {
  if (e.error_type) e.error_type = memo(codes, e.error_type, scrubCode);
  if (e.error_code) e.error_code = memo(codes, e.error_code, scrubCode);
  if (e.message) {
    const own = memo(messages, e.message, scrubMessage);
    if (own) e.message = own;
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
