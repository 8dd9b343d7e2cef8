/**
 * The stream dialect of Bedrock's InvokeModelWithResponseStream: `chunk` events whose
 * `bytes` (base64) hold one event of the model's own stream. For Anthropic models that is
 * an Anthropic messages event (`message_start` … `message_stop`), read by the messages
 * dialect; for other models' native chunks (Llama's `generation`, Titan's `outputText`,
 * Mistral's `outputs`) the text, the stop reason, and the closing
 * `amazon-bedrock-invocationMetrics` (usage, and the end) are read here. Exceptions are
 * classified as in ConverseStream.
 */
import type { SseEvent } from '@breakerbox/protocol';
import { MALFORMED, NOTHING, OPAQUE, TAIL, jsonOf, type FrameInfo, type FrameText, type StreamDialect } from './stream-dialect.ts';
import { messagesDialect } from './dialect-messages.ts';
import { awsStreamError } from './dialect-converse.ts';

/** The model's own event inside a `chunk`, as an SSE-shaped event (undefined when it is not one). */
export function innerEvent(e: SseEvent): { event: SseEvent; body: Record<string, unknown> } | undefined {
  if (e.event !== 'chunk') return undefined;
  const bytes = jsonOf(e)?.bytes;
  if (typeof bytes !== 'string') return undefined;
  const data = Buffer.from(bytes, 'base64').toString('utf8');
  const event = { event: 'message', data };
  const body = jsonOf(event);
  return body ? { event, body } : undefined;
}

const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

/** The text a non-Anthropic native chunk carries. */
function nativeText(o: Record<string, unknown>): string | undefined {
  if (typeof o.generation === 'string') return o.generation;
  if (typeof o.outputText === 'string') return o.outputText;
  const out = Array.isArray(o.outputs) ? (o.outputs[0] as { text?: unknown } | undefined) : undefined;
  return typeof out?.text === 'string' ? out.text : undefined;
}

function interpret(e: SseEvent): FrameInfo {
  const error = awsStreamError(e);
  if (error) return { malformed: false, token: false, end: false, error };
  if (e.event === 'malformed') return MALFORMED; // a frame the framing could not read
  if (e.event !== 'chunk') return NOTHING;
  const inner = innerEvent(e);
  if (!inner) return MALFORMED;
  const o = inner.body;
  const metrics = o['amazon-bedrock-invocationMetrics'] as Record<string, unknown> | undefined;
  const info: FrameInfo = typeof o.type === 'string' ? { ...messagesDialect.interpret(inner.event) } : { malformed: false, token: nativeText(o) !== undefined, end: false };
  if (typeof o.type !== 'string') {
    const stop = o.stop_reason ?? o.completionReason ?? (Array.isArray(o.outputs) ? (o.outputs[0] as { stop_reason?: unknown })?.stop_reason : undefined);
    if (typeof stop === 'string') info.finishReason = stop.toLowerCase() === 'length' ? 'length' : stop;
  }
  if (metrics) {
    info.end = true;
    info.inputTokens ??= num(metrics.inputTokenCount);
    info.outputTokens ??= num(metrics.outputTokenCount);
  }
  return info;
}

function textReader() {
  const messages = messagesDialect.textReader();
  return (e: SseEvent): FrameText => {
    const inner = innerEvent(e);
    if (!inner) return e.event === 'chunk' ? OPAQUE : TAIL;
    if (typeof inner.body.type === 'string') return messages(inner.event);
    const text = nativeText(inner.body);
    return text === undefined ? TAIL : { kind: 'text', text };
  };
}

/** Bedrock InvokeModelWithResponseStream. */
export const bedrockInvokeDialect: StreamDialect = {
  family: 'invoke',
  endEvent: 'amazon-bedrock-invocationMetrics',
  interpret,
  textReader,
  withText(e, t) {
    const inner = innerEvent(e)!;
    const o = inner.body as { delta?: { text?: string }; generation?: string; outputText?: string };
    if (o.delta) o.delta.text = t;
    else if (typeof o.generation === 'string') o.generation = t;
    else o.outputText = t;
    return { event: e.event, data: JSON.stringify({ bytes: Buffer.from(JSON.stringify(o)).toString('base64') }) };
  },
  usageBeforeEnd: () => true,
};
