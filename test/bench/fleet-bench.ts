/**
 * `npm run bench -- fleet [--subscribers N]`: the fleet feed at scale (issue 25, "Scale").
 * A real `breakerbox server` process holds N feeds (`GET /v1/fleet`, one key each, default
 * 10,000, opened by raw sockets from this process); it prints the collector's resident
 * memory per feed, then an on-call drain through the admin API and the time until every
 * feed has received it, with the bytes and the collector CPU the push cost.
 * Then the failover run (test/bench/fleet-failover.ts) with the feed and without it, in the
 * same run, and the long outage (test/bench/fleet-long-outage.ts: 10 minutes, or
 * `--outage-minutes N`), per minute side by side. `--scale-only` / `--failover-only` /
 * `--long-only` run one part.
 */
import { connect, type Socket } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fleetKeyTag, type BreakerKey } from '@breakerbox/protocol';
import { peakRssMb, startServer } from './bench-server.ts';
import { failoverRun, type FailoverFigures } from './fleet-failover.ts';
import { longOutage } from './fleet-long-outage.ts';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? def : Number(process.argv[i + 1]);
};
const N = arg('subscribers', 10_000);
const OPEN_AT_ONCE = 200;
const ADMIN = 'fleet-bench-admin-token-0123456789';
const KEY: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' };
const TAG = fleetKeyTag(KEY);

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
/** utime + stime of a process, ms. */
const cpuMs = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
};

interface Feed {
  socket: Socket;
  bytes: number;
  ready: boolean;
  decisionAt: number | null;
}

function openFeed(port: number): Promise<Feed> {
  return new Promise((resolve, reject) => {
    const feed: Feed = { socket: connect(port, '127.0.0.1'), bytes: 0, ready: false, decisionAt: null };
    let text = '';
    feed.socket.setNoDelay(true);
    feed.socket.on('connect', () => {
      feed.socket.write(`GET /v1/fleet?keys=${TAG} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN}\r\nAccept: text/event-stream\r\n\r\n`);
    });
    feed.socket.on('data', (d: Buffer) => {
      feed.bytes += d.length;
      if (!feed.ready) {
        text += d.toString();
        if (text.includes('event: ready')) {
          feed.ready = true;
          text = '';
          resolve(feed);
        } else if (/^HTTP\/1\.1 [^2]/.test(text)) reject(new Error(text.split('\r\n')[0]));
        return;
      }
      if (feed.decisionAt === null && d.includes('event: decision')) feed.decisionAt = performance.now();
    });
    feed.socket.on('error', reject);
  });
}

async function scale(): Promise<void> {
const dir = mkdtempSync(join(tmpdir(), 'bbx-fleet-bench-'));
const server = await startServer(dir, ADMIN, { extraConfig: `fleet:\n  max_subscribers: ${N + 100}\n  poll_interval_ms: 1000\n` });
try {
  await new Promise((r) => setTimeout(r, 1000));
  const rssBefore = rssMb(server.pid);
  const feeds: Feed[] = [];
  const openStart = performance.now();
  for (let i = 0; i < N; i += OPEN_AT_ONCE) {
    feeds.push(...(await Promise.all(Array.from({ length: Math.min(OPEN_AT_ONCE, N - i) }, () => openFeed(server.port)))));
  }
  const openS = (performance.now() - openStart) / 1000;
  await new Promise((r) => setTimeout(r, 2000));
  const rssHeld = rssMb(server.pid);
  const bytesBefore = feeds.reduce((a, f) => a + f.bytes, 0);

  const cpuBefore = cpuMs(server.pid);
  const pushStart = performance.now();
  const res = await fetch(`${server.url}/api/fleet/drain`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ key: KEY, reason: 'fleet bench drain', expires_in_s: 600 }),
  });
  if (res.status !== 201) throw new Error(`drain answered ${res.status}: ${await res.text()}`);
  const deadline = performance.now() + 60_000;
  while (feeds.some((f) => f.decisionAt === null) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  const got = feeds.filter((f) => f.decisionAt !== null).map((f) => f.decisionAt! - pushStart).sort((a, b) => a - b);
  const cpuPush = cpuMs(server.pid) - cpuBefore;
  const bytesPush = feeds.reduce((a, f) => a + f.bytes, 0) - bytesBefore;
  const pct = (p: number) => got[Math.min(got.length - 1, Math.floor((p / 100) * got.length))] ?? NaN;

  console.log(`feeds held: ${feeds.length} (opened in ${openS.toFixed(1)} s, ${OPEN_AT_ONCE} at a time)`);
  console.log(`collector RSS: ${rssBefore.toFixed(1)} MB idle -> ${rssHeld.toFixed(1)} MB holding them: ${(((rssHeld - rssBefore) * 1024) / feeds.length).toFixed(1)} KB per feed; peak ${peakRssMb(server.pid).toFixed(1)} MB`);
  console.log(`drain pushed to ${got.length} of ${feeds.length} feeds: p50 ${pct(50).toFixed(0)} ms, p99 ${pct(99).toFixed(0)} ms, last ${(got.at(-1) ?? NaN).toFixed(0)} ms after the POST`);
  console.log(`push cost: ${(bytesPush / feeds.length).toFixed(0)} bytes per feed (${(bytesPush / 1024 / 1024).toFixed(2)} MB in all), collector CPU ${cpuPush.toFixed(0)} ms`);
  for (const f of feeds) f.socket.destroy();
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
}

const only = (flag: string) => process.argv.includes(flag);
const one = ['--scale-only', '--failover-only', '--long-only'].find(only);
if (!one || one === '--scale-only') {
  console.log(`-- scale: ${N} feeds on one collector --`);
  await scale();
}
if (!one || one === '--failover-only') {
  console.log('-- failover: 20 SDK instances, openai client, one fallback, 1 call/s each; 2 probers at the default schedule; primary 503 for 90 s --');
  const runs: FailoverFigures[] = [];
  // `--feed-only`: the run with the feed alone (the comparison needs both).
  for (const feed of only('--feed-only') ? [true] : [true, false]) runs.push(await failoverRun(feed, (l) => console.log(l)));
  const row = (name: string, f: (r: FailoverFigures) => unknown) => console.log(`${name.padEnd(58)} ${runs.map((r) => String(f(r)).padStart(12)).join(' ')}`);
  row('', (r) => (r.feed ? 'with feed' : 'without'));
  row('calls', (r) => r.calls);
  row('user-visible failed calls', (r) => r.failedCalls);
  row('primary attempts during the outage (fleet-wide)', (r) => r.primaryAttemptsInOutage);
  row('calls that waited on a timeout (> 5 s or timeout class)', (r) => r.timeoutWaits);
  row('probes ok from every location after recovery, s', (r) => r.probesOkAfterRecoveryS ?? 'none');
  row('from then to most traffic on the primary, s', (r) => r.backAfterProbesS ?? 'never');
  row('fleet decisions sent (all feeds) / applied', (r) => `${r.decisionsSent} / ${r.fleetApplied}`);
  for (const r of runs) {
    console.log(`timeline ${r.feed ? 'with' : 'without'} the feed (t0: outage starts, t1: provider back):`);
    for (const line of r.timeline) console.log(`  ${line}`);
  }
  const [on, off] = runs as [FailoverFigures, FailoverFigures | undefined];
  if (off) console.log(`targets: zero failures (${on.failedCalls === 0 && off.failedCalls === 0 ? 'met' : 'missed'}); primary attempts with the feed at most a third of without (${on.primaryAttemptsInOutage * 3 <= off.primaryAttemptsInOutage ? 'met' : 'missed'}: ${on.primaryAttemptsInOutage} vs ${off.primaryAttemptsInOutage}); back within 10 s of the probes (${on.backAfterProbesS !== null && on.backAfterProbesS <= 10 ? 'met' : 'missed'})`);
}
if (!one || one === '--long-only') {
  const minutes = arg('outage-minutes', 10);
  console.log(`-- long outage: the same fleets, primary 503 for ${minutes} minutes, with the feed and without it at once --`);
  await longOutage(minutes * 60_000, (l) => console.log(l));
}
