/**
 * A stand-in collector for the push client's tests: a node:http server on port 0
 * that decodes (gunzips) every batch it receives and answers from a script:
 * a status with headers, or `'destroy'` to drop the connection (collector down).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gunzipSync } from 'node:zlib';
import type { TelemetryBatch } from '@breakerbox/protocol';

/** One scripted answer. */
export type Answer = { status: number; headers?: Record<string, string>; body?: unknown } | 'destroy';

/** One request the receiver got. */
export interface Received {
  headers: IncomingHttpHeaders;
  gzipped: boolean;
  batch: TelemetryBatch;
  answer: Answer;
}

/** Starts a receiver; answers come from `script` in order, then `fallback` (200 by default). */
export async function startReceiver() {
  const received: Received[] = [];
  const script: Answer[] = [];
  let fallback: Answer = { status: 200 };
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const gzipped = req.headers['content-encoding'] === 'gzip';
      const batch = JSON.parse((gzipped ? gunzipSync(raw) : raw).toString('utf8')) as TelemetryBatch;
      const answer = script.shift() ?? fallback;
      received.push({ headers: req.headers, gzipped, batch, answer });
      if (answer === 'destroy') {
        req.socket.destroy();
        return;
      }
      const body = answer.body ?? (answer.status === 200 ? { accepted: batch.events.length, duplicate: false } : { error: { code: 'x', message: 'scripted' } });
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(JSON.stringify(body));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    /** Queues answers for the next requests. */
    answer(...answers: Answer[]) {
      script.push(...answers);
    },
    /** Sets the answer used once the script is used up. */
    setFallback(answer: Answer) {
      fallback = answer;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
