/**
 * Hostile and faulty senders against a real collector process, with the default settings:
 *
 * 1. key flood — one token sends 8 batches of 5,000 `transition` events with distinct
 *    models (40,000 keys): how many are stored, then `/api/verdicts` and `/api/keys` time
 *    and size, and `/healthz` latency while they run;
 * 2. slow headers — 150 connections sending their headers a byte every 200 ms: how many are
 *    still open after `HOSTILE_WAIT_S` (default 15 s);
 * 3. stalled bodies — 120 uploads that declare 1 MB and stall after ~900 kB: server RSS
 *    before, while they stall, and after `HOSTILE_WAIT_S` + 20 s.
 *
 * Prints the figures; run it on two checkouts to compare.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { startServer } from './bench-server.ts';

const ADMIN = 'hostile-admin-secret-0123456789';
const WAIT_S = Number(process.env.HOSTILE_WAIT_S ?? 15);
const dir = mkdtempSync(join(tmpdir(), 'bbx-hostile-'));

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const auth = { authorization: `Bearer ${ADMIN}` };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function timedGet(url: string): Promise<{ ms: number; bytes: number; status: number }> {
  const started = performance.now();
  const res = await request(url, { headers: auth });
  const body = await res.body.arrayBuffer();
  return { ms: performance.now() - started, bytes: body.byteLength, status: res.statusCode };
}

async function keyFlood(url: string, batches: number, perBatch: number): Promise<void> {
  const statuses: number[] = [];
  for (let b = 0; b < batches; b++) {
    const ts = Date.now() - 1000;
    const events = Array.from({ length: perBatch }, (_, i) => ({
      type: 'transition', ts, key: { provider: 'flood', endpoint: 'chat', model: `minted-${perBatch}-${b}-${i}` }, from: null, to: 'closed', reason: 'created',
    }));
    const res = await request(`${url}/v1/telemetry`, {
      method: 'POST', headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ batch_id: `flood-${perBatch}-${b}`, source: { service: 'flood', instance: 'pod-1' }, events }),
    });
    await res.body.dump();
    statuses.push(res.statusCode);
  }
  const keys = await timedGet(`${url}/api/keys`);
  const stored = ((await (await request(`${url}/api/keys?limit=1`, { headers: auth })).body.json()) as { total?: number; keys: unknown[] });
  // /healthz probed every 50 ms while a verdicts and a keys query run.
  const health: number[] = [];
  let running = true;
  const prober = (async () => {
    while (running) {
      const started = performance.now();
      await (await request(`${url}/healthz`)).body.dump();
      health.push(performance.now() - started);
      await sleep(50);
    }
  })();
  const [verdicts, keys2] = await Promise.all([timedGet(`${url}/api/verdicts`), timedGet(`${url}/api/keys`)]);
  running = false;
  await prober;
  const tally = Object.entries(statuses.reduce<Record<number, number>>((t, s) => ((t[s] = (t[s] ?? 0) + 1), t), {}))
    .map(([s, n]) => `${n} x ${s}`).join(', ');
  console.log(`key flood (${batches} x ${perBatch.toLocaleString('en-US')} distinct keys from one token)`);
  console.log(`  batch answers            ${tally}`);
  console.log(`  keys stored              ${stored.total ?? stored.keys.length}`);
  console.log(`  /api/verdicts            ${verdicts.ms.toFixed(0)} ms, ${(verdicts.bytes / 1e6).toFixed(2)} MB (status ${verdicts.status})`);
  console.log(`  /api/keys                ${keys.ms.toFixed(0)} ms / ${keys2.ms.toFixed(0)} ms, ${(keys.bytes / 1e6).toFixed(2)} MB`);
  console.log(`  /healthz meanwhile       max ${Math.max(...health).toFixed(0)} ms over ${health.length} probes`);
}

function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port }, () => resolve(s));
    s.on('error', () => {});
    // Read what the server answers, so its closing the connection is seen here.
    s.resume();
    s.once('error', reject);
  });
}

async function slowHeaders(port: number): Promise<void> {
  const sockets = await Promise.all(Array.from({ length: 150 }, () => openSocket(port)));
  const timers = sockets.map((s) => {
    s.write('POST /v1/telemetry HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    return setInterval(() => s.writable && s.write('a'), 200);
  });
  await sleep(WAIT_S * 1000);
  const open = sockets.filter((s) => !s.destroyed && s.readyState === 'open').length;
  timers.forEach(clearInterval);
  sockets.forEach((s) => s.destroy());
  console.log(`slow headers: ${open} of 150 connections still open after ${WAIT_S} s`);
}

async function stalledBodies(port: number, pid: number): Promise<void> {
  const before = rssMb(pid);
  const sockets = await Promise.all(Array.from({ length: 120 }, () => openSocket(port)));
  const chunk = `{"batch_id":"stall","pad":"${'x'.repeat(900_000)}`;
  for (const s of sockets) {
    s.write(`POST /v1/telemetry HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${ADMIN}\r\nContent-Length: 1000000\r\n\r\n`);
    s.write(chunk);
  }
  await sleep(5000);
  const stalled = rssMb(pid);
  const openSoon = sockets.filter((s) => !s.destroyed).length;
  await sleep((WAIT_S + 20) * 1000);
  const later = rssMb(pid);
  const openLater = sockets.filter((s) => !s.destroyed && s.readyState === 'open').length;
  sockets.forEach((s) => s.destroy());
  console.log('stalled bodies (120 x ~900 kB of a declared 1 MB)');
  console.log(`  RSS before ${before.toFixed(0)} MB, 5 s into the stall ${stalled.toFixed(0)} MB (${openSoon} open), ${WAIT_S + 25} s in ${later.toFixed(0)} MB (${openLater} open)`);
}

// Default limits: the benchmark measures what a hostile sender meets out of the box.
const server = await startServer(dir, ADMIN, { defaultLimits: true, logLevel: 'error', kill: true });
try {
  await keyFlood(server.url, 8, 5000);
  await keyFlood(server.url, 40, 1000);
  await slowHeaders(server.port);
  await stalledBodies(server.port, server.pid);
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
