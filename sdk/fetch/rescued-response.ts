/**
 * The fetch wrapper's side of mid-stream rescue: turns a served stream into one whose
 * breaks are rescued (`streams/stream-rescue.ts`) by running the request's operation
 * again — with assistant prefill where the dialect has it, else as a regeneration — and
 * completes the request's task once the caller's stream ends, with every attempt of the
 * rescues counted in it.
 *
 * Where a rescue starts: at the top of the chain (the primary, under its breaker), until a
 * route breaks the same answer a second time; from then on rescues start at the level
 * after that route, which gets the rescues and deadline left (the last level keeps them
 * when there is none after it). A
 * failure that repeats on every attempt at one model is thus served by a working fallback.
 */
import type { ErrorClass } from '@breakerbox/protocol';
import { classifyThrown, keyLabel } from '@breakerbox/protocol';
import type { FetchHost } from './fetch-host.ts';
import type { Operation, OperationResult, RunOptions } from '../policies/fallback.ts';
import type { CallFacts } from '../key-policy.ts';
import { BreakerboxError, SDK_ERROR_CODES } from '../errors/catalog.ts';
import { rescuingStream, type RescueMode } from '../streams/stream-rescue.ts';
import type { StreamDialect } from '../streams/stream-dialect.ts';
import type { StreamFraming } from '../streams/stream-framing.ts';
import { prefilledBody, supportsPrefill } from './prefill.ts';

/** How an answer's stream ended: ok, its facts, its failure class. */
export type Ended = [boolean, CallFacts, ErrorClass | undefined];
/** The completion callback an attempt's request input carries. */
export type DoneFn = (ok: boolean, facts: CallFacts, cls: ErrorClass | undefined, cancelled: boolean) => void;

/** What a rescued response needs from the request it serves. */
export interface RescueContext<I> {
  bb: FetchHost;
  op: Operation<I, Response>;
  dialect: StreamDialect;
  /** The stream's wire format (SSE, AWS event-stream, …). */
  framing: StreamFraming;
  /** The request body as the caller sent it. */
  body: Record<string, unknown>;
  /** A request input for `body` whose stream reports its end to `onDone`. */
  inputFor: (body: Record<string, unknown>, onDone: DoneFn) => I;
  runOptions: RunOptions;
  /** The caller's total deadline and when the request started. */
  totalMs: number | undefined;
  startedAt: number;
  maxRescues: number;
  /** Entries in the operation's fallback chain. */
  chainLength: number;
  prefill: boolean;
  /** How the served answer's own stream ended (known once it has). */
  servedEnd: () => Ended | undefined;
  /** Label for warnings when the served key is unknown. */
  label: string;
}

/** The served stream `res`, rescued when it breaks; completes `served`'s task when the caller's stream ends. */
export function rescuedResponse<I>(res: Response & { body: ReadableStream<Uint8Array> }, served: OperationResult<Response>, c: RescueContext<I>): Response {
  const rescues: Array<OperationResult<Response>> = [];
  let last: Ended | undefined;
  /** The chain entry serving the stream the caller reads, and how often each entry broke this answer. */
  let serving = served.index;
  const breaks = new Map<number, number>();
  let startAt = 0;
  const run = async (body: Record<string, unknown>): Promise<ReadableStream<Uint8Array>> => {
    const left = c.totalMs === undefined ? undefined : c.totalMs - (c.bb.clock.now() - c.startedAt);
    if (left !== undefined && left <= 0) throw new BreakerboxError(SDK_ERROR_CODES.TIMEOUT, `total timeout of ${c.totalMs} ms elapsed`, { errorClass: 'timeout' });
    const input = c.inputFor(body, (ok, facts, cls, cancelled) => (last = [ok && !cancelled, facts, cancelled ? undefined : cls]));
    const r = await c.op.run(input, { ...c.runOptions, deadlineMs: left, rescue: true, startAt });
    rescues.push(r);
    serving = r.index;
    if (!r.value.body) throw new BreakerboxError(SDK_ERROR_CODES.STREAM_BROKEN, 'rescue answer has no stream', { errorClass: 'stream_broken' });
    return r.value.body;
  };
  const stream = rescuingStream(res.body, {
    dialect: c.dialect,
    framing: c.framing,
    maxRescues: c.maxRescues,
    prefill: c.prefill && supportsPrefill(c.dialect),
    start: async (mode, _delivered, prefillText): Promise<{ body: ReadableStream<Uint8Array>; mode: RescueMode }> => {
      const n = (breaks.get(serving) ?? 0) + 1;
      breaks.set(serving, n);
      // A route that broke this answer twice is passed over, with every level before it
      // (the last route keeps what is left when there is no level after it).
      if (n >= 2) startAt = Math.min(Math.max(startAt, serving + 1), c.chainLength - 1);
      const withPrefill = mode === 'continue' ? prefilledBody(c.dialect, c.body, prefillText) : undefined;
      if (withPrefill) {
        try {
          return { body: await run(withPrefill), mode: 'continue' };
        } catch (err) {
          if (classifyThrown(err) !== 'bad_request') throw err;
          // Counted as a bad_request on the route that refused (never masked); regeneration needs no prefill.
          const where = served.key ? keyLabel(served.key) : c.label;
          c.bb.warn(`${where}: a route rejected assistant prefill (${(err as Error).message}); mid-stream rescue regenerates instead`, 'BB_WARN_SDK_PREFILL_REJECTED');
        }
      }
      return { body: await run(c.body), mode: 'regenerate' };
    },
    onEnd: (ok, n, error, cancelled) => {
      const end = n > 0 ? last : c.servedEnd();
      const cls = cancelled ? undefined : error ? classifyThrown(error) : end?.[2];
      served.complete?.(ok && !cancelled && cls === undefined, end?.[1] ?? {}, cls, rescues);
    },
  });
  return new Response(stream, { status: res.status, statusText: res.statusText, headers: res.headers });
}
