/**
 * The collector over HTTP on both engines: the same batches into a SQLite collector and a
 * PostgreSQL collector give the same answers from the read API; and two collectors on one
 * PostgreSQL database share batch ids, data, tokens and sessions.
 */
import { minuteOf, type TelemetryBatch } from '@breakerbox/protocol';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { buildApp } from '../../server/app.ts';
import { manualClock } from '../../server/clock.ts';
import { KEY, batch, oneOfEach, tempDir, testConfig, windowEvent } from '../server/helpers.ts';
import { usePostgresCluster } from '../support/postgres-cluster.ts';

const postgres = usePostgresCluster();

const NOW = minuteOf(Date.now()) + 30_000;
const ADMIN = 'bbx_engines_admin_secret_0123456789';

async function collector(db: string, clock = manualClock(NOW)): Promise<FastifyInstance> {
  const app = await buildApp({
    config: { ...testConfig(db, { BREAKERBOX_ADMIN_TOKEN: ADMIN }), api: { default_limit: 500, max_limit: 5000, read_worker: false } },
    logger: false,
    clock,
  });
  await app.ready();
  postgres.defer(() => app.close());
  return app;
}
const sqliteCollector = () => {
  const tmp = tempDir();
  postgres.defer(tmp.cleanup);
  return collector(join(tmp.dir, 'bbx.db'));
};
const postgresUrl = () => postgres.database('http');

const post = (app: FastifyInstance, body: TelemetryBatch) =>
  app.inject({ method: 'POST', url: '/v1/telemetry', headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` }, payload: JSON.stringify(body) });
const get = async (app: FastifyInstance, url: string) => {
  const res = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${ADMIN}` } });
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
  return res.json();
};

/** Ten minutes of one key from two instances: errors, an open breaker, tasks, config and probes. */
function scenario(): TelemetryBatch[] {
  const out: TelemetryBatch[] = [];
  for (let m = 10; m >= 1; m--) {
    const start = NOW - m * 60_000;
    const failing = m <= 4;
    for (const instance of ['pod-1', 'pod-2']) {
      out.push(batch([
        windowEvent({ start, end: start + 10_000, calls: 120, ok: failing ? 80 : 119, errors: failing ? { server: 40 } : { server: 1 }, slow: 0 }),
        { type: 'probe', ts: start + 5_000, key: KEY, location: 'eu-west', outcome: failing ? 'error' : 'ok', error_class: failing ? 'server' : undefined, status: failing ? 503 : 200, latency_ms: { total: 300 } },
        { type: 'tasks', start, end: start + 10_000, operation: 'draft-reply', completed: 20, failed: failing ? 5 : 0, degraded: 0, attempts: 25, cost_usd: 0.5, levels: { '0': 20 }, fallback: { invoked: failing ? 5 : 0, failed: 0 } },
      ], { service: 'drafts', instance }));
    }
  }
  out.push(batch([{ type: 'transition', ts: NOW - 200_000, key: KEY, from: 'closed', to: 'open', reason: 'error_rate' }, ...oneOfEach().filter((e) => e.type === 'config')], { service: 'drafts', instance: 'pod-1' }));
  return out;
}

const READS = [
  '/api/verdicts?window=15m',
  '/api/keys?window=15m',
  `/api/key?provider=${encodeURIComponent(KEY.provider)}&endpoint=${KEY.endpoint}&model=${encodeURIComponent(KEY.model)}&region=${KEY.region}&window=15m`,
  '/api/cost?window=15m',
  '/api/probes?window=15m',
  '/api/incidents?window=15m',
];

describe.skipIf(!postgres.available)('the collector on both engines', () => {
  it('answers the read API the same on SQLite and PostgreSQL for the same batches', async () => {
    const sqlite = await sqliteCollector();
    const postgres = await collector(await postgresUrl());
    for (const b of scenario()) {
      const [a, p] = await Promise.all([post(sqlite, b), post(postgres, b)]);
      expect(p.json()).toEqual({ accepted: b.events.length, duplicate: false });
      expect(a.json()).toEqual(p.json());
    }
    for (const url of READS) {
      const [a, p] = [await get(sqlite, url), await get(postgres, url)];
      expect(p, url).toEqual(a);
    }
    const verdicts = await get(postgres, '/api/verdicts?window=15m');
    expect(verdicts.verdicts.map((v: { verdict: string }) => v.verdict)).toEqual(['provider_outage']);
    const [ma, mp] = await Promise.all([sqlite, postgres].map((app) => app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN}` } })));
    const counters = (text: string) => text.split('\n').filter((l) => /^breakerbox_(calls|errors|tasks|probes)[a-z_]*_total\{/.test(l)).sort();
    expect(counters(mp!.body).length).toBeGreaterThan(0);
    expect(counters(mp!.body)).toEqual(counters(ma!.body));
  });

  it('reads hourly aggregates the same on both engines once the sealed hours are built', async () => {
    const sqlite = await sqliteCollector();
    const postgres = await collector(await postgresUrl());
    const hourAgo = NOW - (NOW % 3_600_000) - 3 * 3_600_000;
    for (let m = 0; m < 120; m += 7) {
      const start = hourAgo + m * 60_000;
      const b = batch([windowEvent({ start, end: start + 10_000, calls: 120, ok: 110, errors: { rate_limit: 10 }, slow: 0 }),
        { type: 'probe', ts: start + 1000, key: KEY, location: 'us-east', outcome: 'ok', latency_ms: { total: 200 } }], { service: 'drafts', instance: `pod-${m % 3}` });
      for (const app of [sqlite, postgres]) expect((await post(app, b)).json()).toMatchObject({ duplicate: false });
    }
    const built = await Promise.all([sqlite, postgres].map((app) => app.storage.rollups.warmHours(86_400_000, NOW)));
    // SQLite already built the (then empty) day at start; PostgreSQL's pass at start waited for the lease.
    expect(built[0]!.built).toBeGreaterThanOrEqual(2);
    expect(built[1]!.built).toBeGreaterThanOrEqual(2);
    for (const app of [sqlite, postgres]) expect(await app.storage.rollups.warmHours(86_400_000, NOW)).toEqual({ built: 0 });
    const keyId = async (app: FastifyInstance) => (await app.storage.telemetry.findKeyId(KEY))!;
    const sums = async (app: FastifyInstance) => [...(await app.storage.rollups.keyServiceSums(hourAgo, NOW, await keyId(app))).values()].map((m) => [...m.values()].map((a) => [...a]));
    expect(await sums(postgres)).toEqual(await sums(sqlite));
    for (const url of ['/api/verdicts?window=6h', '/api/cost?window=6h', '/api/probes?window=6h']) expect(await get(postgres, url), url).toEqual(await get(sqlite, url));
  });

  it('lets two collectors on one PostgreSQL share batch ids, data, tokens and sessions', async () => {
    const url = await postgresUrl();
    const [a, b] = [await collector(url), await collector(url)];
    const batches = scenario();
    for (const [i, x] of batches.entries()) expect((await post(i % 2 ? a : b, x)).json()).toMatchObject({ duplicate: false });
    expect((await post(a, batches[1]!)).json()).toEqual({ accepted: 0, duplicate: true });
    expect((await post(b, batches[0]!)).json()).toEqual({ accepted: 0, duplicate: true });
    expect(await get(a, READS[0]!)).toEqual(await get(b, READS[0]!));
    const { secret } = await a.storage.tokens.create('dash', ['read']);
    const signIn = await a.inject({ method: 'POST', url: '/api/session', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ token: secret }) });
    expect(signIn.statusCode).toBe(200);
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
    const who = await b.inject({ method: 'GET', url: '/api/session', headers: { cookie } });
    expect(who.statusCode).toBe(200);
    expect(who.json()).toMatchObject({ name: 'dash' });
  });
});
