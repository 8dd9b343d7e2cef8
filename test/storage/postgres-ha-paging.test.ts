/**
 * Two `breakerbox server` processes on one PostgreSQL, both with a webhook notifier pointed
 * at a receiver in this test: the leader pages a firing alert once; after `kill -9` of the
 * leader the survivor takes the lease, the alert keeps firing and is not paged again, a new
 * incident is paged once, and the first incident's end is notified once. A page in flight
 * when the leader dies is sent once more (at least once); a leader that hangs (SIGSTOP) is
 * taken over too, and follows once resumed.
 *
 * Everything runs on the processes' real clocks, so the test waits for conditions (a page
 * arrived, the lease moved, the survivor evaluated N more times), never for a duration.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BreakerKey, ProbeEvent } from '@breakerbox/protocol';
import { describe, expect, it } from 'vitest';
import { receiver, type Received } from '../alerts/receiver.ts';
import { sample } from '../metrics/support.ts';
import { ADMIN, exited, startProcess, type ServerProcess } from '../server/process-harness.ts';
import { batch, tempDir } from '../server/helpers.ts';
import { usePostgresCluster } from '../support/postgres-cluster.ts';

const postgres = usePostgresCluster();

/** Two incidents with nothing in common: other provider, other prober location. */
const K1: BreakerKey = { provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', region: 'us-east' };
const K2: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' };
const L1 = 'eu-west';
const L2 = 'us-west';

const GROUP_WAIT_S = 2;
/** Short lease and evaluation timings, so a takeover happens within seconds. */
const CONFIG = (hookUrl: string) => ({
  alerts: { interval_s: 1, group_wait_s: GROUP_WAIT_S, rules: { probe_failing: { consecutive: 3, resolve_consecutive: 2 } } },
  storage: { leader_renew_ms: 250, leader_hold_ms: 1500 },
  // A reminder would be a second page too: far past the test's length. A request the receiver
  // holds stays in flight (no client timeout, no retry) until its sender dies.
  notifiers: [{ name: 'hook', type: 'webhook', url: `${hookUrl}/hooks/ha`, min_severity: 'info', repeat_interval_s: 3600, timeout_ms: 120_000 }],
  // No per-key state gauges: /metrics is scraped often here, only for the collector's own figures.
  metrics: { state_gauges: false },
});

const auth = { authorization: `Bearer ${ADMIN}` };
const post = async (p: ServerProcess, events: ProbeEvent[]) => {
  const res = await fetch(`${p.url}/v1/telemetry`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify(batch(events, { service: 'prober', instance: 'p1' })) });
  expect(res.status).toBe(200);
};
/** Probes of `key` from `location`, one second apart, the last one a second ago. */
const probes = (key: BreakerKey, location: string, outcome: 'ok' | 'error', n: number): ProbeEvent[] => {
  const now = Date.now();
  return Array.from({ length: n }, (_, i) => ({
    type: 'probe', ts: now - (n - i) * 1000, key, location, outcome,
    ...(outcome === 'error' ? { error_class: 'server' as const, status: 503 } : {}),
    latency_ms: { connect: 10, ttfb: 80, total: 90 },
  }));
};

/** One figure of a process's `/metrics` page (the collector's own). */
async function figure(p: ServerProcess, name: string, labels = ''): Promise<number | null> {
  try {
    return sample(await (await fetch(`${p.url}/metrics`, { headers: auth })).text(), name, labels) ?? null;
  } catch {
    return null;
  }
}
const isLeader = async (p: ServerProcess) => (await figure(p, 'breakerbox_leader')) === 1;
const evaluations = async (p: ServerProcess) => (await figure(p, 'breakerbox_alert_evaluation_duration_seconds_count')) ?? 0;
/** Notifications this process delivered since it started (which collector paged). */
const delivered = async (p: ServerProcess) => (await figure(p, 'breakerbox_notification_deliveries_total', 'notifier="hook",outcome="ok"')) ?? 0;

/** Polls until `check` holds; the deadline is generous (a loaded 2-core machine), never asserted on. */
async function until(check: () => Promise<boolean> | boolean, what: string, deadlineMs = 90_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`never happened: ${what}`);
}

/** Lets `p` run `n` more evaluation passes and at least `minMs` of its clock: what a second page would have needed. */
async function letEvaluate(p: ServerProcess, n: number, minMs: number): Promise<void> {
  const from = await evaluations(p);
  const notBefore = Date.now() + minMs;
  await until(async () => Date.now() >= notBefore && (await evaluations(p)) >= from + n, `${n} more evaluation passes`);
}

/**
 * A fresh database, a receiver answering per `respond`, and two collectors on them: which
 * one leads is read from their `breakerbox_leader` gauge. `start()` adds another collector.
 */
async function fleet(respond?: Parameters<typeof receiver>[0]) {
  const url = await postgres.database('ha');
  const hook = await receiver(respond);
  postgres.defer(() => hook.close());
  const tmp = tempDir();
  postgres.defer(tmp.cleanup);
  const configFile = join(tmp.dir, 'collector.json');
  writeFileSync(configFile, JSON.stringify(CONFIG(hook.url)));
  const cleanups: (() => void)[] = [];
  postgres.defer(() => cleanups.forEach((c) => c()));
  const start = () => startProcess(url, cleanups, { env: { BREAKERBOX_CONFIG: configFile, BREAKERBOX_SUSPICION_INTERVAL_S: '0' } });
  const a = await start();
  const b = await start();
  await until(async () => (await isLeader(a)) !== (await isLeader(b)), 'exactly one collector leads');
  const [leader, follower] = (await isLeader(a)) ? [a, b] : [b, a];
  expect(await isLeader(follower)).toBe(false);
  /** The events the receiver got for alerts of the key's provider (its incident), in order. */
  const pages = (key: BreakerKey) => hook.received.filter((r: Received) => r.body?.alert?.key?.provider === key.provider).map((r) => r.body.event as string);
  return { hook, leader, follower, start, pages };
}

const firingOf = async (p: ServerProcess) =>
  ((await (await fetch(`${p.url}/api/alerts?state=firing`, { headers: auth })).json()) as { alerts: { id: number; fired_at: number; key: BreakerKey }[] }).alerts;
const deliveries = async (p: ServerProcess) =>
  ((await (await fetch(`${p.url}/api/notifications`, { headers: auth })).json()) as { deliveries: { status: string; event: string }[] }).deliveries;

/** A kill -9 that has happened: the process is gone (its sockets closed by the kernel). */
async function kill9(p: ServerProcess): Promise<void> {
  p.child.kill('SIGKILL');
  await exited(p.child);
}

describe.skipIf(!postgres.available)('paging across a kill -9 of the leading collector (two processes, one PostgreSQL)', () => {
  it('pages a firing alert once, keeps it firing without a second page after the takeover, pages a new incident once and its end once', async () => {
    const { hook, leader, follower: survivor, start, pages } = await fleet();

    // Incident 1, ingested through the follower: the leader fires and pages it.
    await post(survivor, probes(K1, L1, 'error', 3));
    await until(() => pages(K1).length >= 1, 'the first incident is paged');
    expect(pages(K1)).toEqual(['firing']);
    const [page] = hook.received;
    expect(page!.body.alert).toMatchObject({ rule: 'probe_failing', state: 'firing', location: L1, key: K1 });
    // The page is recorded as delivered (the state a new leader reads) before the leader dies.
    await until(async () => (await deliveries(survivor)).map((d) => d.status).join() === 'ok', 'the delivery is recorded');
    const [firing] = await firingOf(survivor);
    expect(firing).toMatchObject({ id: page!.body.alert.id, fired_at: page!.body.alert.fired_at });
    // The leader sent it; the follower, with the same notifier, sent nothing.
    expect([await delivered(leader), await delivered(survivor)]).toEqual([1, 0]);

    // kill -9 of the leader: the survivor takes the lease.
    await kill9(leader);
    await until(() => isLeader(survivor), 'the survivor takes over the leader lease');

    // Well past the takeover: many passes of the new leader and past the group wait. The
    // alert is still the same firing alert, and nobody was paged again.
    await letEvaluate(survivor, 8, 3 * GROUP_WAIT_S * 1000);
    expect(await firingOf(survivor)).toEqual([expect.objectContaining({ id: firing!.id, fired_at: firing!.fired_at })]);
    expect(pages(K1)).toEqual(['firing']);

    // A replacement collector joins as a follower; a new incident ingested through it is paged once, by the leader.
    const c = await start();
    await post(c, probes(K2, L2, 'error', 3));
    await until(() => pages(K2).length >= 1, 'the new incident is paged');
    expect(await isLeader(c)).toBe(false);
    await letEvaluate(survivor, 8, 3 * GROUP_WAIT_S * 1000);
    expect(pages(K2)).toEqual(['firing']);
    expect(pages(K1)).toEqual(['firing']);

    // Incident 1 ends (two ok probes in a row): its resolve notice is sent once.
    await post(c, probes(K1, L1, 'ok', 2));
    await until(() => pages(K1).length >= 2, 'the first incident is resolved');
    await letEvaluate(survivor, 8, 3 * GROUP_WAIT_S * 1000);
    expect(pages(K1)).toEqual(['firing', 'resolved']);
    expect(pages(K2)).toEqual(['firing']);
    expect((await firingOf(c)).map((x) => x.key)).toEqual([K2]);
    // Both after the takeover came from the new leader; the replacement follower paged nothing.
    expect([await delivered(survivor), await delivered(c)]).toEqual([2, 0]);

    survivor.child.kill('SIGTERM');
    c.child.kill('SIGTERM');
    expect(await exited(survivor.child)).toBe(0);
    expect(await exited(c.child)).toBe(0);
  }, 300_000);

  it('sends a page that was in flight when the leader died once more, from the new leader (at least once), and then not again', async () => {
    // The first request is held unanswered: the leader has sent it and dies before it can record it.
    const { leader, follower: survivor, pages } = await fleet((_r, index) => (index === 0 ? null : { status: 200 }));
    await post(survivor, probes(K1, L1, 'error', 3));
    await until(() => pages(K1).length >= 1, 'the page is on its way');
    expect((await deliveries(survivor)).map((d) => d.status)).toEqual(['pending']);
    await kill9(leader);
    await until(() => isLeader(survivor), 'the survivor takes over the leader lease');

    // Nothing says the page arrived: the new leader sends it again, and marks the dead one's delivery failed.
    await until(() => pages(K1).length >= 2, 'the page is sent again');
    await letEvaluate(survivor, 8, 3 * GROUP_WAIT_S * 1000);
    expect(pages(K1)).toEqual(['firing', 'firing']);
    expect((await deliveries(survivor)).map((d) => d.status).sort()).toEqual(['failed', 'ok']);
    expect(await delivered(survivor)).toBe(1);
  }, 300_000);

  it('takes over from a leader that hangs (SIGSTOP) with its connections open, and the hung one, resumed, follows without paging', async () => {
    const { leader: hung, follower: survivor, pages } = await fleet();
    await post(survivor, probes(K1, L1, 'error', 3));
    await until(() => pages(K1).length >= 1, 'the first incident is paged');
    await until(async () => (await deliveries(survivor)).map((d) => d.status).join() === 'ok', 'the delivery is recorded');

    // Stopped, not dead: its sockets stay open and the kernel still answers TCP keepalives for it.
    hung.child.kill('SIGSTOP');
    await until(() => isLeader(survivor), 'the survivor takes over from the hung leader');
    await letEvaluate(survivor, 8, 3 * GROUP_WAIT_S * 1000);
    expect(pages(K1)).toEqual(['firing']);

    // Resumed, it finds it lost the lease and acts as a follower: a new incident is paged once, by the survivor.
    hung.child.kill('SIGCONT');
    await until(async () => (await figure(hung, 'breakerbox_leader')) === 0, 'the resumed collector reports it follows');
    await post(hung, probes(K2, L2, 'error', 3));
    await until(() => pages(K2).length >= 1, 'the new incident is paged');
    await letEvaluate(survivor, 8, 3 * GROUP_WAIT_S * 1000);
    expect(pages(K1)).toEqual(['firing']);
    expect(pages(K2)).toEqual(['firing']);
    expect([await delivered(hung), await delivered(survivor)]).toEqual([1, 1]);
  }, 300_000);
});
