import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import type { Db } from './database.ts';

/** Stops the background checkpointer; resolves when its connection is closed. */
export interface Checkpointer {
  stop(): Promise<void>;
}

// Plain CommonJS so the worker needs no TypeScript loader.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 1000');
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (err) { parentPort.postMessage({ error: String(err && err.message) }); }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Moves WAL checkpoints off the event loop. SQLite normally checkpoints inside whichever
 * commit crosses the threshold, so one ingest request in a few hundred pays for copying
 * pages into the main file and an fsync (the p99). Here a worker thread with its own
 * connection runs PASSIVE checkpoints, which never block the writer, on a timer; the
 * writer's automatic checkpoint stays as a distant backstop in case the worker lags.
 */
export function startCheckpointer(db: Db, path: string, options: { intervalMs?: number; onError?: (message: string) => void } = {}): Checkpointer {
  db.pragma('wal_autocheckpoint = 20000');
  db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { path, driver: createRequire(import.meta.url).resolve('better-sqlite3'), intervalMs: options.intervalMs ?? 500 },
  });
  worker.unref();
  worker.on('message', (m: { error?: string }) => m.error && options.onError?.(m.error));
  worker.on('error', (err) => options.onError?.(err.message));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async stop() {
      // Keep the process alive until the worker's connection is closed (it is unref'd while idle).
      worker.ref();
      worker.postMessage('stop');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 2000)))]);
      clearTimeout(timer);
      await worker.terminate();
    },
  };
}
