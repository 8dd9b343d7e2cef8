/**
 * Mid-stream rescue: the stream a caller reads when an answer breaks after its first
 * token. It forwards the guarded upstream's frames and keeps the text delivered so far;
 * when the upstream breaks with a provider-side failure, it asks for a rescue and splices
 * the new upstream in so the caller reads one answer:
 *
 * - `continue` (assistant prefill): the new answer starts where the delivered text ends;
 *   its head frames are dropped and its text is forwarded (minus whitespace the prefill
 *   had to trim and the caller already has).
 * - `regenerate`: the new answer is the whole answer again; its text is checked against
 *   what was delivered, character by character, and only what goes past it is forwarded.
 *   An answer that differs (or ends) within the delivered text is abandoned: the caller
 *   never sees repeated or contradictory text.
 *
 * Frames the caller already holds are not sent twice: the new answer's head frames (as
 * many as the caller got: `message_start`, `response.created`, …) are dropped, so are the
 * tail frames the caller got when the break came after the text ended (block stops,
 * `response.output_text.done`; the new answer must then end exactly there), and so is
 * its reasoning (a thinking block, a reasoning item) when the caller holds a finished one
 * of its own — the caller keeps the reasoning it was shown and one copy of the text.
 *
 * When nothing can rescue it (tool-call arguments or other non-text content were
 * delivered — a regenerated call would carry a new id, and the caller could run the tool
 * twice —, the break came inside a thinking block or reasoning item, the tail was already
 * delivered, rescues are used up, or the rescue itself fails), the caller gets the clean
 * `BB_ERR_SDK_STREAM_BROKEN` error. The upstreams are guarded streams: they end in a
 * `BreakerboxError` and forward whole frames.
 */
import { BreakerboxError, SDK_ERROR_CODES } from '../errors/catalog.ts';
import { classifyThrown, countsAgainstProvider, type SseEvent } from '@breakerbox/protocol';
import type { StreamDialect } from './stream-dialect.ts';
import { sseFraming, type StreamFraming } from './stream-framing.ts';

/** How a rescue upstream relates to the delivered text. */
export type RescueMode = 'continue' | 'regenerate';

/** What the rescuing stream needs from its owner. */
export interface RescueHost {
  dialect: StreamDialect;
  /** The wire format of the upstreams and of what the caller reads (SSE when not given). */
  framing?: StreamFraming;
  /** Rescues allowed per answer (divergent regenerations included). */
  maxRescues: number;
  /** Whether to ask for a continuation first (the dialect and the options allow prefill). */
  prefill: boolean;
  /**
   * Starts a rescue after `delivered`; resolves with the new guarded body and the mode it
   * actually uses (a rejected prefill comes back as `regenerate`), or rejects.
   */
  start(mode: RescueMode, delivered: string, prefillText: string): Promise<{ body: ReadableStream<Uint8Array>; mode: RescueMode }>;
  /** Called once when the caller's stream ends: `rescues` made, and the error if it failed. */
  onEnd(ok: boolean, rescues: number, error: BreakerboxError | undefined, cancelled: boolean): void;
}

type Phase =
  | { name: 'pass' }
  | { name: 'replay'; matched: number; heads: number }
  | { name: 'continue'; skip: string; heads: number }
  /** The new answer retraced all the text and must now end there: its first `tails` tail frames are the caller's already. */
  | { name: 'tail'; tails: number; heads: number };

/** Wraps the first guarded body in a stream that rescues it (see the module comment). */
export function rescuingStream(first: ReadableStream<Uint8Array>, host: RescueHost): ReadableStream<Uint8Array> {
  let reader = first.getReader();
  const framing = host.framing ?? sseFraming;
  const encoder = framing.encoder();
  let sse = framing.decoder();
  let readText = host.dialect.textReader();
  let delivered = '';
  /** Head frames the caller got; a new answer's first as many are dropped. */
  let headsDelivered = 0;
  /** Tail frames the caller got (block stop, `response.output_text.done`, …) before the end event went missing. */
  let tailsDelivered = 0;
  /** The caller holds part of a reasoning block that has not finished. */
  let asideOpen = false;
  let rescuable = true;
  let rescues = 0;
  let phase: Phase = { name: 'pass' };
  let ended = false;

  const finish = (ok: boolean, error: BreakerboxError | undefined, cancelled: boolean) => {
    if (ended) return;
    ended = true;
    host.onEnd(ok, rescues, error, cancelled);
  };

  /** Processes one upstream event; returns the event to enqueue, undefined to drop it, or null when the upstream diverged. */
  const onFrame = (frame: SseEvent): SseEvent | undefined | null => {
    const t = readText(frame);
    if (phase.name === 'pass') {
      if (t.kind === 'text') delivered += t.text;
      if (t.kind === 'head') headsDelivered++;
      if (t.kind === 'aside') asideOpen = t.open;
      if (t.kind === 'tail') tailsDelivered++;
      if (t.kind === 'opaque' || (t.kind === 'text' && t.final)) rescuable = false;
      return frame;
    }
    // The new answer's own reasoning: the caller keeps the one it was shown.
    if (t.kind === 'aside') return undefined;
    if (t.kind === 'head') {
      if (phase.heads <= 0) {
        headsDelivered++;
        return frame;
      }
      phase.heads--;
      return undefined;
    }
    if (phase.name === 'tail') {
      // The original ended here: more text, or anything else, is another answer.
      if (t.kind !== 'tail') return null;
      if (phase.tails <= 0) return frame;
      phase = phase.tails === 1 ? { name: 'pass' } : { name: 'tail', tails: phase.tails - 1, heads: phase.heads };
      return undefined;
    }
    if (phase.name === 'continue') {
      if (t.kind !== 'text') {
        phase = { name: 'pass' };
        return onFrame(frame);
      }
      let text = t.text;
      while (phase.skip && text && text[0] === phase.skip[0]) {
        text = text.slice(1);
        phase = { name: 'continue', skip: phase.skip.slice(1), heads: phase.heads };
      }
      if (t.final) rescuable = false;
      if (!text) return undefined;
      phase = { name: 'pass' };
      delivered += text;
      return text === t.text ? frame : host.dialect.withText(frame, text);
    }
    // replay: the new answer must retrace the delivered text exactly.
    if (t.kind !== 'text') return null;
    const rest = delivered.length - phase.matched;
    const piece = t.text;
    if (piece.length <= rest) {
      if (delivered.startsWith(piece, phase.matched)) {
        phase = { name: 'replay', matched: phase.matched + piece.length, heads: phase.heads };
        if (phase.matched === delivered.length) phase = tailsDelivered > 0 ? { name: 'tail', tails: tailsDelivered, heads: phase.heads } : { name: 'pass' };
        return undefined;
      }
      return null;
    }
    if (tailsDelivered > 0 || !piece.startsWith(delivered.slice(phase.matched))) return null;
    const beyond = piece.slice(rest);
    if (t.final) rescuable = false;
    phase = { name: 'pass' };
    delivered += beyond;
    return host.dialect.withText(frame, beyond);
  };

  const notRescued = (err: unknown, why: string): BreakerboxError => {
    const base = err instanceof BreakerboxError ? err.message : String((err as Error)?.message ?? err);
    return new BreakerboxError(SDK_ERROR_CODES.STREAM_BROKEN, `${base}; not rescued: ${why}`, { errorClass: 'stream_broken', cause: err });
  };

  /** Replaces the upstream after a break or a divergence; throws the error the caller should get. */
  const rescue = async (err: unknown, diverged: boolean): Promise<void> => {
    const cls = classifyThrown(err);
    if (!diverged && !(err instanceof BreakerboxError && countsAgainstProvider(cls))) throw err;
    if (!rescuable) throw notRescued(err, 'the answer so far is not plain text (a tool call is never sent twice), or its end was already delivered');
    if (tailsDelivered > 0 && delivered.length === 0) throw notRescued(err, 'the answer ended without text');
    if (asideOpen) throw notRescued(err, 'it broke inside a thinking block or reasoning item');
    if (rescues >= host.maxRescues) throw notRescued(err, `${host.maxRescues} rescue${host.maxRescues === 1 ? '' : 's'} used up`);
    rescues++;
    const prefillText = delivered.replace(/\s+$/, '');
    const wanted: 'continue' | 'regenerate' = host.prefill && prefillText.length > 0 && tailsDelivered === 0 ? 'continue' : 'regenerate';
    let next: { body: ReadableStream<Uint8Array>; mode: RescueMode };
    try {
      next = await host.start(wanted, delivered, prefillText);
    } catch (e) {
      throw notRescued(err, `the rescue failed (${(e as Error)?.message ?? String(e)})`);
    }
    if (ended) {
      // The caller stopped reading while the rescue was starting: let its upstream go too.
      next.body.cancel().catch(() => undefined);
      throw notRescued(err, 'the caller stopped reading');
    }
    reader = next.body.getReader();
    sse = framing.decoder();
    readText = host.dialect.textReader();
    phase =
      next.mode === 'continue'
        ? { name: 'continue', skip: delivered.slice(prefillText.length), heads: headsDelivered }
        : { name: 'replay', matched: 0, heads: headsDelivered };
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        let r: ReadableStreamReadResult<Uint8Array>;
        try {
          r = await reader.read();
        } catch (err) {
          try {
            await rescue(err, false);
          } catch (final) {
            const e = final instanceof BreakerboxError ? final : notRescued(final, 'unexpected error');
            finish(false, e, false);
            controller.error(e);
            return;
          }
          continue;
        }
        if (r.done) {
          if (phase.name === 'replay') {
            // The new answer ended inside the delivered text: it cannot be used.
            try {
              await rescue(new BreakerboxError(SDK_ERROR_CODES.STREAM_BROKEN, 'regenerated answer ended within the delivered text', { errorClass: 'stream_broken' }), true);
            } catch (final) {
              finish(false, final as BreakerboxError, false);
              controller.error(final);
              return;
            }
            continue;
          }
          finish(true, undefined, false);
          // A framing that closes its stream (a JSON array's `]`) gets its closing bytes.
          const closing = encoder.end();
          if (closing) controller.enqueue(closing);
          controller.close();
          return;
        }
        const out: Uint8Array[] = [];
        let diverged = false;
        for (const frame of sse.push(r.value)) {
          const f = onFrame(frame);
          if (f === null) {
            diverged = true;
            break;
          }
          if (f) out.push(encoder.frame(f));
        }
        if (out.length) controller.enqueue(out.length === 1 ? out[0]! : Buffer.concat(out));
        if (diverged) {
          reader.cancel(new Error('regenerated answer diverged')).catch(() => undefined);
          try {
            await rescue(new BreakerboxError(SDK_ERROR_CODES.STREAM_BROKEN, 'regenerated answer diverged from the text already delivered', { errorClass: 'stream_broken' }), true);
          } catch (final) {
            finish(false, final as BreakerboxError, false);
            controller.error(final);
            return;
          }
          continue;
        }
        if (out.length) return;
      }
    },
    cancel(reason) {
      finish(false, undefined, true);
      return reader.cancel(reason).catch(() => undefined);
    },
  });
}
