import { connect, type Socket } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { batch, tempDir, windowEvent } from './helpers.ts';
import { ADMIN, eventually, startProcess, type ServerProcess } from './process-harness.ts';

const cleanups: (() => void)[] = [];
const sockets: Socket[] = [];
let server: ServerProcess;

beforeAll(async () => {
  const tmp = tempDir();
  cleanups.push(tmp.cleanup);
  const config = join(tmp.dir, 'config.json');
  writeFileSync(config, JSON.stringify({
    http: { request_timeout_ms: 1500, headers_timeout_ms: 1000, check_interval_ms: 200, connection_timeout_ms: 5000, keep_alive_timeout_ms: 1000, max_requests_per_socket: 3 },
    ingest: { max_inflight_body_bytes: 1024 * 1024 },
  }));
  server = await startProcess(join(tmp.dir, 'bbx.db'), cleanups, { env: { BREAKERBOX_CONFIG: config } });
}, 30_000);
afterEach(() => sockets.splice(0).forEach((s) => s.destroy()));
afterAll(() => cleanups.splice(0).reverse().forEach((c) => c()));

/** Opens a raw connection to the server; resolves once connected. */
function open(): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname === 'localhost' ? '127.0.0.1' : hostname, port: Number(port) });
    sockets.push(socket);
    let text = '';
    socket.on('data', (d) => (text += d));
    socket.on('error', () => {});
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.once('connect', () => resolve({ socket, received: () => text, closed }));
    socket.once('error', reject);
  });
}

/** Sends a byte every `everyMs` until the socket closes; resolves with how many were sent. */
function dribble(socket: Socket, everyMs: number): Promise<number> {
  return new Promise((resolve) => {
    let sent = 0;
    const timer = setInterval(() => {
      if (socket.destroyed || !socket.writable) return;
      socket.write('a');
      sent++;
    }, everyMs);
    socket.once('close', () => {
      clearInterval(timer);
      resolve(sent);
    });
  });
}

const head = (length: number) =>
  `POST /v1/telemetry HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAuthorization: Bearer ${ADMIN}\r\nContent-Length: ${length}\r\n\r\n`;

describe('slow and stalled clients', () => {
  it('cuts off a client sending its headers a byte at a time (headers_timeout_ms)', async () => {
    const c = await open();
    c.socket.write('POST /v1/telemetry HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
    await dribble(c.socket, 100);
    await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 408/);
  });

  it('cuts off a client that stalls in the middle of its body (request_timeout_ms)', async () => {
    const c = await open();
    c.socket.write(head(500_000));
    c.socket.write('{"batch_id":"stalled","events":[' + ' '.repeat(10_000));
    await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 408/);
  });

  it('refuses more body bytes in flight than ingest.max_inflight_body_bytes with 503, and frees them when clients go', async () => {
    const clients = await Promise.all(Array.from({ length: 4 }, () => open()));
    for (const c of clients) {
      c.socket.write(head(900_000));
      c.socket.write(' '.repeat(400_000));
    }
    const answered = () => clients.map((c) => c.received()).filter((t) => t.startsWith('HTTP/1.1 503'));
    await eventually(() => answered().length > 0, 'a body past the in-flight budget is answered 503');
    // 4 x 400 kB cannot all be held under 1 MiB; the ones that fit are still waiting for the rest.
    expect(answered().length).toBeLessThan(4);
    expect(answered().join('\n')).toContain('BB_ERR_INGEST_BUSY');
    expect(answered().join('\n').toLowerCase()).toContain('retry-after: 1');
    for (const c of clients) c.socket.destroy();

    const res = await request(`${server.url}/v1/telemetry`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` },
      body: JSON.stringify(batch([windowEvent()])),
    });
    expect(res.statusCode).toBe(200);
    await res.body.dump();
  });
});

describe('keep-alive limits', () => {
  const get = 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n';
  const answers = (text: string) => text.match(/HTTP\/1\.1 \d+/g) ?? [];

  it('closes a kept-alive connection left idle after its answer (keep_alive_timeout_ms)', async () => {
    const c = await open();
    c.socket.write(get);
    await eventually(() => answers(c.received()).length === 1, 'the request is answered');
    expect(c.received()).toMatch(/keep-alive/i);
    await c.closed;
    expect(answers(c.received())).toEqual(['HTTP/1.1 200']);
  });

  it('closes a connection after max_requests_per_socket answers, telling the client on the last one', async () => {
    const c = await open();
    c.socket.write(get.repeat(4)); // pipelined: the fourth is one too many for this socket
    await c.closed;
    const parts = c.received().split(/(?=HTTP\/1\.1 \d{3} )/);
    expect(answers(c.received())).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200', 'HTTP/1.1 200', 'HTTP/1.1 503']);
    expect(parts[1]!.toLowerCase()).toContain('keep-alive: timeout=1, max=3');
    expect(parts[2]!.toLowerCase()).toContain('connection: close');
  });
});
