/**
 * The rescuing stream on its own, over hand-made SSE bodies: what reaches the caller when
 * an upstream breaks, for continuation and regeneration, and what is never rescued.
 */
import { describe, expect, it } from 'vitest';
import { BreakerboxError, SDK_ERROR_CODES } from '../../sdk/index.ts';
import { rescuingStream, type RescueHost, type RescueMode } from '../../sdk/streams/stream-rescue.ts';
import { chatDialect } from '../../sdk/streams/dialect-chat.ts';
import { messagesDialect } from '../../sdk/streams/dialect-messages.ts';

const enc = new TextEncoder();
const oai = (delta: Record<string, unknown>, finish: string | null = null) => `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const ant = (text: string) => `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })}\n\n`;
const cut = () => new BreakerboxError(SDK_ERROR_CODES.STREAM_BROKEN, 'stream cut', { errorClass: 'stream_broken' });

/** A body that sends `chunks` (strings, split as given) and then ends or errors. */
function body(chunks: string[], end: 'close' | Error = 'close'): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (i < chunks.length) c.enqueue(enc.encode(chunks[i++]!));
      else if (end === 'close') c.close();
      else c.error(end);
    },
  });
}

async function readAll(s: ReadableStream<Uint8Array>): Promise<{ text: string; error?: BreakerboxError }> {
  const r = s.getReader();
  const dec = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const x = await r.read();
      if (x.done) return { text };
      text += dec.decode(x.value, { stream: true });
    }
  } catch (e) {
    return { text, error: e as BreakerboxError };
  }
}

/** The visible text of an SSE transcript (OpenAI content or Anthropic text deltas). */
function visible(sse: string): string {
  let out = '';
  for (const frame of sse.split('\n\n')) {
    const data = frame.split('\n').find((l) => l.startsWith('data: '))?.slice(6);
    if (!data || data === '[DONE]') continue;
    const o = JSON.parse(data);
    out += o.choices?.[0]?.delta?.content ?? o.delta?.text ?? '';
  }
  return out;
}

function host(dialect: 'openai' | 'anthropic', next: Array<{ body: ReadableStream<Uint8Array>; mode: RescueMode }>, prefill = false) {
  const starts: Array<{ mode: RescueMode; delivered: string; prefillText: string }> = [];
  const ends: Array<{ ok: boolean; rescues: number }> = [];
  const h: RescueHost = {
    dialect: dialect === 'openai' ? chatDialect : messagesDialect,
    maxRescues: 2,
    prefill,
    start: async (mode, delivered, prefillText) => {
      starts.push({ mode, delivered, prefillText });
      const n = next.shift();
      if (!n) throw new Error('no route left');
      return n;
    },
    onEnd: (ok, rescues) => ends.push({ ok, rescues }),
  };
  return { h, starts, ends };
}

describe('rescuing stream', () => {
  it('forwards only what a regenerated answer adds past the delivered text, whatever its chunking', async () => {
    const regen = body([oai({ role: 'assistant', content: '' }), oai({ content: 'The qu' }), oai({ content: 'ick br' }).slice(0, 30), oai({ content: 'ick br' }).slice(30), oai({ content: 'own fox' }), oai({}, 'stop'), 'data: [DONE]\n\n']);
    const { h, starts, ends } = host('openai', [{ body: regen, mode: 'regenerate' }]);
    const out = await readAll(rescuingStream(body([oai({ content: 'The' }), oai({ content: ' quick' })], cut()), h));
    expect(out.error).toBeUndefined();
    expect(visible(out.text)).toBe('The quick brown fox');
    expect(starts).toEqual([{ mode: 'regenerate', delivered: 'The quick', prefillText: 'The quick' }]);
    expect(ends).toEqual([{ ok: true, rescues: 1 }]);
  });

  it('continues after a prefill without repeating whitespace the caller already has', async () => {
    const cont = body([`event: message_start\ndata: {"type":"message_start","message":{}}\n\n`, ant(' world'), ant('!'), `event: message_stop\ndata: {"type":"message_stop"}\n\n`]);
    const { h, starts } = host('anthropic', [{ body: cont, mode: 'continue' }], true);
    const out = await readAll(rescuingStream(body([ant('Hello ')], cut()), h));
    expect(starts[0]).toMatchObject({ mode: 'continue', prefillText: 'Hello' });
    expect(visible(out.text)).toBe('Hello world!');
  });

  it('never rescues a break inside a thinking block (the caller holds half a block without its signature)', async () => {
    const thinkingStart = `event: content_block_start\ndata: ${JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } })}\n\n`;
    const thinkingDelta = `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Let me' } })}\n\n`;
    const { h, starts } = host('anthropic', [{ body: body([ant('x')]), mode: 'regenerate' }]);
    const out = await readAll(rescuingStream(body([thinkingStart, thinkingDelta], cut()), h));
    expect(out.error?.code).toBe(SDK_ERROR_CODES.STREAM_BROKEN);
    expect(out.error?.message).toMatch(/inside a thinking block/);
    expect(starts).toHaveLength(0);
  });

  it('never rescues past a tool call, and says why', async () => {
    const { h, starts } = host('openai', [{ body: body([oai({ content: 'x' })]), mode: 'regenerate' }]);
    const out = await readAll(rescuingStream(body([oai({ tool_calls: [{ index: 0, function: { arguments: '{"a"' } }] })], cut()), h));
    expect(out.error?.code).toBe(SDK_ERROR_CODES.STREAM_BROKEN);
    expect(out.error?.message).toMatch(/not plain text/);
    expect(starts).toHaveLength(0);
  });

  it('passes a client-fault error through untouched', async () => {
    const policy = new BreakerboxError(SDK_ERROR_CODES.PROVIDER_ERROR, 'provider error in stream: filtered', { errorClass: 'policy' });
    const { h, starts } = host('openai', []);
    const out = await readAll(rescuingStream(body([oai({ content: 'Hi' })], policy), h));
    expect(out.error).toBe(policy);
    expect(starts).toHaveLength(0);
  });

  it('ends with the clean error, naming the cause, when the rescue itself fails', async () => {
    const { h, ends } = host('openai', []);
    const out = await readAll(rescuingStream(body([oai({ content: 'Hi' })], cut()), h));
    expect(visible(out.text)).toBe('Hi');
    expect(out.error?.message).toBe('stream cut; not rescued: the rescue failed (no route left)');
    expect(ends).toEqual([{ ok: false, rescues: 1 }]);
  });
});
