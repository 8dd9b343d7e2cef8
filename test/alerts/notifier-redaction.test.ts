/**
 * Notifiers carry no secret of the table (test/support/secret-values.ts), whatever a sender
 * reported or a receiver answered: a sender that does not redact (an older SDK, a hand-made
 * exporter) reports samples whose error type, code and message hold the table's values;
 * every page (webhook, Slack, PagerDuty, Alertmanager) is searched, and each row's own
 * webhook answers 400 echoing its rows, so the delivery error (kept in
 * `/api/notifications` and logged) is searched too, with the collector's log output and
 * the samples API.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey, CallSample, ProbeEvent } from '@breakerbox/protocol';
import { loggerOptions } from '../../server/app.ts';
import { MIN, collector, windows, type TestCollector } from '../verdicts/support.ts';
import { receiver, type Receiver } from './receiver.ts';
import { SECRET_ROWS } from '../support/secret-values.ts';

const KEY: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' };
const SECRETS = SECRET_ROWS.flatMap((r) => r.secrets);
const found = (text: string) => SECRETS.filter((s) => text.includes(s));
/**
 * The rows packed into receiver answers that fit the 300 characters a delivery error keeps
 * (at most 50 notifiers per collector): each echoing webhook answers with one bin.
 */
const BINS: string[] = [];
for (const row of [...SECRET_ROWS].sort((a, b) => b.text.length - a.text.length)) {
  const i = BINS.findIndex((b) => JSON.stringify({ error: `${b} | ${row.text}` }).length <= 290);
  if (i < 0) BINS.push(row.text);
  else BINS[i] = `${BINS[i]} | ${row.text}`;
}
/** Rows short enough for a sample's error type or code (100 characters). */
const SHORT = SECRET_ROWS.filter((r) => r.text.length <= 100);

let c: TestCollector;
let pages: Record<'hook' | 'slack' | 'pd' | 'am', Receiver>;
let echo: Receiver;
let logText = '';
let base: number;
const at = (m: number) => base + m * MIN;

beforeAll(async () => {
  pages = { hook: await receiver(), slack: await receiver(), pd: await receiver(() => ({ status: 202 })), am: await receiver() };
  // Each bin's own webhook answers 400 with its rows in the body, as a receiver echoing a token back would.
  echo = await receiver((r) => ({ status: 400, body: { error: BINS[Number(r.path.split('-').at(-1))]! } }));
  const common = { min_severity: 'info', retries: 0 };
  const stream = new Writable({ write: (chunk, _enc, done) => ((logText += chunk), done()) });
  c = await collector({
    logger: { ...(loggerOptions('info') as object), stream },
    config: {
      alerts: { external_url: 'https://breakerbox.example' },
      notifiers: [
        { name: 'hook', type: 'webhook', url: `${pages.hook.url}/hook`, ...common },
        { name: 'slack', type: 'slack', url: `${pages.slack.url}/services/T/B/x`, ...common },
        { name: 'pd', type: 'pagerduty', url: `${pages.pd.url}/v2/enqueue`, routing_key: 'rk', ...common },
        { name: 'am', type: 'alertmanager', url: pages.am.url, ...common },
        ...BINS.map((_, i) => ({ name: `echo-${i}`, type: 'webhook', url: `${echo.url}/bin-${i}`, ...common })),
      ],
    },
  });
  base = c.now - 30 * MIN;
  const probe = (m: number, i: number): ProbeEvent => ({
    type: 'probe', ts: at(m), key: KEY, location: 'eu-west', outcome: 'error', error_class: 'server', status: 503, latency_ms: { total: 300 },
    error_type: SHORT[i % SHORT.length]!.text, message: SECRET_ROWS[i % SECRET_ROWS.length]!.text.slice(0, 300),
  });
  await c.send({ service: 'prober', instance: 'eu' }, [probe(1, 0), probe(2, 1), probe(3, 2)]);
  // Every row reaches the store as a sample's message; the latest three (the ones a page shows) carry short rows as type and code.
  const perWindow = 5;
  const count = Math.ceil(SECRET_ROWS.length / perWindow);
  const ws = windows(KEY, at(3) - count * 10_000, at(3) + 10_000, { calls: 10, errors: { server: 5 } });
  ws.forEach((w, n) => {
    w.samples = SECRET_ROWS.slice(n * perWindow, (n + 1) * perWindow).map((row, k): CallSample => {
      const i = n * perWindow + k;
      return {
        ts: w.start + 1000 * (k + 1), outcome: 'error', error_class: 'server', status: 503, attempt: 1, duration_ms: 700,
        error_type: SHORT[i % SHORT.length]!.text, error_code: SHORT[(i + 7) % SHORT.length]!.text, message: row.text.slice(0, 300), upstream_request_id: `req_${i}`,
      };
    });
  });
  await c.send({ service: 'drafts', instance: 'pod-3' }, ws.filter((w) => w.samples && w.samples.length > 0));
});
afterAll(async () => {
  await c?.close();
  await Promise.all([...Object.values(pages ?? {}), echo].filter(Boolean).map((x) => x.close()));
});

describe('notifiers never carry a secret', () => {
  it('sends pages whose samples hold none of the table\'s values, and keeps and logs delivery errors without the ones a receiver echoed', async () => {
    const result = await c.app.alerts.evaluate(at(4));
    expect(result.firing).toBeGreaterThanOrEqual(1);
    await Promise.all(Object.values(pages).map((x) => x.waitFor(1)));
    await echo.waitFor(BINS.length);
    await c.app.alerts.idle();

    const hook = pages.hook.received[0]!.body;
    expect(hook.samples.length).toBeGreaterThan(0);
    expect(hook.samples[0].provider_error).toContain('[redacted]');
    for (const r of Object.values(pages)) expect(found(JSON.stringify(r.received.map((x) => x.body)))).toEqual([]);
    expect(found(JSON.stringify(echo.received.map((x) => x.body)))).toEqual([]);

    const errors: string[] = [];
    for (let i = 0; i < BINS.length; i++) {
      const [d] = (await c.get(`/api/notifications?notifier=echo-${i}`)).deliveries;
      expect(d).toMatchObject({ status: 'failed', http_status: 400 });
      errors.push(d.error);
    }
    expect(errors.join('\n')).toContain('[redacted]');
    expect(found(errors.join('\n'))).toEqual([]);
    expect(logText).toContain('notification failed');
    expect(found(logText)).toEqual([]);

    const stored = await c.get(`/api/key/samples?provider=openai&endpoint=chat&model=gpt-4o-mini&window=24h&limit=100`);
    expect(stored.samples.length).toBeGreaterThan(0);
    expect(found(JSON.stringify(stored))).toEqual([]);
  });
});
