/**
 * A local node:http receiver for reporter tests: decodes gzip, validates the protocol v1
 * batch shape, and answers as scripted (status, Retry-After, or never).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gunzipSync } from 'node:zlib';
import type { TelemetryBatch } from '@breakerbox/protocol';

/** One answer of the receiver: a status (with optional Retry-After), or `hang`. */
export type ReceiverAnswer = { status: number; retryAfter?: string } | 'hang';

export interface ReceivedBatch {
  ts: number;
  encoding: string | undefined;
  authorization: string | undefined;
  batch: TelemetryBatch & { dropped_events?: number };
  /** Shape problems found (empty for a valid batch). */
  problems: string[];
  answered: number | 'hang';
}

const EVENT_TYPES = new Set(['transition', 'window', 'tasks', 'config', 'probe']);

/** Checks the top-level shape of a protocol v1 batch and of each event's common fields. */
export function validateBatch(b: unknown): string[] {
  const p: string[] = [];
  const batch = b as Partial<TelemetryBatch>;
  if (typeof batch?.batch_id !== 'string' || batch.batch_id.length < 1 || batch.batch_id.length > 128) p.push('batch_id');
  if (typeof batch?.source?.service !== 'string' || typeof batch.source.instance !== 'string') p.push('source');
  // A batch may carry passthrough counts and no events (protocol v1, `passthrough`).
  const least = batch?.passthrough?.length ? 0 : 1;
  if (!Array.isArray(batch?.events) || batch.events.length < least || batch.events.length > 5000) p.push('events');
  if (batch?.passthrough !== undefined && (!Array.isArray(batch.passthrough) || batch.passthrough.length < 1 || batch.passthrough.length > 100)) p.push('passthrough');
  for (const [i, e] of (batch?.events ?? []).entries()) {
    if (!EVENT_TYPES.has(e.type)) p.push(`events[${i}].type`);
    if ('key' in e && (typeof e.key?.provider !== 'string' || typeof e.key.model !== 'string' || typeof e.key.endpoint !== 'string')) p.push(`events[${i}].key`);
    if (e.type === 'window') {
      if (e.latency_ms.counts.length !== e.latency_ms.bounds.length + 1) p.push(`events[${i}].latency_ms`);
      if (!Number.isInteger(e.calls) || e.end < e.start) p.push(`events[${i}].window`);
    }
    if (e.type === 'transition' && !Number.isInteger(e.ts)) p.push(`events[${i}].ts`);
  }
  return p;
}

/** Starts a receiver on port 0. `answers` are used in order; then 200. */
export async function startReceiver(answers: ReceiverAnswer[] = []) {
  const received: ReceivedBatch[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    // A telemetry receiver only: the SDK's fleet feed (GET /v1/fleet) finds no feed here and backs off.
    if (req.method === 'GET') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"BB_ERR_FLEET_DISABLED","message":"no feed"}}');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const encoding = req.headers['content-encoding'];
      const text = (encoding === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
      const batch = JSON.parse(text) as ReceivedBatch['batch'];
      const answer = answers.shift() ?? { status: 200 };
      received.push({ ts: Date.now(), encoding, authorization: req.headers.authorization, batch, problems: validateBatch(batch), answered: answer === 'hang' ? 'hang' : answer.status });
      if (answer === 'hang') return;
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (answer.retryAfter) headers['retry-after'] = answer.retryAfter;
      res.writeHead(answer.status, headers);
      res.end(JSON.stringify(answer.status === 200 ? { accepted: batch.events.length, duplicate: false } : { error: { code: 'x', message: 'scripted' } }));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    answers,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
}
