/**
 * Wraps a model's SSE response body so that every way a stream can go wrong becomes a
 * clean, classified outcome: no first token within `firstTokenMs` → `timeout`; an idle
 * gap over `idleMs`, a cut connection, a malformed chunk (or, with `malformed: 'skip'`,
 * the chunk is dropped), or an end without the dialect's end event (`[DONE]`,
 * `message_stop`, `response.completed`) and without a finish → `stream_broken`; a
 * `length` / `max_tokens` / `max_output_tokens` finish → `truncated`, a content filter →
 * `policy`, never a success. What each event means is the dialect's (`stream-dialect.ts`).
 *
 * A stream that delivered its finish reason and usage but not its end event is finalised
 * promptly (after `endGraceMs`) as a success, with usage reported.
 *
 * With `hold`, `ready` waits for the whole answer instead of its first token (buffered
 * mode): any failure then happens before the caller has read anything.
 *
 * The guard forwards whole frames only, so a consumer never sees half an event.
 */
import type { ErrorClass } from '@breakerbox/protocol';
import type { Clock, TimerHandle } from '../clock.ts';
import { BreakerboxError, SDK_ERROR_CODES } from '../errors/catalog.ts';
import { classifyFinishReason, type SseEvent } from '@breakerbox/protocol';
import type { StreamDialect } from './stream-dialect.ts';
import { sseFraming, type StreamFraming } from './stream-framing.ts';

/** Guard settings. */
export interface StreamGuardOptions {
  dialect: StreamDialect;
  /** How the body's bytes are cut into events (SSE when not given). */
  framing?: StreamFraming;
  clock: Clock;
  /** When the attempt started (TTFT is measured from here). */
  startedAt: number;
  firstTokenMs?: number;
  idleMs?: number;
  /** After finish and usage, how long to wait for the end event, ms. */
  endGraceMs: number;
  /** Whether usage is expected before the end event (the dialect's `usageBeforeEnd` for the request). */
  expectUsage: boolean;
  malformed: 'error' | 'skip';
  /** Aborts the upstream request (frees the connection). */
  abortUpstream: (reason: unknown) => void;
  /** Settle `ready` only when the answer is complete (buffered mode). */
  hold?: boolean;
}

/** How the stream ended. `cancelled`: the consumer stopped reading; no outcome. */
export interface StreamSummary {
  cls: ErrorClass | null;
  cancelled: boolean;
  error?: BreakerboxError;
  finishReason?: string;
  inputTokens?: number;
  outputTokens?: number;
  cachedTokens?: number;
  reasoningTokens?: number;
  ttftMs?: number;
  tokens: number;
  skippedFrames: number;
}

/** A guarded stream. `ready` settles at the first token (or the end): rejects for failures before it. */
export interface GuardedStream {
  ready: Promise<void>;
  stream: ReadableStream<Uint8Array>;
}

/** Starts reading `body` under the guard. `onEnd` is called exactly once. */
export function guardStream(body: ReadableStream<Uint8Array>, o: StreamGuardOptions, onEnd: (s: StreamSummary) => void): GuardedStream {
  const reader = body.getReader();
  const framing = o.framing ?? sseFraming;
  const sse = framing.decoder();
  const encoder = framing.encoder();
  const summary: StreamSummary = { cls: null, cancelled: false, tokens: 0, skippedFrames: 0 };
  let finished = false;
  let endSeen = false;
  let firstSeen = false;
  let usageSeen = false;
  let timer: TimerHandle | undefined;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let resolveReady!: () => void;
  let rejectReady!: (e: unknown) => void;
  const ready = new Promise<void>((res, rej) => {
    resolveReady = res;
    rejectReady = rej;
  });
  ready.catch(() => undefined);

  const arm = (ms: number | undefined, fire: () => void) => {
    if (timer !== undefined) o.clock.clearTimeout(timer);
    timer = ms === undefined ? undefined : o.clock.setTimeout(fire, ms);
  };

  const end = (cls: ErrorClass | null, error?: BreakerboxError) => {
    if (finished) return;
    finished = true;
    if (timer !== undefined) o.clock.clearTimeout(timer);
    summary.cls = cls;
    if (error) {
      summary.error = error;
      o.abortUpstream(error);
      reader.cancel(error).catch(() => undefined);
      rejectReady(error);
      try {
        controller.error(error);
      } catch {
        // already closed by the consumer
      }
    } else {
      resolveReady();
      reader.cancel().catch(() => undefined);
      try {
        const closing = encoder.end();
        if (closing) controller.enqueue(closing);
        controller.close();
      } catch {
        // already closed
      }
    }
    onEnd(summary);
  };

  const broken = (message: string, cause?: unknown) =>
    end('stream_broken', new BreakerboxError(SDK_ERROR_CODES.STREAM_BROKEN, message, { errorClass: 'stream_broken', cause }));

  const complete = () => {
    const cls = classifyFinishReason(summary.finishReason) ?? null;
    end(cls);
  };

  const onFrame = (frame: SseEvent) => {
    const f = o.dialect.interpret(frame);
    if (f.malformed) {
      if (o.malformed === 'skip') {
        summary.skippedFrames++;
        return;
      }
      broken('malformed chunk in stream');
      return;
    }
    if (f.error) {
      const code = f.error.cls === 'stream_broken' ? SDK_ERROR_CODES.STREAM_BROKEN : SDK_ERROR_CODES.PROVIDER_ERROR;
      end(f.error.cls, new BreakerboxError(code, `provider error in stream: ${f.error.message}`, { errorClass: f.error.cls, providerReason: f.error.message }));
      return;
    }
    controller.enqueue(encoder.frame(frame));
    if (f.inputTokens !== undefined) summary.inputTokens = f.inputTokens;
    if (f.cachedTokens !== undefined) summary.cachedTokens = f.cachedTokens;
    if (f.reasoningTokens !== undefined) summary.reasoningTokens = f.reasoningTokens;
    if (f.outputTokens !== undefined) {
      summary.outputTokens = f.outputTokens;
      usageSeen = true;
    }
    if (f.finishReason) summary.finishReason = f.finishReason;
    if (f.token) {
      summary.tokens++;
      if (!firstSeen) {
        firstSeen = true;
        summary.ttftMs = o.clock.now() - o.startedAt;
        if (!o.hold) resolveReady();
      }
    }
    if (f.end) {
      endSeen = true;
      complete();
      return;
    }
    if (summary.finishReason && (usageSeen || !o.expectUsage)) {
      // Everything that matters has arrived; do not let a missing end event hold the call open.
      arm(o.endGraceMs, complete);
    } else if (firstSeen) {
      arm(o.idleMs, () => broken(`stream idle for ${o.idleMs} ms`));
    }
  };

  const pump = async () => {
    for (;;) {
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await reader.read();
      } catch (err) {
        if (!finished) broken(firstSeen ? 'stream cut' : 'stream cut before the first token', err);
        return;
      }
      if (finished) return;
      if (r.done) {
        for (const e of sse.end()) if (!finished) onFrame(e);
        if (finished) return;
        if (!endSeen && summary.finishReason) complete();
        else broken(`stream ended without ${o.dialect.endEvent}`);
        return;
      }
      for (const e of sse.push(r.value)) {
        if (finished) break;
        onFrame(e);
      }
    }
  };

  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel(reason) {
      if (finished) return;
      finished = true;
      if (timer !== undefined) o.clock.clearTimeout(timer);
      summary.cancelled = true;
      o.abortUpstream(reason);
      reader.cancel(reason).catch(() => undefined);
      onEnd(summary);
    },
  });

  if (o.firstTokenMs !== undefined) {
    arm(o.firstTokenMs, () =>
      end('timeout', new BreakerboxError(SDK_ERROR_CODES.TIMEOUT, `no first token within ${o.firstTokenMs} ms`, { errorClass: 'timeout', providerReason: 'first_token' })),
    );
  } else if (o.idleMs !== undefined) {
    arm(o.idleMs, () => broken(`stream idle for ${o.idleMs} ms`));
  }
  void pump();
  return { ready, stream };
}
