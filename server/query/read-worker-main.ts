/**
 * The read worker's thread: its own read-only SQLite storage and verdict engine, answering
 * `{id, op, range}` messages. Runs what a poll of the board costs (every key analysed over
 * the window) away from the event loop that serves ingest and `/healthz`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { systemClock } from '../clock.ts';
import { createSqliteStorage } from '../storage/sqlite/sqlite-storage.ts';
import { feedMirror } from '../storage/change-feed.ts';
import { pendingProbesSource } from '../verdicts/pending-probes.ts';
import { createVerdictEngine } from '../verdicts/verdict-engine.ts';
import { loadCalendar } from '../lifecycle/calendar.ts';
import type { ReadRequest, ReadReply, ReadWorkerData } from './read-worker.ts';
import { packStates } from '../metrics/latest-states.ts';

const data = workerData as ReadWorkerData;
// Read-only: no migrations, writes, pruning or checkpoints here; the policy below is never used.
const storage = createSqliteStorage({
  path: data.path,
  readonly: true,
  clock: systemClock,
  retryAfterS: 1,
  retention: { rawDays: 1, rollupDays: 1, batchIdHours: 24, alertHistoryDays: 1, silenceDays: 1 },
});
const pending = data.pendingMaxMs === null ? undefined : pendingProbesSource(storage.suspicions, data.pendingMaxMs);
// Incremental: the main thread's writes reach this copy of its feed with each question.
const mirror = data.incremental ? feedMirror() : undefined;
const engine = createVerdictEngine(storage, data.thresholds, pending, loadCalendar(data.lifecycle), mirror?.feed);

parentPort!.on('message', (message: ReadRequest | 'stop') => {
  if (message === 'stop') {
    void storage.close().finally(() => parentPort!.close());
    return;
  }
  if (message.changes) mirror?.apply(message.changes);
  const answer: Promise<unknown> =
    message.op === 'states' ? engine.analyse(message.range).then(packStates)
    : message.op === 'verdicts' ? engine.verdicts(message.range)
    : message.op === 'verdictsPage' ? engine.verdictsPage(message.range, message.slice!)
    : engine.keys(message.range);
  answer.then(
    (result): ReadReply => ({ id: message.id, result }),
    (err): ReadReply => {
      const e = err as { message?: string; code?: string; path?: string };
      return { id: message.id, error: { message: e.message ?? String(err), code: e.code, path: e.path } };
    },
  ).then((reply) => parentPort!.postMessage(reply));
});
parentPort!.postMessage({ ready: true });
