/**
 * Shared set-up for the scenario tests: a fake provider, an SDK instance on the real
 * clock, and the official `openai` and `@anthropic-ai/sdk` clients using one SDK fetch
 * with `maxRetries: 0`; readers for chat, Responses and Anthropic streams.
 */
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { BreakerboxError, createBreakerbox, type BreakerboxFetchOptions, type BreakerboxOptions, type CallEvent } from '../../sdk/index.ts';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';

/** Retry backoff scaled down 1/20 (200 ms base → 10 ms) so scenarios stay quick. */
export const FAST_RETRY = { baseDelayMs: 10, maxDelayMs: 100 } as const;

export interface Rig {
  fake: FakeProvider;
  bb: ReturnType<typeof createBreakerbox>;
  client: OpenAI;
  anthropic: Anthropic;
  calls: CallEvent[];
  close(): Promise<void>;
}

/** Starts a fake provider and an SDK-protected openai client against it. */
export async function rig(fetchOptions: BreakerboxFetchOptions = {}, bbOptions: BreakerboxOptions = {}): Promise<Rig> {
  const fake = await startFakeProvider({ tokens: 8 });
  const bb = createBreakerbox({ ...bbOptions, defaults: { retry: FAST_RETRY, ...bbOptions.defaults } });
  const calls: CallEvent[] = [];
  bb.onCall((e) => calls.push(e));
  bb.onWarning(() => undefined);
  const f = bb.fetch(fetchOptions);
  const client = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: fake.apiKey, maxRetries: 0, fetch: f });
  const anthropic = new Anthropic({ baseURL: fake.anthropicBaseUrl, apiKey: fake.apiKey, maxRetries: 0, fetch: f });
  return {
    fake,
    bb,
    client,
    anthropic,
    calls,
    async close() {
      await bb.close(100);
      await fake.close();
    },
  };
}

/** A one-message chat request. */
export function ask(model: string, extra: Record<string, unknown> = {}) {
  return { model, messages: [{ role: 'user' as const, content: 'Say hello' }], ...extra };
}

/** Reads a whole streamed completion; returns the text or the error it ended with. */
export async function readStream(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>): Promise<{ text: string; error?: unknown; usage?: unknown }> {
  let text = '';
  let usage: unknown;
  try {
    for await (const c of stream) {
      text += c.choices[0]?.delta.content ?? '';
      if (c.usage) usage = c.usage;
    }
    return { text, usage };
  } catch (error) {
    return { text, error, usage };
  }
}

/** A streamed chat completion through the rig's official client, usage included. */
export function streamed(r: Rig, model: string) {
  return r.client.chat.completions.create({ ...ask(model), stream: true, stream_options: { include_usage: true } });
}

/** The SDK error behind whatever the official client threw. */
export function sdkError(err: unknown): BreakerboxError | undefined {
  let e: unknown = err;
  for (let i = 0; i < 4 && e; i++) {
    if (e instanceof BreakerboxError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** What a Responses stream delivered: its text, event types, terminal response, or the error it ended with. */
export interface ResponsesRead {
  text: string;
  types: string[];
  final?: OpenAI.Responses.Response;
  error?: unknown;
}

/** Reads a whole Responses stream through the official client. */
export async function readResponses(stream: AsyncIterable<OpenAI.Responses.ResponseStreamEvent>): Promise<ResponsesRead> {
  const out: ResponsesRead = { text: '', types: [] };
  try {
    for await (const e of stream) {
      out.types.push(e.type);
      if (e.type === 'response.output_text.delta') out.text += e.delta;
      if (e.type === 'response.completed' || e.type === 'response.incomplete') out.final = e.response;
    }
  } catch (error) {
    out.error = error;
  }
  return out;
}

/** A streamed Responses call through the rig's official client. */
export function responsesStreamed(r: Rig, model: string, extra: Record<string, unknown> = {}) {
  return r.client.responses.create({ model, input: 'Say hello', stream: true, ...extra } as OpenAI.Responses.ResponseCreateParamsStreaming);
}

/** Reads a whole Anthropic stream through the official client's `stream()` helper. */
export async function readMessages(stream: ReturnType<Anthropic['messages']['stream']>): Promise<{ final?: Anthropic.Message; error?: unknown }> {
  try {
    return { final: await stream.finalMessage() };
  } catch (error) {
    return { error };
  }
}

/** The text blocks of an Anthropic message, joined. */
export function messageText(m: Anthropic.Message | undefined): string {
  return (m?.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('');
}
