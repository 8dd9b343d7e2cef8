/**
 * The three clients the failover bench compares, each against its own fake provider and
 * for one API (`failover-apis.ts`): breakerbox at its defaults through the official client
 * (as `sdk/README.md` shows: one fallback model, the README's timeouts), the official
 * client alone (its own defaults: 2 retries, 10 min timeout), and the client plus the
 * hand-written fallback an application would write (`try { primary } catch { fallback }`,
 * streaming into the same output as it goes).
 */
import { createBreakerbox, type Breakerbox, type CallEvent, type TimeoutOptions } from '../../sdk/index.ts';
import type { FakeProvider } from '../support/fake-provider.ts';
import type { BenchApi, BenchRequest, ReadResult } from './failover-apis.ts';

/** What one request ended with, as its caller saw it. */
export type Outcome =
  | { kind: 'answer'; text: string; finish: string | null; model: string; reportedAttempts?: number }
  | { kind: 'error'; text: string; message: string }
  | { kind: 'hang'; text: string };

/** A client under test, bound to one fake provider. */
export interface Contender {
  name: string;
  send(req: BenchRequest, signal: AbortSignal): Promise<Outcome>;
  /** breakerbox only: the `onCall` events seen. */
  calls?: CallEvent[];
  close(): Promise<void>;
}

/** The README's timeouts, scaled by `scale` (1 = as written). */
export function readmeTimeouts(scale: number): TimeoutOptions {
  return { connectMs: 3_000 * scale, firstByteMs: 10_000 * scale, firstTokenMs: 8_000 * scale, idleMs: 5_000 * scale };
}

/**
 * The official clients end a stream iteration quietly when their signal aborts, so a
 * request the bench gave up on can look like a short success: an aborted request is a hang.
 */
function answered(sink: { text: string }, signal: AbortSignal, r: ReadResult): Outcome {
  if (signal.aborted) return { kind: 'hang', text: sink.text };
  return { kind: 'answer', text: sink.text, finish: r.finish, model: r.model, reportedAttempts: r.attempts };
}

function outcomeOf(sink: { text: string }, signal: AbortSignal, err: unknown): Outcome {
  if (signal.aborted) return { kind: 'hang', text: sink.text };
  return { kind: 'error', text: sink.text, message: err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err) };
}

/** breakerbox at its defaults: `bb.fetch({ baseURL, timeouts, fallbacks })`, nothing else set. */
export function breakerbox(api: BenchApi, fake: FakeProvider, timeouts: TimeoutOptions): Contender & { bb: Breakerbox } {
  const bb = createBreakerbox();
  bb.onWarning(() => undefined); // the fallback shares the primary's provider here, by construction
  const calls: CallEvent[] = [];
  bb.onCall((e) => calls.push(e));
  // `baseURL` lets the chat and messages fallbacks be reviewed at construction; Gemini's and Bedrock's model is in the path.
  const baseURL = api.name.startsWith('Anthropic') ? fake.anthropicBaseUrl : api.name.startsWith('Gemini') ? undefined : fake.openaiBaseUrl;
  const own = api.fetchOptions?.(fake) ?? (baseURL ? { baseURL } : {});
  const read = api.client(fake, { maxRetries: 0, fetch: bb.fetch({ ...own, timeouts, fallbacks: { [api.primary]: [{ model: api.fallback }] } }) as typeof fetch });
  return {
    name: 'breakerbox (defaults)',
    bb,
    calls,
    async send(req, signal) {
      const sink = { text: '' };
      try {
        return answered(sink, signal, await read(req, signal, sink));
      } catch (err) {
        return outcomeOf(sink, signal, err);
      }
    },
    close: () => bb.close(100),
  };
}

/** The official client alone, at its own defaults. */
export function plainClient(api: BenchApi, fake: FakeProvider): Contender {
  const read = api.client(fake, {});
  return {
    name: 'official client',
    async send(req, signal) {
      const sink = { text: '' };
      try {
        return answered(sink, signal, await read(req, signal, sink));
      } catch (err) {
        return outcomeOf(sink, signal, err);
      }
    },
    close: async () => undefined,
  };
}

/** The official client with a hand-written fallback to the second model on any error. */
export function handFallback(api: BenchApi, fake: FakeProvider): Contender {
  const read = api.client(fake, {});
  return {
    name: 'official client + hand-written fallback',
    async send(req, signal) {
      const sink = { text: '' };
      try {
        let r;
        try {
          r = await read(req, signal, sink);
        } catch (err) {
          if (signal.aborted) throw err;
          r = await read({ ...req, model: api.fallback }, signal, sink);
        }
        return answered(sink, signal, r);
      } catch (err) {
        return outcomeOf(sink, signal, err);
      }
    },
    close: async () => undefined,
  };
}
