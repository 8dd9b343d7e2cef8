/**
 * What a model stream's events mean, per API: one dialect per endpoint family, each in
 * its own file (`dialect-chat.ts`, `dialect-messages.ts`, `dialect-responses.ts`). The
 * stream guard asks a dialect what each event is (a token, the finish, usage, the end, an
 * error); mid-stream rescue asks it what each event adds to the answer the caller reads.
 * Events are those read by the shared `SseReader` of `@breakerbox/protocol`.
 */
import type { ErrorClass, SseEvent } from '@breakerbox/protocol';
import { classifyErrorBody } from '@breakerbox/protocol';

/** The meaning of one event for the guard. */
export interface FrameInfo {
  malformed: boolean;
  /** Generated content (text, tool-call arguments, reasoning): arms the first-token and idle limits. */
  token: boolean;
  /** The stream's own end event. */
  end: boolean;
  finishReason?: string;
  inputTokens?: number;
  outputTokens?: number;
  cachedTokens?: number;
  /** Hidden reasoning tokens, already included in `outputTokens`. */
  reasoningTokens?: number;
  /** A mid-stream error event, classified. */
  error?: { cls: ErrorClass; message: string };
}

/** What an event means for the text of the answer (mid-stream rescue). */
export type FrameText =
  /** A text delta: `text` is what it adds; `final` when the same event carries the finish. */
  | { kind: 'text'; text: string; final?: boolean }
  /** Events before the first content: role chunk, `message_start`, `response.created`, pings, the text block's opening. */
  | { kind: 'head' }
  /**
   * Reasoning the caller keeps as delivered (a finished thinking block, a reasoning item).
   * A regeneration's own reasoning is dropped, so the caller never holds two; a break
   * inside an unfinished one cannot be rescued (`open`).
   */
  | { kind: 'aside'; open: boolean }
  /** Finish reason, usage, block stop, end event: the answer's tail. */
  | { kind: 'tail' }
  /** Content rescue cannot reproduce or check: tool-call arguments, a second choice, refusals. */
  | { kind: 'opaque' };

/** Reads one stream's events in order, for rescue (dialects that track blocks keep state here). */
export type TextReader = (e: SseEvent) => FrameText;

/** One API's stream dialect. */
export interface StreamDialect {
  /** Endpoint family it serves: `chat`, `messages`, `responses`. */
  readonly family: string;
  /** The end event, for messages (`[DONE]`, `message_stop`, `response.completed`). */
  readonly endEvent: string;
  /** Interprets one event. */
  interpret(e: SseEvent): FrameInfo;
  /** A fresh reader of what events add to the answer. */
  textReader(): TextReader;
  /** Event `e` (read as `text`) with its text replaced by `text`. */
  withText(e: SseEvent, text: string): SseEvent;
  /** Whether usage arrives before the end event for this request body (so the guard may finish on finish + usage). */
  usageBeforeEnd(body: Record<string, unknown>): boolean;
}

/** An event of no interest to the guard (pings, item bookkeeping). */
export const NOTHING: FrameInfo = Object.freeze({ malformed: false, token: false, end: false });
/** An event whose data is not JSON. */
export const MALFORMED: FrameInfo = Object.freeze({ malformed: true, token: false, end: false });
/** Shared `FrameText` values of the dialects (frozen: read-only, never per event). */
export const HEAD: FrameText = Object.freeze({ kind: 'head' });
/** See `HEAD`. */
export const TAIL: FrameText = Object.freeze({ kind: 'tail' });
/** See `HEAD`. */
export const OPAQUE: FrameText = Object.freeze({ kind: 'opaque' });

/** The event's JSON object, or undefined when it is not one. */
export function jsonOf(e: SseEvent): Record<string, unknown> | undefined {
  try {
    const o = JSON.parse(e.data) as unknown;
    return o && typeof o === 'object' ? (o as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The event name a handler keys on: the `event:` field, or the JSON body's `type` when the
 * stream gave no event name (the reader reports `message`).
 */
export function eventName(e: SseEvent, body: Record<string, unknown>): string {
  return e.event === 'message' ? String(body.type ?? '') : e.event;
}

/** An error event's class (by the shared taxonomy; `server` when it names nothing known) and message. */
export function errorOf(o: Record<string, unknown>): { cls: ErrorClass; message: string } {
  const e = o.error as { message?: unknown } | undefined;
  const message = typeof e?.message === 'string' ? e.message : typeof o.message === 'string' ? o.message : 'error event in stream';
  return { cls: classifyErrorBody(o) ?? 'server', message };
}
