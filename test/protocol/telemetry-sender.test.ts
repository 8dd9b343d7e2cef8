/**
 * The shared telemetry sender cannot hurt its host, whatever the collector does: a huge
 * reply is not read, a collector that never answers neither blocks nor keeps the process
 * alive, the buffer never holds more than its cap, and close() is bounded.
 */
import { spawn } from 'node:child_process';
import { createServer as createNetServer, type Socket } from 'node:net';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TelemetrySender, type TelemetryEvent } from '@breakerbox/protocol';

const ROOT = join(import.meta.dirname, '..', '..');
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function collector(handler: (res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => handler(res));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const event = (i: number): TelemetryEvent => ({
  type: 'transition', ts: 1_700_000_000_000 + i, key: { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' },
  from: null, to: 'closed', reason: 'created',
});
const source = { service: 'svc', instance: 'i-1', sdk: 'test' };

describe('the telemetry sender and a hostile collector', () => {
  it('reads at most maxReplyBytes of a 400 MB answer and drops the connection', async () => {
    let written = 0;
    let closedEarly = false;
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    const url = await collector((res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(400 * chunk.length) });
      const pump = () => {
        while (written < 400 * chunk.length) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => (closedEarly = written < 400 * chunk.length || !res.writableFinished));
      pump();
    });
    const sender = new TelemetrySender({ url, source, gzip: false, maxReplyBytes: 4096 });
    sender.enqueue([event(1)]);
    expect(await sender.flush(10_000)).toBe(0);
    expect(sender.stats()).toMatchObject({ sent: 1, batchesSent: 1 });
    await new Promise((r) => setTimeout(r, 50));
    expect(closedEarly).toBe(true);
    // What the kernel's socket buffers took before the client hung up, far from 400 MB.
    expect(written).toBeLessThan(64 * 1024 * 1024);
    await sender.close(100);
  });

  it('never keeps a host process alive while the collector accepts and never answers', async () => {
    // A collector (here, in the test process) that accepts connections and never answers.
    const sockets: Socket[] = [];
    const silent = createNetServer((socket) => void sockets.push(socket));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as AddressInfo).port;
    // The host pushes to it with a 60 s request timeout and then has nothing else to do:
    // it must exit on its own, long before that timeout.
    const script = `
      import { TelemetrySender } from '@breakerbox/protocol';
      const sender = new TelemetrySender({ url: 'http://127.0.0.1:${port}', source: { service: 's', instance: 'i' }, requestTimeoutMs: 60000 });
      sender.enqueue([{ type: 'transition', ts: Date.now(), key: { provider: 'p', endpoint: 'chat', model: 'm' }, from: null, to: 'closed', reason: 'created' }]);
      sender.kick();
      setTimeout(() => console.log('work done, pending ' + sender.pending), 200);
    `;
    try {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      const code = await new Promise<number | string>((resolve) => {
        const guard = setTimeout(() => (child.kill('SIGKILL'), resolve('still alive after 45 s')), 45_000);
        child.once('exit', (c) => (clearTimeout(guard), resolve(c ?? -1)));
      });
      expect(code).toBe(0);
      expect(out).toContain('work done, pending 1');
      expect(sockets.length).toBe(1); // the push did reach the silent collector
    } finally {
      sockets.forEach((s) => s.destroy());
      await new Promise((r) => silent.close(r));
    }
  }, 60_000);

  it('holds at most maxBufferedEvents, the batch in flight included, dropping the oldest', async () => {
    let answer!: () => void;
    const url = await collector((res) => {
      answer = () => res.writeHead(200).end('{"accepted":0,"duplicate":false}');
    });
    const sender = new TelemetrySender({ url, source, gzip: false, maxBufferedEvents: 100, maxBatchEvents: 40 });
    for (let i = 0; i < 40; i++) sender.enqueue([event(i)]);
    sender.kick();
    await new Promise((r) => setTimeout(r, 50)); // the first 40 are in flight, unanswered
    for (let i = 40; i < 1_000; i++) {
      sender.enqueue([event(i)]);
      expect(sender.pending).toBeLessThanOrEqual(100);
    }
    expect(sender.stats()).toMatchObject({ buffered: 100, dropped: 900 });
    answer();
    await sender.close(100);
  });

  it('resolves close() within its bound while a push hangs', async () => {
    await collector(() => undefined).then(async (url) => {
      const sender = new TelemetrySender({ url, source, requestTimeoutMs: 60_000 });
      sender.enqueue([event(1)]);
      sender.kick();
      const left = await sender.close(200);
      expect(left).toBe(1);
      sender.enqueue([event(2)]);
      expect(sender.pending).toBe(1); // closed: later events are ignored
    });
  });

  it('reports the next batch with the count of events it had to drop', async () => {
    const bodies: string[] = [];
    let fail = true;
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        bodies.push(body);
        if (fail) res.writeHead(503).end();
        else res.writeHead(200).end('{}');
      });
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const sender = new TelemetrySender({ url, source, gzip: false, maxBufferedEvents: 5, backoffMs: 1, maxBackoffMs: 2 });
    for (let i = 0; i < 5; i++) sender.enqueue([event(i)]);
    await sender.flush(1_000);
    for (let i = 5; i < 8; i++) sender.enqueue([event(i)]);
    fail = false;
    expect(await sender.flush(5_000)).toBe(0);
    const last = JSON.parse(bodies.at(-1)!) as { dropped_events?: number; events: unknown[] };
    expect(last.dropped_events).toBe(3);
    expect(last.events).toHaveLength(5);
  });
});
