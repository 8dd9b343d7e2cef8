/**
 * Verdicts on answers, end to end (issue 39), over real HTTP: the SDK (`@breakerbox/sdk`) under
 * the official `openai` client validates each answer against the service's JSON Schema and
 * reports `invalid_output`; the prober's command line runs an answer canary (a JSON Schema)
 * against the same fake provider from two locations; both push to one real collector (SQLite,
 * a manual clock for the alert's for_s) whose webhook notifier pages a receiver in the test.
 * (a) the fake answers 200 with broken JSON for every caller → provider_degraded /
 * wrong_answers with the canary's expected and received answer per location, and a page;
 * (b) the fake answers right while one service's own schema changed → self_inflicted naming
 * that service; (c) a changed system_fingerprint seen by the real prober is in /api/key's
 * served_changes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBreakerbox } from '@breakerbox/sdk';
import { main } from '../../probe/cli.ts';
import { manualClock, type ManualServerClock } from '../../server/clock.ts';
import { receiver, type Receiver } from '../alerts/receiver.ts';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { startListeningCollector, type ListeningCollector } from '../support/listening-collector.ts';
import { API_KEY, rawTarget } from '../probe/helpers.ts';
import { keyQuery } from '../verdicts/support.ts';

/** The one right answer of the services' task and of the canary: a label from a fixed sentence. */
const LABEL = { type: 'object', properties: { label: { type: 'string', enum: ['refund', 'bug', 'other'] } }, required: ['label'], additionalProperties: false };
/** triage's schema after its own change: a field the prompt never asked for. */
const CHANGED = { ...LABEL, properties: { ...LABEL.properties, priority: { type: 'string' } }, required: ['label', 'priority'] };
/** The canary's fixed task has one right answer: the label of a fixed sentence is "refund". */
const CANARY = { ...LABEL, properties: { label: { type: 'string', const: 'refund' } } };
const RIGHT = '{"label":"refund"}';
/** New weights answering broken JSON (cut mid-string), for every caller. */
const BROKEN = '{"label": "refu';
const LOCATIONS = ['eu-west', 'us-east'];

let fake: FakeProvider;
let collector: ListeningCollector;
let hook: Receiver;
let clock: ManualServerClock;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bbx-answers-'));
  fake = await startFakeProvider({ apiKeys: [API_KEY] });
  hook = await receiver();
  clock = manualClock(Date.now());
  collector = await startListeningCollector('answers', {
    clock,
    // Group updates at most once a minute (default 300 s): the page's update lands within the alert window.
    file: { alerts: { group_interval_s: 60 }, notifiers: [{ name: 'hook', type: 'webhook', url: `${hook.url}/hook`, min_severity: 'info', retries: 0 }] },
    env: { BREAKERBOX_ALERT_INTERVAL_S: '0', BREAKERBOX_SUSPICION_INTERVAL_S: '0' },
  });
});
afterAll(async () => {
  await collector?.close();
  await hook?.close();
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the real prober's `--once` for the canary target of `model` from `location`; its exit code. */
async function probeOnce(model: string, location: string): Promise<number> {
  const file = join(dir, `${model}.json`);
  writeFileSync(file, JSON.stringify({ collector: { flush_interval: '200ms' }, targets: [rawTarget(fake.openaiBaseUrl, model, { canary: { json_schema: CANARY } })] }));
  const env = { PROBE_TEST_KEY: API_KEY, BREAKERBOX_TOKEN: collector.token, BREAKERBOX_URL: collector.url };
  return main(['probe', '--config', file, '--location', location, '--once'], { env, stdout: () => undefined, stderr: () => undefined, onSignal: () => () => undefined });
}

/** `calls` calls of `model` by `service` through the SDK, validated against `schema` (none: nothing validated); the answers that failed. */
async function serviceCalls(service: string, model: string, schema: Record<string, unknown> | undefined, calls: number): Promise<number> {
  const bb = createBreakerbox({
    defaults: { retry: { maxAttempts: 1 }, breaker: { minCalls: 1000 } },
    telemetry: { url: collector.url, token: collector.token, service, instance: 'pod-1', intervalMs: 60_000 },
  });
  const client = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: API_KEY, maxRetries: 0, fetch: bb.fetch({ provider: 'openai', ...(schema ? { validate: schema } : {}) }) });
  let failed = 0;
  for (let i = 0; i < calls; i++) {
    await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Label: "I want my money back."' }] }).catch((e: unknown) => {
      expect(e).toBeInstanceOf(OpenAI.APIError);
      expect((e as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
      failed++;
    });
  }
  await bb.close(2_000);
  expect(bb.telemetryStats()).toMatchObject({ dropped: 0, buffered: 0 });
  return failed;
}

/** A read API answer (200 asserted). */
async function read<T = any>(path: string): Promise<T> {
  const res = await fetch(`${collector.url}${path}`, { headers: { authorization: `Bearer ${collector.readToken}` } });
  expect(res.status, path).toBe(200);
  return res.json() as Promise<T>;
}

const verdictOf = async (model: string) => (await read('/api/verdicts?window=15m')).verdicts.find((v: any) => v.key.model === model);

/** Moves the collector's clock to now and returns `model`'s verdict, printed under `label` (the closing note quotes it). */
async function judged(label: string, model: string) {
  clock.set(Date.now());
  const v = await verdictOf(model);
  console.info(`(${label}) ${v.verdict} / ${v.hint}\n  ${v.evidence.join('\n  ')}`);
  return v;
}

/** One alert evaluation at the collector's clock, and its notifications delivered. */
async function evaluate(): Promise<void> {
  await collector.app.alerts.evaluate();
  await collector.app.alerts.idle();
}

describe('verdicts on answers', () => {
  it('a provider answering broken JSON to every caller: provider_degraded / wrong_answers with the canary evidence per location, and a page', async () => {
    const model = 'gpt-4o-mini-2026-answers';
    fake.script(model, { kind: 'ok', text: BROKEN }, { persistent: true });
    // The canary misses from both locations: exit 1, as for any failed probe.
    for (const location of LOCATIONS) for (let i = 0; i < 6; i++) expect(await probeOnce(model, location)).toBe(1);
    // Two services validating the same schema: every answer fails it.
    expect(await serviceCalls('ticket-drafts', model, LABEL, 15)).toBe(15);
    expect(await serviceCalls('triage', model, LABEL, 15)).toBe(15);

    const v = await judged('a', model);
    expect([v.verdict, v.hint]).toEqual(['provider_degraded', 'wrong_answers']);
    expect(v.clients.errors.invalid_output).toBe(30);
    const text = v.evidence.join('\n');
    expect(v.evidence[0]).toBe("provider_degraded: the answer canaries answer wrongly and the clients' answers fail their validation: the provider serves wrong answers (200s)");
    // Per location: how many wrong, what the canary expected and the answer received (redacted excerpt).
    for (const location of LOCATIONS) {
      expect(text).toMatch(new RegExp(`${location}: 6 of 6 probes wrong over 30 min \\(expected JSON matching the canary schema, got text that is not JSON; received "\\{"label": "refu" at \\d\\d:\\d\\d:\\d\\d UTC\\)`));
    }
    expect(text).toContain('answer canaries wrong from eu-west, us-east (≥ 5 wrong and ≥ 20 % of a location\'s probes, from 2 locations)');
    expect(text).toContain('clients: ticket-drafts (15), triage (15) failed invalid_output (answers that broke their own validation) — the same wrong answers, seen by their validation');
    expect(text).toContain('hint wrong_answers: the provider answers 200 with wrong or malformed answers');
    expect(v.alternative.verdict).toBe('self_inflicted');

    // Pages: clients_degraded (critical) once its for_s (60 s) has passed on the collector's clock.
    await evaluate();
    clock.advance(61_000);
    await evaluate();
    const alerts = (await read('/api/alerts?state=firing')).alerts.filter((a: any) => a.key?.model === model);
    // clients_degraded pages (critical); probe_failing warns per location (3 wrong answers in a row, docs/alerts.md).
    expect(alerts.map((a: any) => [a.rule, a.severity, a.location, a.verdict, a.hint]).sort()).toEqual([
      ['clients_degraded', 'critical', null, 'provider_degraded', 'wrong_answers'],
      ['probe_failing', 'warning', 'eu-west', 'provider_degraded', 'wrong_answers'],
      ['probe_failing', 'warning', 'us-east', 'provider_degraded', 'wrong_answers'],
    ]);
    for (const a of alerts) console.info(`(a) page ${a.rule} (${a.severity}): ${a.summary}`);
    const summary: string = alerts.find((a: any) => a.rule === 'clients_degraded').summary;
    expect(summary).toBe(
      'clients served wrong answers over the last 5 min: answer canaries wrong from eu-west, us-east; 100% of 30 calls failed validation (invalid_output)' +
        ' — answer canaries wrong from eu-west 6 of 6 and us-east 6 of 6 probes: provider serving wrong answers (wrong_answers)',
    );
    // The webhook: the incident's first page (probe_failing fires at once), then its update with clients_degraded.
    const bodies = hook.received.map((r) => r.body).filter((b: any) => b.group?.incident?.keys?.some((k: any) => k.key.model === model));
    expect(bodies.map((b: any) => b.event)).toEqual(['firing', 'update']);
    for (const b of bodies) expect([b.group.title, b.group.incident.verdict, b.group.incident.hint]).toEqual([`openai: ${model}, provider degraded (wrong_answers)`, 'provider_degraded', 'wrong_answers']);
    expect(bodies[1].group.alerts.find((x: any) => x.rule === 'clients_degraded')?.summary).toBe(summary);
    console.info(`(a) webhook ${bodies[1].event}: ${bodies[1].group.title} — ${bodies[1].group.alerts.map((x: any) => `${x.rule}: ${x.summary}`).join(' | ')}`);
  });

  it('a provider answering wrongly to clients that validate nothing, probed from one location: still provider_degraded / wrong_answers, and a page', async () => {
    const model = 'gpt-4o-mini-2026-silent';
    // Well-formed JSON, the wrong label: nothing fails at the clients, which check nothing.
    fake.script(model, { kind: 'ok', text: '{"label":"bug"}' }, { persistent: true });
    for (let i = 0; i < 6; i++) expect(await probeOnce(model, 'eu-west')).toBe(1);
    expect(await serviceCalls('ticket-drafts', model, undefined, 25)).toBe(0);

    const v = await judged('a2', model);
    expect([v.verdict, v.hint]).toEqual(['provider_degraded', 'wrong_answers']);
    expect(v.clients).toMatchObject({ calls: 25, failed: 0, degraded: false });
    expect(v.evidence[0]).toBe('provider_degraded: the answer canaries answer wrongly while no call failed: the provider serves wrong answers (200s) that the clients, validating nothing, take as right');
    const text = v.evidence.join('\n');
    expect(text).toMatch(/eu-west: 6 of 6 probes wrong over 30 min \(expected JSON matching the canary schema, got JSON failing it at #\/label: Instance does not match "refund"\.; received "\{"label":"bug"\}" at \d\d:\d\d:\d\d UTC\)/);
    expect(text).toContain('from 1 location');
    expect(text).toContain('clients: no call failed validation (services that validate nothing would not see these answers) — the probes are our own requests, so the verdict rests on them');

    await evaluate();
    clock.advance(61_000);
    await evaluate();
    const alert = (await read('/api/alerts?state=firing')).alerts.find((a: any) => a.key?.model === model && a.rule === 'clients_degraded');
    console.info(`(a2) page clients_degraded (${alert?.severity}): ${alert?.summary}`);
    expect(alert).toMatchObject({ severity: 'critical', verdict: 'provider_degraded', hint: 'wrong_answers' });
    expect(alert.summary).toBe(
      'clients served wrong answers over the last 5 min: answer canaries wrong from eu-west; 25 calls, none failed validation (nothing validates them) — answer canaries wrong from eu-west 6 of 6 probes: provider serving wrong answers (wrong_answers)',
    );
  });

  it("the provider answering right while one service's own schema changed: self_inflicted naming that service", async () => {
    const model = 'gpt-4o-mini-2026-schema';
    fake.script(model, { kind: 'ok', text: RIGHT }, { persistent: true });
    for (const location of LOCATIONS) for (let i = 0; i < 6; i++) expect(await probeOnce(model, location)).toBe(0);
    expect(await serviceCalls('ticket-drafts', model, LABEL, 60)).toBe(0);
    // triage's validator now wants a field the prompt never asks for: every answer fails it.
    expect(await serviceCalls('triage', model, CHANGED, 20)).toBe(20);

    const v = await judged('b', model);
    expect([v.verdict, v.hint]).toEqual(['self_inflicted', 'client_errors']);
    // The service whose own schema changed is named; the other is healthy.
    expect(v.evidence).toContain('services: triage (self_inflicted / client_errors): 100% of 20 calls failed (invalid_output 20); 1 other service healthy (ticket-drafts)');
    const text = v.evidence.join('\n');
    expect(text).toContain(
      "triage (20) failed invalid_output (answers that broke their own validation); the key's probes showed no canary failing by the rule over 30 min (eu-west: 0 wrong of 6 probes; us-east: 0 wrong of 6 probes;",
    );
    expect(text).toContain('— a prompt, schema or validator change of ours');
    expect(text).toContain('hint client_errors: 100% of failures are our own classes (≥ 50%), most of them invalid_output (20: answers that failed the service\'s own validation)');
    expect(text).not.toContain('wrong_answers');

    await evaluate();
    clock.advance(61_000);
    await evaluate();
    const alerts = (await read('/api/alerts?state=firing')).alerts.filter((a: any) => a.key?.model === model);
    expect(alerts.map((a: any) => [a.rule, a.verdict, a.hint])).toEqual([['clients_degraded', 'self_inflicted', 'client_errors']]);
    console.info(`(b) page: ${alerts[0].summary}`);
    expect(alerts[0].summary).toBe('clients failing over the last 5 min: triage 100% of 20 calls failed (1 of 2 services calling the key) — probes fine from 2 locations: likely self-inflicted (client_errors)');
  });

  it("a changed system_fingerprint seen by the real prober shows in /api/key's served_changes", async () => {
    const model = 'gpt-4o-mini-2026-swap';
    fake.script(model, { kind: 'ok', text: RIGHT, fingerprint: 'fp_before01' }, { persistent: true });
    for (let i = 0; i < 2; i++) expect(await probeOnce(model, 'eu-west')).toBe(0);
    fake.script(model, { kind: 'ok', text: RIGHT, fingerprint: 'fp_after002' }, { persistent: true });
    for (let i = 0; i < 2; i++) expect(await probeOnce(model, 'eu-west')).toBe(0);

    clock.set(Date.now());
    const detail = await read(`/api/key?${keyQuery({ provider: 'openai', endpoint: 'chat', model })}&window=15m`);
    console.info(`(c) served_changes: ${JSON.stringify(detail.served_changes)}`);
    expect(detail.served_changes).toHaveLength(1);
    expect(detail.served_changes[0]).toMatchObject({
      seen_in: 'probe', by: 'eu-west',
      from: { model_served: model, system_fingerprint: 'fp_before01' },
      to: { model_served: model, system_fingerprint: 'fp_after002' },
    });
  });
});
