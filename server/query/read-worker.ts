import { Worker } from 'node:worker_threads';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BreakerboxError, type ErrorCode } from '../errors.ts';
import type { KeyListEntry, VerdictEngine, VerdictSlice } from '../verdicts/verdict-engine.ts';
import type { VerdictEntry } from '../verdicts/types.ts';
import type { VerdictThresholds } from '../verdicts/figures.ts';
import type { TimeRange } from '../verdicts/window.ts';
import { deltaSince, type ChangeFeed, type FeedDelta } from '../storage/change-feed.ts';
import type { Config } from '../config/schema.ts';
import { packStates } from '../metrics/latest-states.ts';

/** What the worker thread is started with. */
export interface ReadWorkerData {
  path: string;
  thresholds: VerdictThresholds;
  /** `suspicion.pending_max_s` in ms, or null with probe on suspicion off: the worker's verdicts wait for asked probes as the main thread's do. */
  pendingMaxMs: number | null;
  /** The `lifecycle` section: the worker builds the same retirement calendar (the model_retired hint). */
  lifecycle: Config['lifecycle'];
  /** The worker keeps its own analyses, advanced by the changes each question carries (docs/verdict-engine.md). */
  incremental: boolean;
}

/** A question to the worker. */
export interface ReadRequest {
  id: number;
  op: 'verdicts' | 'verdictsPage' | 'keys' | 'states';
  range: TimeRange;
  /** The rows of a `verdictsPage` question. */
  slice?: VerdictSlice;
  /** This thread's storage writes since the previous question (incremental only). */
  changes?: FeedDelta;
}

/** Its answer: a result, or the error it threw (rebuilt on this side). */
export type ReadReply = { id: number; result: unknown } | { id: number; error: { message: string; code?: string; path?: string } };

/** The whole-fleet read views, answered off the event loop when a worker runs. */
export interface FleetReads {
  verdicts(range: TimeRange): Promise<VerdictEntry[]>;
  /** One page of `verdicts(range)` and the count of all: evidence text is built for the page's rows only. */
  verdictsPage(range: TimeRange, slice: VerdictSlice): Promise<{ items: VerdictEntry[]; total: number }>;
  keys(range: TimeRange): Promise<KeyListEntry[]>;
  /** The `/metrics` state gauges of every key over the window, packed (server/metrics/latest-states.ts). */
  states(range: TimeRange): Promise<Float64Array>;
  close(): Promise<void>;
}

/** The same views answered in this thread (an in-memory database, or the worker unavailable). */
export const inThreadReads = (engine: VerdictEngine): FleetReads => ({
  verdicts: async (range) => engine.verdicts(range),
  verdictsPage: async (range, slice) => engine.verdictsPage(range, slice),
  keys: async (range) => engine.keys(range),
  states: async (range) => packStates(await engine.analyse(range)),
  close: async () => {},
});

/**
 * Starts the read worker lazily, on the first question: `/api/verdicts` and `/api/keys`
 * analyse every key over the window, seconds of synchronous work on a large fleet that
 * would otherwise stall ingest and `/healthz` behind each dashboard poll. Its connection
 * is read-only, so WAL lets it read beside the writer. If the worker cannot start or dies,
 * questions fall back to `fallback` (this thread) and `onError` is told once.
 */
export function startReadWorker(options: Omit<ReadWorkerData, 'incremental'> & { fallback: FleetReads; onError(err: Error): void; feed?: ChangeFeed }): FleetReads {
  const { fallback, feed } = options;
  // The feed's cursor the worker has been sent up to (a new worker starts from nothing).
  let sent = 0;
  const pending = new Map<number, { request: ReadRequest; resolve(v: unknown): void; reject(e: Error): void }>();
  let worker: Worker | null = null;
  let failed = false;
  let seq = 0;

  const fail = (err: Error) => {
    if (!failed) options.onError(err);
    failed = true;
    worker = null;
    // Questions still out are answered here instead of failing the requests.
    for (const p of pending.values()) answerHere(p.request).then(p.resolve, p.reject);
    pending.clear();
  };

  const answerHere = (r: ReadRequest): Promise<unknown> => (r.op === 'verdictsPage' ? fallback.verdictsPage(r.range, r.slice!) : fallback[r.op](r.range));

  const spawn = (): Worker => {
    const ext = extname(fileURLToPath(import.meta.url));
    const file = new URL(`./read-worker-main${ext}`, import.meta.url);
    const workerData = { path: options.path, thresholds: options.thresholds, pendingMaxMs: options.pendingMaxMs, lifecycle: options.lifecycle, incremental: feed !== undefined } satisfies ReadWorkerData;
    sent = 0;
    // As TypeScript (tests, benchmarks) the thread first registers the same loader tsx gives the main thread.
    const w = ext === '.ts'
      ? new Worker(
          `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${JSON.stringify(file.href)}); })`,
          { eval: true, workerData, execArgv: ['--conditions=breakerbox-source'] },
        )
      : new Worker(file, { workerData });
    w.unref();
    w.on('message', (m: ReadReply | { ready: true }) => {
      if ('ready' in m) return;
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (pending.size === 0) w.unref();
      if ('error' in m) {
        const { code, message, path } = m.error;
        p.reject(code?.startsWith('BB_ERR_') ? new BreakerboxError(code as ErrorCode, message, { path }) : new Error(message));
      } else p.resolve(m.result);
    });
    w.on('error', fail);
    w.on('exit', (code) => {
      if (worker === w && code !== 0) fail(new Error(`the read worker exited with code ${code}`));
    });
    return w;
  };

  const ask = <T>(op: ReadRequest['op'], range: TimeRange, slice?: VerdictSlice): Promise<T> => {
    const id = ++seq;
    const request: ReadRequest = { id, op, range, ...(slice ? { slice } : {}) };
    if (failed) return answerHere(request) as Promise<T>;
    worker ??= spawn();
    if (feed) {
      request.changes = deltaSince(feed, sent);
      sent = request.changes.cursor;
    }
    // Hold the process while a question is out; idle, the worker never keeps it alive.
    worker.ref();
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { request, resolve: resolve as (v: unknown) => void, reject });
      worker!.postMessage(request);
    });
  };

  return {
    verdicts: (range) => ask<VerdictEntry[]>('verdicts', range),
    verdictsPage: (range, slice) => ask<{ items: VerdictEntry[]; total: number }>('verdictsPage', range, slice),
    keys: (range) => ask<KeyListEntry[]>('keys', range),
    states: (range) => ask<Float64Array>('states', range),
    async close() {
      const w = worker;
      worker = null;
      if (!w) return;
      w.ref();
      const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
      w.postMessage('stop');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 2000)))]);
      clearTimeout(timer);
      await w.terminate();
    },
  };
}
