/**
 * A failed probe carries the provider's request id and its error body's type/code/message
 * (redacted): the prober reads them off the fake provider's real answers, the collector
 * stores them, `/api/probes` shows them and the provider ticket lists them per location.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProbeEvent } from '@breakerbox/protocol';
import { MAX_SAMPLE_MESSAGE_CHARS } from '@breakerbox/protocol';
import { main } from '../../probe/cli.ts';
import { Prober } from '../../probe/prober.ts';
import { startFakeProvider, type FakeProvider, type Fault } from '../support/fake-provider.ts';
import { startCollector } from './collector.ts';
import { API_KEY, captureLogger, configOf, ManualScheduler, rawTarget } from './helpers.ts';

let fake: FakeProvider;
let dir: string;
let seq = 0;
beforeAll(async () => {
  fake = await startFakeProvider({ apiKeys: [API_KEY] });
  dir = mkdtempSync(join(tmpdir(), 'bbx-probe-evidence-'));
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Probes a fresh model once with `fault` scripted; returns the event and the provider's request id of the attempt. */
async function probe(fault: Fault | undefined, kind: 'openai-chat' | 'anthropic-messages' = 'openai-chat') {
  const model = `ev-${++seq}`;
  if (fault) fake.script(model, fault);
  const config = configOf({
    targets: [rawTarget(kind === 'openai-chat' ? fake.openaiBaseUrl : fake.anthropicBaseUrl, model, { kind, timeouts: { connect_ms: 500, first_byte_ms: 1_000, total_ms: 2_000 } })],
  });
  const events: ProbeEvent[] = [];
  const prober = new Prober({ config, apiKeys: new Map([['PROBE_TEST_KEY', API_KEY]]), sink: (e) => events.push(e), logger: captureLogger().log, scheduler: new ManualScheduler() });
  expect((await prober.fire(model)).kind).toBe('probed');
  return { event: events[0]!, requestId: fake.attemptsFor(model).at(-1)?.requestId };
}

describe('failed probe evidence', () => {
  it('an Anthropic 529 carries its request-id header and overloaded_error', async () => {
    const { event, requestId } = await probe({ kind: 'status', status: 529 }, 'anthropic-messages');
    expect(requestId).toMatch(/^req_/);
    expect(event).toMatchObject({ outcome: 'error', status: 529, upstream_request_id: requestId, error_type: 'overloaded_error' });
    expect(event.message).toBe('Overloaded');
  });

  it('an OpenAI 429 carries its x-request-id and the error type and code', async () => {
    const { event, requestId } = await probe({ kind: 'rate_limit' });
    expect(requestId).toMatch(/^req_[0-9a-f]{32}$/);
    expect(event).toMatchObject({ outcome: 'error', status: 429, error_class: 'rate_limit', upstream_request_id: requestId, error_code: 'rate_limit_exceeded' });
    expect(event.error_type).toBeTypeOf('string');
  });

  it('redacts an error message that echoes the API key, another key, a bearer token and an e-mail address, and cuts it', async () => {
    const echo = `Incorrect API key provided: ${API_KEY}. Also sk-proj-AbCdEf0123456789xyz, Bearer abcdef0123456789 for ops@example.com. ${'x'.repeat(600)}`;
    const { event } = await probe({ kind: 'status', status: 401, message: echo, code: 'invalid_api_key' });
    expect(event.error_code).toBe('invalid_api_key');
    const message = event.message!;
    expect(message.length).toBeLessThanOrEqual(MAX_SAMPLE_MESSAGE_CHARS);
    expect(message).toContain('Incorrect API key provided');
    for (const secret of [API_KEY, 'sk-proj-AbCdEf0123456789xyz', 'abcdef0123456789', 'ops@example.com']) expect(message).not.toContain(secret);
  });

  it('a reset connection has no request id, and an ok probe none of the fields', async () => {
    const reset = (await probe({ kind: 'reset' })).event;
    expect(reset.outcome).toBe('error');
    expect(reset.upstream_request_id).toBeUndefined();
    const ok = (await probe(undefined)).event;
    expect(ok.outcome).toBe('ok');
    for (const f of ['upstream_request_id', 'error_type', 'error_code', 'message'] as const) expect(ok[f]).toBeUndefined();
  });

  it('reaches the collector: stored, shown by /api/probes, listed by the provider ticket per location', async () => {
    const model = 'gpt-4o-mini';
    fake.script(model, { kind: 'status', status: 503 }, { persistent: true });
    const file = join(dir, 'probes.json');
    writeFileSync(file, JSON.stringify({ collector: { flush_interval: '200ms' }, targets: [rawTarget(fake.openaiBaseUrl, model)] }));
    const collector = await startCollector();
    try {
      const env = { PROBE_TEST_KEY: API_KEY, BREAKERBOX_TOKEN: collector.ingestToken, BREAKERBOX_URL: collector.url };
      const err: string[] = [];
      const io = { env, stdout: () => undefined, stderr: (l: string) => err.push(l), onSignal: () => () => undefined };
      // Exit 1: the probe failed; the event was delivered all the same.
      for (let i = 0; i < 3; i++) expect(await main(['probe', '--config', file, '--location', 'eu-west', '--once'], io)).toBe(1);
      expect(err.filter((l) => l.includes('--once:')).map((l) => (JSON.parse(l) as { delivered: number }).delivered)).toEqual([1, 1, 1]);
      const ids = fake.attemptsFor(model).map((a) => a.requestId);
      const rows = collector.rows<{ upstream_request_id: string; error_type: string; message: string }>('SELECT upstream_request_id, error_type, message FROM probe_events WHERE cold = 0 ORDER BY ts');
      expect(rows.length).toBeGreaterThanOrEqual(3);
      for (const r of rows) expect(ids).toContain(r.upstream_request_id);
      expect(rows[0]!.error_type).toBe('server_error');

      const read = (await collector.app.storage.tokens.create('reader', ['read'])).secret;
      const get = (url: string) => collector.app.inject({ url, headers: { authorization: `Bearer ${read}` } });
      const view = (await get('/api/probes?window=15m')).json() as { locations: { targets: { last: { upstream_request_id?: string }; recent: { upstream_request_id?: string }[] }[] }[] };
      const target = view.locations[0]!.targets[0]!;
      expect(target.last.upstream_request_id).toBe(rows.at(-1)!.upstream_request_id);
      expect(target.recent.every((r) => r.upstream_request_id && ids.includes(r.upstream_request_id))).toBe(true);

      const { incidents } = (await get('/api/incidents?window=15m')).json() as { incidents: { id: string; verdict: string }[] };
      const incident = incidents.find((i) => i.verdict.startsWith('provider'));
      expect(incident).toBeDefined();
      const ticket = (await get(`/api/incidents/${incident!.id}/ticket?window=15m`)).body;
      expect(ticket).toMatch(/- eu-west, gpt-4o-mini: \d+ of \d+ failed/);
      const listed = ticket.split('\n').filter((l) => /^ {2}- .* 503 server_error {2}req_/.test(l));
      expect(listed.length).toBe(3);
      for (const l of listed) expect(ids).toContain(l.split('  ').at(-1));
    } finally {
      fake.clear(model);
      await collector.close();
    }
  });
});
