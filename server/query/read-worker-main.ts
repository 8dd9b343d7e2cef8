/**
 * The read worker's thread: its own read-only connection and verdict engine, answering
 * `{id, op, range}` messages. Runs what a poll of the board costs (every key analysed over
 * the window) away from the event loop that serves ingest and `/healthz`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../storage/database.ts';
import { createSuspicionStore } from '../storage/suspicion-store.ts';
import { pendingProbesSource } from '../verdicts/pending-probes.ts';
import { createVerdictEngine } from '../verdicts/verdict-engine.ts';
import type { ReadRequest, ReadReply, ReadWorkerData } from './read-worker.ts';

const data = workerData as ReadWorkerData;
const db = openDatabase(data.path, { readonly: true });
const pending = data.pendingMaxMs === null ? undefined : pendingProbesSource(createSuspicionStore(db), data.pendingMaxMs);
const engine = createVerdictEngine(db, data.thresholds, undefined, pending);

parentPort!.on('message', (message: ReadRequest | 'stop') => {
  if (message === 'stop') {
    db.close();
    parentPort!.close();
    return;
  }
  let reply: ReadReply;
  try {
    const result = message.op === 'verdicts' ? engine.verdicts(message.range) : engine.keys(message.range);
    reply = { id: message.id, result };
  } catch (err) {
    const e = err as { message?: string; code?: string; path?: string };
    reply = { id: message.id, error: { message: e.message ?? String(err), code: e.code, path: e.path } };
  }
  parentPort!.postMessage(reply);
});
parentPort!.postMessage({ ready: true });
