/**
 * The reply schemas serialise the replies (fast-json-stringify): a field a view computes
 * but its schema does not declare would silently never reach a client. Each read route's
 * body is compared with the JSON of what its view returns for the same window.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TelemetryEvent } from '@breakerbox/protocol';
import { makeApp } from './helpers.ts';
import { KEYS, incident } from '../dashboard/seed.ts';
import { probesPage } from '../../server/query/probe-pages.ts';

const MINUTE = 60_000;
let ctx: Awaited<ReturnType<typeof makeApp>>;
const clockNow = Date.now();
const now = clockNow - (clockNow % MINUTE);
const range = { from: now - 60 * MINUTE, to: now + MINUTE };
const windowQuery = `from=${range.from}&to=${range.to}`;

const get = async (url: string) => {
  const res = await ctx.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${ctx.tokens.admin}` } });
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
  return res.json();
};
/** What a handler returned, as JSON would carry it (undefined fields left out). */
const asJson = (value: unknown) => JSON.parse(JSON.stringify(value));

beforeAll(async () => {
  ctx = await makeApp();
  const events: TelemetryEvent[] = incident(now);
  for (let i = 0; i < events.length; i += 500) {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v1/telemetry',
      headers: { authorization: `Bearer ${ctx.tokens.ingest}` },
      payload: { batch_id: `reply-schemas-${i}`, source: { service: 'ticket-drafts', instance: 'pod-7' }, events: events.slice(i, i + 500) },
    });
    expect(res.statusCode, res.body).toBe(200);
  }
  // Requests an SDK forwarded unprotected, so /api/keys has passthrough entries to serialise (one without `why`).
  const pt = await ctx.app.inject({
    method: 'POST',
    url: '/v1/telemetry',
    headers: { authorization: `Bearer ${ctx.tokens.ingest}` },
    payload: { batch_id: 'reply-schemas-passthrough', source: { service: 'ticket-drafts', instance: 'pod-7' }, events: [], passthrough: [
      { host: 'generativelanguage.googleapis.com', path_family: '/v1beta/models/{model}:generateContent', method: 'POST', count: 3, why: 'unknown endpoint' },
      { host: 'api.openai.com', path_family: '/v1/files', method: 'GET', count: 1 },
    ] },
  });
  expect(pt.statusCode, pt.body).toBe(200);
  await ctx.app.alerts.evaluate(now);
  const silence = await ctx.app.inject({
    method: 'POST',
    url: '/api/silences',
    headers: { authorization: `Bearer ${ctx.tokens.admin}` },
    payload: { matchers: [{ name: 'provider', value: KEYS.outage.provider }], ends_at: now + 3_600_000, comment: 'reply schema test' },
  });
  expect(silence.statusCode, silence.body).toBe(201);
});
afterAll(async () => ctx?.close());

describe('reply schemas carry every field the views compute', () => {
  it('/api/verdicts', async () => {
    const all = await ctx.app.fleetReads.verdicts(range);
    expect(all.length).toBeGreaterThan(2);
    const body = await get(`/api/verdicts?${windowQuery}&limit=5000`);
    expect(body).toEqual(asJson({ window: range, verdicts: all, next_cursor: null, total: all.length }));
  });

  it('/api/keys', async () => {
    const all = await ctx.app.fleetReads.keys(range);
    const passthrough = (await ctx.app.storage.telemetry.passthrough(range.from, range.to)).map((r) => ({
      service: r.service, host: r.host, path_family: r.pathFamily, method: r.method, requests: r.requests, why: r.why, last_seen: r.lastMinute,
    }));
    expect(passthrough.map((p) => p.why)).toEqual(['unknown endpoint', null]);
    const body = await get(`/api/keys?${windowQuery}&limit=5000`);
    expect(body).toEqual(asJson({ window: range, keys: all, passthrough, next_cursor: null, total: all.length }));
  });

  it('/api/key, with its config, fallbacks, series and transitions', async () => {
    const detail = await ctx.app.verdicts.keyDetail(KEYS.outage, range, MINUTE);
    expect(detail?.config).not.toBeNull();
    expect(detail?.transitions.length).toBeGreaterThan(0);
    const { provider, endpoint, model, region } = KEYS.outage;
    const key = new URLSearchParams({ provider, endpoint, model, ...(region ? { region } : {}) });
    expect(await get(`/api/key?${key}&${windowQuery}&step=${MINUTE}`)).toEqual(asJson(detail));
  });

  it('/api/cost', async () => {
    const view = await ctx.app.verdicts.cost(range, MINUTE);
    expect(view.operations.length).toBeGreaterThan(0);
    expect(await get(`/api/cost?${windowQuery}&step=${MINUTE}`)).toEqual(asJson(view));
  });

  it('/api/probes', async () => {
    const view = await ctx.app.verdicts.probes(range);
    expect(view.locations.length).toBeGreaterThan(0);
    const body = await get(`/api/probes?${windowQuery}&limit=5000`);
    expect(body).toEqual(asJson(probesPage(view, { limit: 5000, offset: 0, range: null })));
  });

  it('/api/incidents', async () => {
    const incidents = await ctx.app.verdicts.incidents(range);
    expect(incidents.length).toBeGreaterThan(0);
    expect(await get(`/api/incidents?${windowQuery}`)).toEqual(asJson({ window: range, incidents }));
  });

  it('/api/alerts, /api/silences and /api/notifications', async () => {
    const alerts = await ctx.app.alerts.engine.list({ limit: 500 });
    expect(alerts.length).toBeGreaterThan(0);
    expect(await get('/api/alerts')).toEqual(asJson({ alerts }));
    const silences = await ctx.app.alerts.silences.list(ctx.app.clock.now());
    expect(silences.length).toBe(1);
    expect(await get('/api/silences')).toEqual(asJson({ silences }));
    const deliveries = await ctx.app.storage.notifications.deliveries({ limit: 100 });
    expect(await get('/api/notifications')).toEqual(asJson({ notifiers: ctx.app.alerts.dispatcher.status(), deliveries }));
  });
});
