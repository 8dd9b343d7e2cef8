/**
 * A model retired at a configured time, end to end: the fake provider answers 404
 * `model_not_found` after it (read through the official `openai` client), the SDK reports
 * the failures to a real collector whose calendar has the same date, and the collector
 * judges the key `model_retired` (not `client_errors`) and pages `model_retiring` as critical.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config/load.ts';
import { createBreakerbox } from '../../sdk/index.ts';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';

const DAY = 86_400_000;
const MODEL = 'gpt-4o-2024-05-13';
/** A minute ago, to the second: the shutdown instant both the calendar and the fake are given. */
const RETIRED_AT = Math.floor((Date.now() - 60_000) / 1000) * 1000;

let app: FastifyInstance;
let dir: string;
let url: string;
let ingest: string;
let read: string;
let fake: FakeProvider;
let fakeNow = RETIRED_AT - DAY;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bbx-retired-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({
    lifecycle: { shipped_calendar: false, retirements: [{ provider: 'openai', model: MODEL, shutdown: new Date(RETIRED_AT).toISOString(), successor: 'gpt-4.1' }] },
  }));
  const config = loadConfig({
    env: { BREAKERBOX_DB: join(dir, 'bbx.db'), BREAKERBOX_CONFIG: join(dir, 'config.json'), BREAKERBOX_LOG_LEVEL: 'silent', BREAKERBOX_ALERT_INTERVAL_S: '0', BREAKERBOX_SUSPICION_INTERVAL_S: '0' },
  });
  app = await buildApp({ config, logger: false });
  await app.ready();
  ingest = (await app.storage.tokens.create('sdk', ['ingest'])).secret;
  read = (await app.storage.tokens.create('reader', ['read'])).secret;
  url = await app.listen({ port: 0, host: '127.0.0.1' });
  fake = await startFakeProvider({ tokens: 4, retirements: { [MODEL]: RETIRED_AT }, now: () => fakeNow });
});
afterAll(async () => {
  await fake?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

const get = async (path: string) => {
  const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${read}` } });
  expect(res.status).toBe(200);
  return res.json() as Promise<any>;
};

describe('a model retired at a configured time', () => {
  it('answers through the official client until its time, then 404 model_not_found; the collector says model_retired and pages', async () => {
    const bb = createBreakerbox({
      defaults: { retry: { maxAttempts: 1 }, breaker: { minCalls: 1000 } },
      telemetry: { url, token: ingest, service: 'ticket-drafts', instance: 'pod-1', intervalMs: 60_000 },
    });
    const client = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: fake.apiKey, maxRetries: 0, fetch: bb.fetch({ provider: 'openai' }) });
    const ask = () => client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });

    for (let i = 0; i < 10; i++) expect((await ask()).choices[0]!.finish_reason).toBe('stop');

    fakeNow = RETIRED_AT; // the fake's clock reaches the shutdown instant
    const errors: unknown[] = [];
    for (let i = 0; i < 30; i++) await ask().catch((e: unknown) => errors.push(e));
    expect(errors).toHaveLength(30);
    // The official client's own reading of the answer: its NotFoundError, with OpenAI's error object.
    const e = errors[0] as InstanceType<typeof OpenAI.NotFoundError>;
    expect(e).toBeInstanceOf(OpenAI.NotFoundError);
    expect({ status: e.status, code: e.code, type: e.type, param: e.param }).toEqual({ status: 404, code: 'model_not_found', type: 'invalid_request_error', param: null });
    expect(e.message).toContain(`The model \`${MODEL}\` does not exist`);

    await bb.close(2_000);
    expect(bb.telemetryStats()).toMatchObject({ dropped: 0, buffered: 0 });

    const verdict = (await get('/api/verdicts?window=15m')).verdicts.find((v: any) => v.key.model === MODEL);
    expect(verdict).toMatchObject({ verdict: 'self_inflicted', hint: 'model_retired' });
    expect(verdict.evidence.join('\n')).toContain('move to gpt-4.1');
    const samples = (await get(`/api/key/samples?provider=openai&endpoint=chat&model=${MODEL}&window=1h`)).samples;
    expect(samples[0].sample).toMatchObject({ status: 404, error_class: 'bad_request', error_code: 'model_not_found' });

    await app.alerts.evaluate();
    const alerts = (await get('/api/alerts?state=firing')).alerts.filter((a: any) => a.rule === 'model_retiring');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ severity: 'critical', hint: 'model_retired' });
    expect(alerts[0].summary).toContain('is still called: 40 calls in the last 1 hour by ticket-drafts; successor: gpt-4.1');
  });

  it('answers a retired Anthropic model with not_found_error through the official @anthropic-ai/sdk client', async () => {
    const model = 'claude-3-haiku-20240307';
    let now = 0;
    const own = await startFakeProvider({ retirements: { [model]: 1000 }, now: () => now });
    try {
      const client = new Anthropic({ baseURL: own.anthropicBaseUrl, apiKey: own.apiKey, maxRetries: 0 });
      const ask = () => client.messages.create({ model, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
      expect((await ask()).stop_reason).toBe('end_turn');
      now = 1000;
      const e = await ask().then(() => null, (err: unknown) => err);
      expect(e).toBeInstanceOf(Anthropic.NotFoundError);
      expect((e as InstanceType<typeof Anthropic.NotFoundError>).status).toBe(404);
      expect((e as { error: { type: string; error: { type: string } } }).error).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    } finally {
      await own.close();
    }
  });
});
