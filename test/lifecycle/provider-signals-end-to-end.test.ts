/**
 * The provider's own deprecation signal, end to end: the fake provider sends RFC 9745
 * `Deprecation` and RFC 8594 `Sunset` headers on a model's answers, the official `openai`
 * client calls it through the SDK, the SDK reports the signal in its windows, and a real
 * collector with an empty calendar (1) lists the provider's sunset on /api/lifecycle and pages
 * `model_retiring` on it, naming the source, and (2) says `model_retired` for a key failing
 * with 404 model_not_found whose answers carried the signal.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBreakerbox } from '../../sdk/index.ts';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { startListeningCollector, type ListeningCollector } from '../support/listening-collector.ts';
import type { LifecycleView } from '../../server/schemas/lifecycle.ts';

const DAY = 86_400_000;
/** Announced with a Sunset 10 days ahead (a day, 00:00 UTC): a warning under the 30/7-day rule. */
const SUNSETTING = 'gpt-4o-2024-08-06';
const SUNSET_AT = Math.floor(Date.now() / DAY) * DAY + 10 * DAY;
const SUNSET_DAY = new Date(SUNSET_AT).toISOString().slice(0, 10);
/** Deprecated (no Sunset, a junk one) and then gone: 404 model_not_found with the same headers. */
const GONE = 'gpt-4-0613';
const DEPRECATED_AT = Math.floor(Date.now() / 1000) - 30 * 86_400;
/** Deprecated but still answering; our requests to it are wrong (400): a signal alone does not make that model_retired. */
const STILL_SERVED = 'gpt-4-32k';

let collector: ListeningCollector;
let fake: FakeProvider;
let fakeNow = 0;

beforeAll(async () => {
  collector = await startListeningCollector('signals', {
    file: { lifecycle: { shipped_calendar: false, retirements: [] } },
    env: { BREAKERBOX_ALERT_INTERVAL_S: '0', BREAKERBOX_SUSPICION_INTERVAL_S: '0' },
  });
  fake = await startFakeProvider({
    tokens: 4,
    retirements: { [GONE]: 1000 },
    now: () => fakeNow,
    deprecations: {
      [SUNSETTING]: { sunset: new Date(SUNSET_AT).toUTCString(), deprecation: `@${DEPRECATED_AT}` },
      [GONE]: { deprecation: `@${DEPRECATED_AT}`, sunset: 'whenever we feel like it' },
      [STILL_SERVED]: { deprecation: `@${DEPRECATED_AT}` },
    },
  });
});
afterAll(async () => {
  await fake?.close();
  await collector?.close();
});

/** A read API answer (200 asserted). */
async function read<T = any>(path: string): Promise<T> {
  const res = await fetch(`${collector.url}${path}`, { headers: { authorization: `Bearer ${collector.readToken}` } });
  expect(res.status).toBe(200);
  return res.json() as Promise<T>;
}

describe("a provider's Deprecation / Sunset headers", () => {
  it('reach the collector through the official client and the SDK: the lifecycle view, model_retiring and model_retired without a calendar entry', async () => {
    const bb = createBreakerbox({
      defaults: { retry: { maxAttempts: 1 }, breaker: { minCalls: 1000 } },
      telemetry: { url: collector.url, token: collector.token, service: 'ticket-drafts', instance: 'pod-1', intervalMs: 60_000 },
    });
    const client = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: fake.apiKey, maxRetries: 0, fetch: bb.fetch({ provider: 'openai' }) });
    const ask = (model: string) => client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });

    // The official client hands the headers through untouched.
    const { response } = await ask(SUNSETTING).withResponse();
    expect(response.headers.get('sunset')).toBe(new Date(SUNSET_AT).toUTCString());
    for (let i = 0; i < 4; i++) await ask(SUNSETTING);
    for (let i = 0; i < 3; i++) await ask(GONE);
    fakeNow = 1000; // GONE is shut down: 404 model_not_found, still with its Deprecation header
    const errors: unknown[] = [];
    for (let i = 0; i < 20; i++) await ask(GONE).catch((e: unknown) => errors.push(e));
    expect(errors).toHaveLength(20);
    expect(errors[0]).toBeInstanceOf(OpenAI.NotFoundError);
    fake.script(STILL_SERVED, { kind: 'status', status: 400, errorType: 'invalid_request_error', code: 'invalid_value', message: "Invalid value for 'temperature'" }, { persistent: true });
    for (let i = 0; i < 20; i++) await ask(STILL_SERVED).catch((e: unknown) => errors.push(e));
    expect(errors).toHaveLength(40);
    expect((errors[0] as InstanceType<typeof OpenAI.NotFoundError>).headers.get('deprecation')).toBe(`@${DEPRECATED_AT}`);
    await bb.close(2_000);
    expect(bb.telemetryStats()).toMatchObject({ dropped: 0, buffered: 0 });

    const view = await read<LifecycleView>('/api/lifecycle');
    expect(view.calendar).toEqual({ configured: 0, shipped: 0 });
    const sunsetting = view.models.find((m) => m.model === SUNSETTING)!;
    expect(sunsetting).toMatchObject({
      provider: 'openai', calls: 5, status: 'warning',
      retirement: { shutdown: SUNSET_DAY, shutdown_at: SUNSET_AT, source: 'provider', successor: null, read_on: null },
      provider_signal: { sunset_at: SUNSET_AT, deprecation_at: DEPRECATED_AT * 1000, responses: 5 },
    });
    // 10 days ahead, rounded up — 9 if the collector's clock crossed midnight UTC since the test began.
    expect([9, 10]).toContain(sunsetting.days_left);
    expect(sunsetting.provider_signal!.text).toBe(`sunset announced by the provider: ${SUNSET_DAY}, seen on 5 responses; deprecated since ${new Date(DEPRECATED_AT * 1000).toISOString().slice(0, 19)}Z`);
    // A Deprecation without a (parseable) Sunset is no date: the model keeps no_date, the signal is shown.
    const gone = view.models.find((m) => m.model === GONE)!;
    expect(gone).toMatchObject({ status: 'no_date', retirement: null, provider_signal: { sunset_at: null, deprecation_at: DEPRECATED_AT * 1000, responses: 23 } });
    expect(gone.provider_signal!.text).toMatch(/^deprecated by the provider since \S+, seen on 23 responses$/);
    // Soonest date first, models without one last.
    expect(view.models.map((m) => m.model)).toEqual([SUNSETTING, GONE, STILL_SERVED]);

    const verdicts = (await read('/api/verdicts?window=15m')).verdicts;
    const failing = verdicts.find((v: any) => v.key.model === GONE);
    expect(failing).toMatchObject({ verdict: 'self_inflicted', hint: 'model_retired' });
    expect(failing.evidence.join('\n')).toContain("hint model_retired: the provider signals the model's deprecation (deprecated by the provider since");
    expect(verdicts.find((v: any) => v.key.model === SUNSETTING)?.hint ?? null).not.toBe('model_retired');
    // Deprecated, but its failures are 400s, not the provider's 404 model_not_found: our bug after all.
    expect(verdicts.find((v: any) => v.key.model === STILL_SERVED)).toMatchObject({ verdict: 'self_inflicted', hint: 'client_errors' });

    await collector.app.alerts.evaluate();
    const alerts = (await read('/api/alerts?state=firing')).alerts.filter((a: any) => a.rule === 'model_retiring');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ severity: 'warning', key: { model: SUNSETTING } });
    expect(alerts[0].summary).toContain(`openai ${SUNSETTING} retires on ${SUNSET_DAY}, in ${sunsetting.days_left} days; still called by ticket-drafts`);
    expect(alerts[0].summary).toContain(`(no calendar entry; sunset announced by the provider: ${SUNSET_DAY}, seen on 5 responses`);
  });
});
