/**
 * The stream dialect of Amazon Bedrock's ConverseStream (events read by the
 * `aws-event-stream` framing): `messageStart`, `contentBlockStart` (a tool use),
 * `contentBlockDelta` (`text`, `toolUse.input`, `reasoningContent`, `citation`),
 * `contentBlockStop`, `messageStop` with its `stopReason`, then `metadata` with the usage
 * — the stream's last event. Exceptions (`throttlingException`, `modelStreamErrorException`,
 * `internalServerException`, `serviceUnavailableException`, `validationException`, …) arrive
 * as `exception:<type>` events and are classified by the protocol's AWS error table.
 * `max_tokens` is truncated, `guardrail_intervened` / `content_filtered` a policy refusal
 * (the protocol's `classifyFinishReason`).
 */
import { classifyAwsError, type SseEvent } from '@breakerbox/protocol';
import { HEAD, MALFORMED, NOTHING, OPAQUE, TAIL, jsonOf, type FrameInfo, type FrameText, type StreamDialect } from './stream-dialect.ts';

/** The class and message of an `exception:<type>` or `error:<code>` event, or undefined for an event. */
export function awsStreamError(e: SseEvent): { cls: NonNullable<FrameInfo['error']>['cls']; message: string } | undefined {
  const sep = e.event.indexOf(':');
  if (sep < 0 || !/^(exception|error)$/.test(e.event.slice(0, sep))) return undefined;
  const type = e.event.slice(sep + 1);
  const message = String(jsonOf(e)?.message ?? type);
  return { cls: classifyAwsError(type, message) ?? 'server', message: `${type}: ${message}` };
}

const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

function interpret(e: SseEvent): FrameInfo {
  const error = awsStreamError(e);
  if (error) return { malformed: false, token: false, end: false, error };
  const o = jsonOf(e);
  if (!o) return MALFORMED;
  switch (e.event) {
    case 'contentBlockDelta':
      return { malformed: false, token: true, end: false };
    case 'messageStop':
      return typeof o.stopReason === 'string' ? { malformed: false, token: false, end: false, finishReason: o.stopReason } : NOTHING;
    case 'metadata': {
      const u = (o.usage ?? {}) as Record<string, unknown>;
      const info: FrameInfo = { malformed: false, token: false, end: true };
      const input = num(u.inputTokens);
      const output = num(u.outputTokens);
      const cached = num(u.cacheReadInputTokens);
      if (input !== undefined) info.inputTokens = input;
      if (output !== undefined) info.outputTokens = output;
      if (cached !== undefined) info.cachedTokens = cached;
      return info;
    }
    default:
      return NOTHING;
  }
}

function textReader() {
  const tools = new Set<number>();
  let textBlock: number | undefined;
  return (e: SseEvent): FrameText => {
    const o = jsonOf(e);
    if (!o) return OPAQUE;
    const index = typeof o.contentBlockIndex === 'number' ? o.contentBlockIndex : -1;
    switch (e.event) {
      case 'messageStart':
        return HEAD;
      case 'contentBlockStart':
        if ((o.start as { toolUse?: unknown } | undefined)?.toolUse) tools.add(index);
        return OPAQUE;
      case 'contentBlockDelta': {
        const d = (o.delta ?? {}) as { text?: unknown; reasoningContent?: unknown };
        if (d.reasoningContent !== undefined) return { kind: 'aside', open: true };
        if (typeof d.text === 'string' && !tools.has(index) && (textBlock === undefined || textBlock === index)) {
          textBlock = index;
          return { kind: 'text', text: d.text };
        }
        return OPAQUE;
      }
      default:
        return TAIL; // contentBlockStop, messageStop, metadata
    }
  };
}

/** Bedrock ConverseStream. */
export const converseDialect: StreamDialect = {
  family: 'converse',
  endEvent: 'metadata',
  interpret,
  textReader,
  withText(e, t) {
    const o = JSON.parse(e.data) as { delta: { text: string } };
    o.delta.text = t;
    return { event: e.event, data: JSON.stringify(o) };
  },
  // Usage comes with the end event itself (metadata): after messageStop only the end grace is waited for.
  usageBeforeEnd: () => false,
};
