/**
 * The three clients the failover bench compares, each against its own fake provider:
 * breakerbox at its defaults through the official `openai@6` client (as `sdk/README.md`
 * shows: one fallback model, the README's timeouts), the `openai@6` client alone (its own
 * defaults: 2 retries, 10 min timeout), and the client plus the hand-written fallback an
 * application would write (`try { primary } catch { fallback }`, streaming into the same
 * output as it goes).
 */
import OpenAI from 'openai';
import { createBreakerbox, type Breakerbox, type CallEvent, type TimeoutOptions } from '../../sdk/index.ts';
import type { FakeProvider } from '../support/fake-provider.ts';

export const PRIMARY = 'gpt-4o';
/** A long-context model: a sensible fallback for context-length errors too. */
export const FALLBACK = 'gpt-4.1';

/** What one request ended with, as its caller saw it. */
export type Outcome =
  | { kind: 'answer'; text: string; finish: string | null; model: string; reportedAttempts?: number }
  | { kind: 'error'; text: string; message: string }
  | { kind: 'hang'; text: string };

/** One request: a chat body (streamed or not). */
export type ChatBody = OpenAI.Chat.ChatCompletionCreateParamsNonStreaming | OpenAI.Chat.ChatCompletionCreateParamsStreaming;

/** A client under test, bound to one fake provider. */
export interface Contender {
  name: string;
  send(body: ChatBody, signal: AbortSignal): Promise<Outcome>;
  /** breakerbox only: the `onCall` events seen. */
  calls?: CallEvent[];
  close(): Promise<void>;
}

/** The README's timeouts, scaled by `scale` (1 = as written). */
export function readmeTimeouts(scale: number): TimeoutOptions {
  return { connectMs: 3_000 * scale, firstByteMs: 10_000 * scale, firstTokenMs: 8_000 * scale, idleMs: 5_000 * scale };
}

/** Reads one request through `client`, appending streamed text to `sink` as a UI would show it. */
async function read(client: OpenAI, body: ChatBody, signal: AbortSignal, sink: { text: string }) {
  if (body.stream) {
    const stream = await client.chat.completions.create(body, { signal });
    let finish: string | null = null;
    let model = '';
    for await (const c of stream) {
      sink.text += c.choices[0]?.delta.content ?? '';
      finish = c.choices[0]?.finish_reason ?? finish;
      model = c.model || model;
    }
    return { finish, model, attempts: undefined as number | undefined };
  }
  const { data, response } = await client.chat.completions.create(body, { signal }).withResponse();
  sink.text += data.choices[0]?.message.content ?? '';
  const attempts = response.headers.get('x-breakerbox-attempts');
  return { finish: data.choices[0]?.finish_reason ?? null, model: data.model, attempts: attempts ? Number(attempts) : undefined };
}

/**
 * The official client ends a stream iteration quietly when its signal aborts, so a request
 * the bench gave up on can look like a short success: an aborted request is a hang.
 */
function answered(sink: { text: string }, signal: AbortSignal, r: { finish: string | null; model: string; attempts?: number }): Outcome {
  if (signal.aborted) return { kind: 'hang', text: sink.text };
  return { kind: 'answer', text: sink.text, finish: r.finish, model: r.model, reportedAttempts: r.attempts };
}

function outcomeOf(sink: { text: string }, signal: AbortSignal, err: unknown): Outcome {
  if (signal.aborted) return { kind: 'hang', text: sink.text };
  return { kind: 'error', text: sink.text, message: err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err) };
}

/** breakerbox at its defaults: `bb.fetch({ baseURL, timeouts, fallbacks })`, nothing else set. */
export function breakerbox(fake: FakeProvider, timeouts: TimeoutOptions): Contender & { bb: Breakerbox } {
  const bb = createBreakerbox();
  bb.onWarning(() => undefined); // the fallback shares the primary's provider here, by construction
  const calls: CallEvent[] = [];
  bb.onCall((e) => calls.push(e));
  const client = new OpenAI({
    baseURL: fake.openaiBaseUrl,
    apiKey: fake.apiKey,
    maxRetries: 0,
    fetch: bb.fetch({ baseURL: fake.openaiBaseUrl, timeouts, fallbacks: { [PRIMARY]: [{ model: FALLBACK }] } }),
  });
  return {
    name: 'breakerbox (defaults)',
    bb,
    calls,
    async send(body, signal) {
      const sink = { text: '' };
      try {
        return answered(sink, signal, await read(client, body, signal, sink));
      } catch (err) {
        return outcomeOf(sink, signal, err);
      }
    },
    close: () => bb.close(100),
  };
}

/** The official client alone, at its own defaults. */
export function plainOpenai(fake: FakeProvider): Contender {
  const client = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: fake.apiKey, logLevel: 'off' });
  return {
    name: 'openai@6',
    async send(body, signal) {
      const sink = { text: '' };
      try {
        return answered(sink, signal, await read(client, body, signal, sink));
      } catch (err) {
        return outcomeOf(sink, signal, err);
      }
    },
    close: async () => undefined,
  };
}

/** The official client with a hand-written fallback to the second model on any error. */
export function handFallback(fake: FakeProvider): Contender {
  const client = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: fake.apiKey, logLevel: 'off' });
  return {
    name: 'openai@6 + hand-written fallback',
    async send(body, signal) {
      const sink = { text: '' };
      try {
        let r;
        try {
          r = await read(client, body, signal, sink);
        } catch (err) {
          if (signal.aborted) throw err;
          r = await read(client, { ...body, model: FALLBACK } as ChatBody, signal, sink);
        }
        return answered(sink, signal, r);
      } catch (err) {
        return outcomeOf(sink, signal, err);
      }
    },
    close: async () => undefined,
  };
}
